"""The lines of a passage the local answerer reads: which are worth quoting, tables and their headers, links and
names, and how a chosen line is quoted with its citation."""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import takewhile
from typing import NamedTuple

from bot.agent.evidence import Passage
from bot.agent.types import Citation, Segment
from kb.documents import INDEX_TERMS, QUOTE_MARK, SENTENCE_BREAK
from kb.frequency import zipf
from kb.question import GENERIC_ZIPF
from kb.screening import speaks_to_assistant
from kb.serving import ServingIndex
from kb.tokens import Tokenizer

LONG_LINE = 300  # characters: a longer line is quoted by its sentences that answer
MAX_SENTENCES = 2
# "Figure 17.94. Video filter options"; and a chapter's or part's title, which DocBook's navigation header repeats on
# every page of the chapter ("Chapter 6. Common Transaction Operations", "Part VII. Internals", "Appendix B. ...")
_CAPTION = re.compile(
    r"^(?:(?:figure|fig\.|table|example)\s+[\d.]+\S*|(?:chapter|part|appendix)\s+(?:\d+|[ivxlc]+|[a-z])\.[\d.]*)"
    r"\s+(?:\S+\s+){0,9}\S+$",
    re.I,
)
_LETTER_OR_SPACE = re.compile(r"[^\W\d_]|\s")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
CONTEXT_ITEMS = 4  # list items quoted around the best one
INTRODUCED = 3  # lines quoted after a chosen line that introduces them ("Do it like this:")
# A sentence opening by pointing back ("This is useful if ...", "For this purpose ...", "It then ...") means something
# only with the sentence before it: an excerpt quoting either quotes both. LibreOffice's "zip codes starting with 0 lose
# the zero" quoted "This is useful if ... you enter a postal code that begins with a zero" without "enter an apostrophe
# first" before it. On the eight sets of bench/retrieval.py (2026-12-05): LibreOffice 18/37 -> 19/37 right, GnuCash
# 33/45 -> 34/45, GIMP one wrong answer declined (29/37 -> 29/36); answers' median length 775 -> 784 characters.
_POINTS_BACK = re.compile(r"^(?:(?:\W*\w+\W+){0,2}(?:this|these|those)\b|(?:that|it|its|they|their|such|then|otherwise)\b)", re.I)
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_LETTER = re.compile(r"[^\W\d_]")
_PROMPT = re.compile(r"^\s*\$ \S")  # a shell command as docs show one
_STROKES = re.compile(r"([^\w\s])\1\1")  # "o---o---* topic": a drawing's strokes
# What a line that says how to do something names: code (`git reset --soft`), an option (--remote-ratelimit, -d), a
# shell prompt, a menu path ("Actions → Duplicate Transaction", "Help > Chat with us", LibreOffice's "Tools - Options")
# or a key combination ("Ctrl+S").
_SAYS_HOW = re.compile(
    r"`[^`]+`|(?<![\w-])--?[a-z][\w-]+|\$ \w|→|\b[A-Z]\w* [>-] [A-Z]|\b(?:Ctrl|Shift|Alt|Cmd|Command|Option)\+\w"
)


def quotable(text: str) -> bool:
    """Prose worth quoting: not an instruction to an assistant, not a bare heading, caption, rule or code, nor the
    page's index terms (searched, not an answer)."""
    if (
        text.startswith(INDEX_TERMS)
        or speaks_to_assistant(text)
        or len(text.split()) < 3
        or set(text) <= set("|-: ")
        or _CAPTION.match(text)
    ):
        return False
    if text.startswith("|"):  # a table row: quotable when it has more than labels
        return any(ch.isdigit() for ch in text)
    return len(_LETTER_OR_SPACE.findall(text)) >= 0.7 * len(text)


def says_how(text: str) -> bool:
    """Whether the line names something to type, run, set or choose: what a question about doing a thing wants."""
    return _SAYS_HOW.search(text) is not None


def _is_code(text: str) -> bool:
    """Not prose by the test quotable() reads prose by, nor a drawing: a formula or an expression written as a line."""
    return bool(text.strip()) and len(_LETTER_OR_SPACE.findall(text)) < 0.7 * len(text) and not _STROKES.search(text)


def _is_separator(line: str) -> bool:
    return line.startswith("|") and set(line) <= set("|-: ")


def is_table_header(blocks: list[str], i: int) -> bool:
    return blocks[i].startswith("|") and i + 1 < len(blocks) and _is_separator(blocks[i + 1])


def header_of(blocks: list[str], i: int) -> int | None:
    """The header row of the Markdown table whose body line i is, if it is one."""
    if not blocks[i].startswith("|") or _is_separator(blocks[i]):
        return None
    row = i - 1
    while row >= 1 and blocks[row].startswith("|"):
        if _is_separator(blocks[row]):
            return row - 1 if blocks[row - 1].startswith("|") else None
        row -= 1
    return None


