"""What a loader makes of a file: a title, an optional URL and its sections.

Every loader produces the same shape, so chunking, linking and sync know
nothing of file formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kb.frequency import zipf


@dataclass(frozen=True)
class Line:
    """A line as the reader sees it: a paragraph wrapped over several source lines is one line, numbered by its first."""

    number: int  # 1-based line in the source file
    text: str
    last: int = 0  # its last source line, when it was written over several

    @property
    def end(self) -> int:
        return max(self.number, self.last)


@dataclass
class Section:
    level: int  # 1 for the page title, 2 for "##", ...; 0 for text before any heading
    heading: str
    anchor: str
    lines: list[Line] = field(default_factory=list)


@dataclass
class Document:
    title: str
    sections: list[Section]
    url: str | None = None  # from front matter: a URL, or a path under DOCS_BASE_URL ("/..."); overrides the file's
    warnings: list[str] = field(default_factory=list)


# A page's own index terms (an HTML page's keywords <meta>, front matter's `keywords:`), its authors' words for what it
# is about where its text says it otherwise: LibreOffice's "Wrapping Text Around Objects" is indexed under "text wrap
# around objects; contour editor; wrapping text, editing contours". One line at the page's start, which the search
# reads and the answerer never quotes (bot.agent.lines.quotable): they are a list of terms, not an answer.
INDEX_TERMS = "Index terms: "


def index_terms(number: int, terms: Iterable[str], title: str) -> list[Line]:
    """The page's index terms as its first line (cited at `number`), none that only repeats its title: Texinfo writes
    the page's <title> as its keywords."""
    seen = {title.casefold()} if title else set()
    kept: list[str] = []
    for term in terms:
        term = " ".join(str(term).split())
        if term and term.casefold() not in seen:
            seen.add(term.casefold())
            kept.append(term)
    return [Line(number, INDEX_TERMS + "; ".join(kept))] if kept else []


class LoadError(Exception):
    """A file that cannot be indexed; the message is the reason shown in the sync report."""


def title_from_filename(stem: str) -> str:
    return re.sub(r"[-_]+", " ", stem).strip().capitalize() or stem


# A Markdown quote's marks at a line's start ("> ", "> > "): a quoted paragraph keeps the first line's, as written.
QUOTE_MARK = re.compile(r"^(?:>\s?)+")


# Where a sentence ends and the next begins: a full stop, "!" or "?" and a space before a capital, a number, a
# bracket or a quote ("e.g. the" and "v1.2.3" go on).
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(`\"'])")


# A superscript number right after a number is its power: "2<sup>31</sup>-1" shows 2³¹-1, read "2^31-1", not "231-1"
# (a number the answerer would quote as one). After a word it is a footnote's mark or a unit's ("m<sup>2</sup>").
POWER = re.compile(r"(?<=\d)<sup>\s*(-?\d+)\s*</sup>")


SUFFIXES = frozenset({"s", "es", "ed", "ing"})  # an ending written after a name's tag ends the name's word
LONGEST_WORD = 30  # letters: a longer reading is not a word, so no run of tags costs more than this a string


def segment(pieces: list[str]) -> list[bool]:
    """Whether each boundary between these strings of letters is inside a word, by the most likely reading as English
    words: Norvig's word segmentation ("Natural Language Corpus Data", Beautiful Data, 2009), where a reading's
    likelihood is the product of its words' probabilities and an unknown word's is 10 / (N x 10^length); wordfreq's
    Zipf values give log10 of a word's frequency per 10^9 words. "E|dit" is "Edit", "menu|Edit" two words."""
    best: list[tuple[float, int]] = [(0.0, 0)]  # the best reading of pieces[:end]: its log10 likelihood, its last word's start
    for end in range(1, len(pieces) + 1):
        start, word, readings = end - 1, pieces[end - 1], []
        while True:
            if start == 0 or pieces[start].lower() not in SUFFIXES:  # "<code>Hasher</code>s" is one word
                readings.append((best[start][0] + _log_likelihood(word), start))
            if start == 0 or (readings and len(word) + len(pieces[start - 1]) > LONGEST_WORD):
                break
            start -= 1
            word = pieces[start] + word
        best.append(max(readings))
    joined, end = [True] * (len(pieces) - 1), len(pieces)
    while end > 0:  # back from the last word: a word's first piece is parted from the one before it
        start = best[end][1]
        if start:
            joined[start - 1] = False
        end = start
    return joined


def _log_likelihood(word: str) -> float:
    frequency = zipf(word.lower())
    return frequency - 9 if frequency > 0 else 1 - 9 - len(word)


def introducing(title: str) -> str:
    """A block's title or a tab's label as the line that introduces its text: "Annual" -> "Annual:"."""
    title = " ".join(title.split())
    return title if not title or title[-1] in ".:?!" else f"{title}:"
