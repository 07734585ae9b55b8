"""Checking an answer's citations before anyone sees them, then numbering its sources.

A cited segment is shown only if every citation points at a passage that was
really retrieved, quotes it exactly, and every number in the segment appears in
the passages it cites (or came out of the calculator). Uncited text may connect
sourced sentences but may not carry numbers. Each problem is kept for review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.agent.evidence import Ledger, Passage
from bot.agent.types import Problem, Segment, Source

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_MARKER = re.compile(r"\[\d+\]")


def numbers_in(text: str) -> set[str]:
    """Numbers as written, with thousands separators dropped: "60,000" and "60000" are the same."""
    out = set()
    for raw in _NUMBER.findall(text):
        n = re.sub(r",(?=\d{3}(?:\D|$))", "", raw)
        out.add(n)
        if re.fullmatch(r"\d+\.0+", n):
            out.add(n.split(".")[0])
    return out


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


def verify(segments: list[Segment], ledger: Ledger, allowed: set[str] = frozenset()) -> Verified:
    """allowed: numbers that need no passage (the calculator's inputs and results)."""
    kept: list[tuple[Segment, list[Passage]]] = []
    problems: list[Problem] = []
    for seg in segments:
        text = _MARKER.sub("", seg.text)
        if not seg.citations:
            stray = numbers_in(text) - allowed
            if stray:
                problems.append(Problem.of("unsourced_number", text=seg.text.strip(), numbers=sorted(stray)))
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