_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
_NAME = re.compile(r"\b[A-Z][\w+-]*(?:\s+[A-Z][\w+-]*)*")


def links_in(line: str) -> list[tuple[str, str]]:
    """The Markdown links of a line: (text, target)."""
    return [(m[1], m[2]) for m in _LINK.finditer(line)]


def linked_pages(p: Passage, i: int) -> Iterator[tuple[str, str]]:
    """The pages of these docs that line i links to: (the link's text, the page's path)."""
    here = posixpath.dirname(p.hit.path)
    for text, target in links_in(p.blocks[i]):
        if target and "://" not in target and not target.startswith(("#", "mailto:")):
            yield text, posixpath.normpath(posixpath.join(here, target.split("#")[0]))


def names_in(line: str, question: str) -> list[str]:
    """Capitalised phrases a line names that the question does not, each with a word rarer than everyday
    English ("Fabrikam", not "In"); link texts first."""
    asked = set(re.findall(r"\w+", question.lower()))
    found = [text for text, _ in links_in(line)] + [m[0] for m in _NAME.finditer(_LINK.sub(" ", line))]
    out: list[str] = []
    for name in found:
        words = re.findall(r"\w+", name.lower())
        if words and not asked.intersection(words) and any(zipf(w) < GENERIC_ZIPF for w in words) and name not in out:
            out.append(name)
    return out


class Candidate(NamedTuple):
    """A quotable line of a passage read, scored for how well it answers the question."""

    score: float
    passage: Passage
    i: int  # the line's index in passage.blocks

    @property
    def text(self) -> str:
        return self.passage.blocks[self.i]


def once(lines: list[Candidate]) -> list[Candidate]:
    """Each text quoted once, where it first comes: docs repeat a line word for word on several pages (npm's
    option descriptions on every command page that takes the option) and in overlapping chunks of one page."""
    first: dict[str, Candidate] = {}
    for c in lines:
        first.setdefault(c.text, c)
    return list(first.values())


def with_context(chosen: list[Candidate]) -> list[Candidate]:
    """The best line with the lines around it that complete it: a rule is often stated over two lines ("free
    over $50" / "otherwise $5"), and a list item is read with its list ("tap once" / "tap twice"). Neighbours
    come from the same passage, only when quotable and short, and never a table's."""
    _, p, i = chosen[0]
    if p.blocks[i].startswith("|"):
        return chosen
    after = _past_fence(p.blocks, i + 1, 1)
    near = [_past_fence(p.blocks, i - 1, -1), after]
    anchor = i if LIST_ITEM.match(p.blocks[i]) else i - 1  # a list item, or the line right after a list
    if anchor >= 0 and LIST_ITEM.match(p.blocks[anchor]):  # that list, up to CONTEXT_ITEMS items around it
        run = range(max(0, anchor - CONTEXT_ITEMS), min(len(p.blocks), anchor + CONTEXT_ITEMS + 1))
        items = [j for j in run if all(LIST_ITEM.match(p.blocks[k]) for k in range(min(anchor, j), max(anchor, j) + 1))]
        near = sorted({*items, after} - {i})
    taken = {(c.passage.index, c.i) for c in chosen}
    extra = [
        Candidate(chosen[0].score, p, j)
        for j in near
        if 0 <= j < len(p.blocks)
        and (p.index, j) not in taken
        and quotable(p.blocks[j])
        and len(p.blocks[j]) <= LONG_LINE
        and not p.blocks[j].startswith("|")
    ]
    return introduced(chosen + extra)


def _past_fence(blocks: list[str], j: int, step: int) -> int:
    """The line j, or the code line beyond it when j is a code fence: a sentence that goes on after a code block
    ("which will replace the old commit...") is completed by the command before it ("$ git commit --amend")."""
    return j + step if 0 <= j < len(blocks) and _FENCE.match(blocks[j]) else j


