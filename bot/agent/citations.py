"""Checking an answer's citations before anyone sees them, then numbering its sources.

A cited segment is shown only if every citation points at a passage that was
really retrieved, quotes it exactly, and every number in the segment (in digits or
in words: "ninety-nine") appears in the passages it cites (or came out of the
calculator). Uncited text may connect sourced sentences ("In short,", "Here's
how:") but may not carry numbers or state anything itself. A link survives only
when its address is in a retrieved passage or a source; otherwise its label is
kept as plain text, or dropped when the label itself looks like an address. Each
problem is kept for review. Streamed or whole, an answer goes through this one check.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from bot.agent.evidence import Ledger, Passage
from bot.agent.types import Problem, Segment, Source

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_MARKER = re.compile(r"\[\d+\]")
_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORD = rf"(?:{'|'.join([*_UNITS, *_TENS, *_SCALES])})"
_WORDS_NUMBER = re.compile(rf"\b{_NUMBER_WORD}(?:(?:[\s-]+(?:and[\s-]+)?){_NUMBER_WORD})*\b", re.IGNORECASE)


def _word_value(words: str) -> int | None:
    """The value of an English number in words ("ninety-nine", "two thousand five hundred"); None for a lone "one"
    or "zero", which are as often pronouns and phrasing ("the one you kept") as amounts."""
    parts = [w for w in re.split(r"[\s-]+", words.lower()) if w and w != "and"]
    if parts in (["one"], ["zero"]):
        return None
    total = current = 0
    for w in parts:
        if w in _UNITS:
            current += _UNITS.index(w)
        elif w in _TENS:
            current += 20 + 10 * _TENS.index(w)
        elif w == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[w]
            current = 0
    return total + current


def numbers_in(text: str) -> set[str]:
    """Numbers as written, with thousands separators dropped ("60,000" and "60000" are the same), a decimal also
    without its trailing zeros ("40.80" holds 40.8, as money is written; "2.0" holds 2), and numbers in words as
    digits ("three weeks" holds 3)."""
    out = set()
    for raw in _NUMBER.findall(text):
        n = re.sub(r",(?=\d{3}(?:\D|$))", "", raw)
        out.add(n)
        if re.fullmatch(r"\d+\.\d*0", n):
            out.add(n.rstrip("0").rstrip("."))
    for m in _WORDS_NUMBER.finditer(text):
        value = _word_value(m.group(0))
        if value is not None:
            out.add(str(value))
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
CONNECTIVE_WORDS = 4  # an uncited sentence this short (or one that introduces, ending in ':') only connects


def states_a_fact(text: str) -> bool:
    """Uncited text that says something itself, rather than connecting what the cited sentences say."""
    for sentence in _SENTENCE_END.split(text.strip()):
        sentence = sentence.strip()
        if sentence and not sentence.endswith(":") and len(re.findall(r"[^\W\d_]+", sentence)) > CONNECTIVE_WORDS:
            return True
    return False


_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)[^)]*\)")
_BARE_URL = re.compile(r"(?<![(<\w])(?:https?://|www\.)[^\s<>()\[\]]+", re.IGNORECASE)
_LOOKS_LIKE_AN_ADDRESS = re.compile(r"(?:https?://|www\.|\b[\w-]+\.(?:com|org|net|io|example|dev|app)\b)", re.IGNORECASE)


def allowed_links(ledger: Ledger) -> set[str]:
    """The addresses an answer may link to: those written in the passages retrieved, and the pages' own links."""
    out: set[str] = set()
    for p in ledger.passages:
        text = " ".join(p.blocks)
        out.update(target for _, target in _LINK.findall(text))
        out.update(m.rstrip(".,;:") for m in _BARE_URL.findall(text))
        out.update(u for u in (p.hit.url, p.hit.url.split("#")[0] if p.hit.url else None) if u)
    return out


def only_known_links(text: str, allowed: set[str]) -> tuple[str, list[str]]:
    """The text with every link to an address outside `allowed` unlinked (its label kept as plain text, or
    dropped if it looks like an address itself), and the addresses removed."""
    removed: list[str] = []

    def link(m: re.Match) -> str:
        label, target = m.group(1), m.group(2)
        if target in allowed:
            return m.group(0)
        removed.append(target)
        return "" if _LOOKS_LIKE_AN_ADDRESS.search(label) else label

    def bare(m: re.Match) -> str:
        url = m.group(0).rstrip(".,;:")
        if url in allowed:
            return m.group(0)
        removed.append(url)
        return m.group(0)[len(url) :]

    return _BARE_URL.sub(bare, _LINK.sub(link, text)), removed


def _same_text(cited: str, blocks: list[str]) -> bool:
    squash = lambda s: " ".join(s.split())
    return squash(cited) in {squash("".join(blocks)), squash("\n".join(blocks)), squash(" ".join(blocks))}


@dataclass
class Verified:
    segments: list[tuple[Segment, list[Passage]]]  # kept segments and the passages each cites
    problems: list[Problem]

    @property
    def has_sourced_claim(self) -> bool:
        return any(passages for _, passages in self.segments)


def verify(segments: list[Segment], ledger: Ledger, allowed: AbstractSet[str] = frozenset()) -> Verified:
    """allowed: numbers that need no passage (the calculator's inputs and results)."""
    kept: list[tuple[Segment, list[Passage]]] = []
    problems: list[Problem] = []
    links = allowed_links(ledger)
    for seg in segments:
        clean, removed = only_known_links(seg.text, links)
        if removed:
            problems.append(Problem.of("unknown_link", text=seg.text.strip(), links=removed))
            seg = Segment(clean, seg.citations)
        text = _MARKER.sub("", seg.text)
        if not seg.citations:
            stray = numbers_in(text) - allowed
            if stray:
                problems.append(Problem.of("unsourced_number", text=seg.text.strip(), numbers=sorted(stray)))
            elif states_a_fact(text) and not numbers_in(text):  # a sentence stating a calculated result may stand
                problems.append(Problem.of("uncited_claim", text=seg.text.strip()))
            else:
                kept.append((seg, []))
            continue
        ok, passages = True, []
        for c in seg.citations:
            p = ledger.get(c.search_result_index)
            if p is None:
                problems.append(Problem.of("cites_unretrieved", text=seg.text.strip(), search_result_index=c.search_result_index))
                ok = False
                continue
            if c.source and c.source != p.source:
                problems.append(Problem.of("source_mismatch", text=seg.text.strip(), expected=p.source, got=c.source))
                ok = False
            if not (0 <= c.start_block_index < c.end_block_index <= len(p.blocks)):
                problems.append(Problem.of("bad_block_range", text=seg.text.strip(), source=p.source))
                ok = False
            elif not _same_text(c.cited_text, p.blocks[c.start_block_index : c.end_block_index]):
                problems.append(
                    Problem.of("cited_text_mismatch", text=seg.text.strip(), source=p.source, cited_text=c.cited_text)
                )
                ok = False
            if p not in passages:
                passages.append(p)
        if ok:
            supported = set().union(*(numbers_in(" ".join([*p.blocks, p.title])) for p in passages)) | allowed
            missing = numbers_in(text) - supported
            if missing:
                problems.append(Problem.of("number_not_in_passage", text=seg.text.strip(), numbers=sorted(missing)))
                ok = False
        if ok:
            kept.append((seg, passages))
    return Verified(kept, problems)


def render(verified: Verified) -> tuple[str, list[Source], list[dict]]:
    """The answer text with [n] after each sourced segment, the numbered sources, and what each cites."""
    numbers: dict[tuple[str, str], int] = {}
    sources: list[Source] = []
    cited: list[dict] = []
    parts: list[str] = []
    for seg, passages in verified.segments:
        ns = []
        for p in passages:
            key = (p.hit.path, p.hit.heading)
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                sources.append(Source(numbers[key], p.title, p.hit.path, p.hit.url, p.hit.collection))
            n = numbers[key]
            if n not in ns:
                ns.append(n)
        for c in seg.citations:
            p = next(x for x in passages if x.index == c.search_result_index)
            cited.append(
                {
                    "n": numbers[(p.hit.path, p.hit.heading)],
                    "chunk_id": p.hit.chunk_id,
                    "lines": [[line.number, line.text] for line in p.hit.lines[c.start_block_index : c.end_block_index]],
                }
            )
        text = _MARKER.sub("", seg.text)
        if ns:
            stripped = text.rstrip()
            trail = text[len(stripped) :]
            text = stripped + " " + "".join(f"[{n}]" for n in ns) + trail
        parts.append(text)
    answer = re.sub(r"[ \t]+\n", "\n", "".join(parts)).strip()
    return answer, sources, cited