def introduced(chosen: list[Candidate]) -> list[Candidate]:
    """With the first line that ends by introducing what follows ("Generate it without having it ask any
    questions:"), the code block, shell commands, list or formula it promises, up to INTRODUCED lines: quoted alone,
    such a line tells the asker the answer is right there, and leaves it out. Prose after it is not taken: a line
    ending in a colon also introduces drawings, captions and output. (LibreOffice's help writes a formula as a
    paragraph: "... use the following formula:" / "=(B2<A2)+B2-A2".)"""
    c = next((c for c in chosen if c.text.rstrip().endswith(":")), None)
    if c is None or c.i + 1 >= len(c.passage.blocks):
        return chosen
    blocks, start = c.passage.blocks, c.i + 1
    if _FENCE.match(blocks[start]):  # a code block: its lines up to the closing fence
        lines = list(takewhile(lambda j: not _FENCE.match(blocks[j]), range(start + 1, len(blocks))))
    elif LIST_ITEM.match(blocks[start]) or _PROMPT.match(blocks[start]):  # a run of list items, or of shell commands
        kind = LIST_ITEM if LIST_ITEM.match(blocks[start]) else _PROMPT
        lines = list(takewhile(lambda j: bool(kind.match(blocks[j])), range(start, len(blocks))))
    else:  # a formula written as a paragraph: that line
        lines = [start] if _is_code(blocks[start]) else []
    taken = {(x.passage.index, x.i) for x in chosen}
    more = [
        Candidate(c.score, c.passage, j)
        for j in lines[:INTRODUCED]
        if (c.passage.index, j) not in taken
        and _LETTER.search(blocks[j])  # not a lone brace
        and len(blocks[j]) <= LONG_LINE
        and not speaks_to_assistant(blocks[j])
    ]
    return chosen + more


def quote(p: Passage, i: int, header: int | None, excerpt: str, named: bool = False) -> Segment:
    """One cited line; a table's first quoted row comes with the table's header, cited too, so its cells keep
    their meaning (later rows of the same table follow it without repeating the header). Prose shows the
    excerpt that answers; the citation covers the whole line. named: the line is the first quoted from its
    section, and comes under the section's name (section_name)."""
    text = p.blocks[i]
    row = Citation(p.index, i, i + 1, text, p.source)
    name = f"{section_name(p)}\n" if named else ""
    if text.startswith("|"):
        if header is None:
            return Segment(name + text, (row,))
        head = p.blocks[header : header + 2]
        return Segment(name + "\n".join([*head, text]), (Citation(p.index, header, header + 2, "".join(head), p.source), row))
    return Segment(f"{name}> {QUOTE_MARK.sub('', excerpt)}", (row,))  # a quoted paragraph of the docs: one quote mark


def section_name(p: Passage) -> str:
    """The page title and section a passage's lines come from, in bold, to stand above them: a line quoted alone
    often names its subject only there ("This command creates a tarball from an archive." under "borg export-tar"),
    and a reader of lines from several pages sees which says what. It is the passage's own text, cited with the line
    below it (a number in it is checked against the passage like any other)."""
    return f"**{p.title.replace(' > ', ' › ')}**"


def excerpt(text: str, answers: Callable[[str], int]) -> str:
    """A long line's sentences that answer best, by `answers` (how many of the question's words a sentence holds):
    at most MAX_SENTENCES, the one sentence between two of them and those a quoted one is read with (_POINTS_BACK),
    "…" where some are left out; a short line whole."""
    if len(text) <= LONG_LINE or text.startswith("|"):
        return text
    sentences = SENTENCE_BREAK.split(text)
    hits = [answers(x) for x in sentences]
    keep = sorted(sorted(range(len(sentences)), key=lambda n: (-hits[n], n))[:MAX_SENTENCES])
    keep = [n for n in keep if hits[n]] or [0]
    if len(keep) == 2 and keep[1] - keep[0] == 2:  # the one sentence between two quoted ones bridges them: "...without
        keep.insert(1, keep[0] + 1)  # locking out writes. [Specify the CONCURRENTLY option.] When this option is used"
    points_back = [bool(_POINTS_BACK.match(x)) for x in sentences]  # read with the sentence before: both are quoted
    keep = sorted({*keep, *(n - 1 for n in keep if n > 0 and points_back[n])})
    keep = sorted({*keep, *(n + 1 for n in keep if n + 1 < len(sentences) and points_back[n + 1])})
    out: list[str] = []
    last = -1
    for n in keep:
        if n != last + 1:
            out.append("…")
        out.append(sentences[n])
        last = n
    if last != len(sentences) - 1:
        out.append("…")
    return " ".join(out)


_SURFACE = Tokenizer(stem=None)  # words as written, stopwords dropped


def docs_words(passages: Sequence[Passage], index: ServingIndex, known: set[str], n: int) -> list[str]:
    """The n words these passages use most, rare ones first, as the docs write them, leaving out the `known` terms
    (pseudo-relevance feedback: a search again in the docs' own words)."""
    seen: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for p in passages:
        for text in p.blocks:
            if speaks_to_assistant(text):
                continue
            words = _SURFACE.words(text)
            for word, term in zip(words, index.tokenizer.stems(words)):
                seen[term] += 1
                surface.setdefault(term, word)
    for t in known:
        seen.pop(t, None)
    idf = dict(zip(seen, index.idf(list(seen))))
    return [surface[t] for t in sorted(seen, key=lambda t: -seen[t] * idf[t])[:n]]
