"""Sections become chunks: one per heading, long ones cut into overlapping windows.

A chunk keeps its source line numbers so an answer can cite the exact lines it
used, and an index text that repeats the page title and heading path so a short
chunk ("Refund window: 30 days") is still found by "refund".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from kb.documents import SENTENCE_BREAK, Document, Line

MAX_WORDS = 220
OVERLAP_WORDS = 40
# A section's number before its name ("3.7.3. Options", "2.1 Writing", "Chapter 3. Developing with Git"); a number
# that belongs to the name ("2 ways to pair", "3-Way Merge") has no dot after it, and stays.
_NUMBER = re.compile(r"^(?:(?:chapter|section|part|appendix)\s+\d+(?:\.\d+)*\.?|\d+(?:\.\d+)*\.|\d+(?:\.\d+)+)\s+", re.I)
ENCODER_TEXT = "unnumbered"  # what encoder_text gives, as part of the vectors' name: a change re-encodes every chunk


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    heading: str  # "Refunds > Refund window"
    anchor: str
    lines: tuple[Line, ...]

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    @property
    def start_line(self) -> int:
        return self.lines[0].number

    @property
    def end_line(self) -> int:
        return self.lines[-1].end


def stored(heading: str, lines: list) -> Chunk:
    """A chunk as the index stores it (its heading and [number, text] lines), to be read again."""
    return Chunk(0, heading, "", tuple(Line(n, t) for n, t in lines))


def index_text(title: str, chunk: Chunk) -> str:
    heading = chunk.heading
    if heading == title or heading.startswith(title + " > "):
        heading = heading[len(title) :].lstrip(" >")
    return "\n".join(part for part in (title, heading, chunk.text) if part)


def unnumbered(heading: str) -> str:
    """A heading path with each part's section number left out."""
    return " > ".join(_NUMBER.sub("", part) for part in heading.split(" > "))


def encoder_text(title: str, chunk: Chunk) -> str:
    """What the sentence encoder reads of a chunk: its index text without section numbers, which to it are noise
    (on GIMP's numbered manual, page recall@5 29/40 -> 32/40; bench/retrieval.py)."""
    return index_text(unnumbered(title), replace(chunk, heading=unnumbered(chunk.heading)))


def chunk_document(doc: Document, max_words: int = MAX_WORDS, overlap_words: int = OVERLAP_WORDS) -> list[Chunk]:
    chunks: list[Chunk] = []
    stack: list[tuple[int, str]] = []
    for section in doc.sections:
        if section.level > 0:
            stack = [(lvl, h) for lvl, h in stack if lvl < section.level] + [(section.level, section.heading)]
        path = [h for _, h in stack if h]
        if not stack or stack[0][0] != 1:
            path = [doc.title, *path]
        heading = " > ".join(path)
        lines = _split_long_lines(section.lines, max(1, max_words // 2))
        for window in _windows(lines, max_words, overlap_words):
            chunks.append(Chunk(len(chunks), heading, section.anchor, tuple(window)))
    return chunks


def _split_long_lines(lines: list[Line], limit: int) -> list[Line]:
    out: list[Line] = []
    for line in lines:
        if len(line.text.split()) <= limit:
            out.append(line)
            continue
        out += (Line(line.number, piece, line.last) for piece in _pieces(line.text, limit))
    return out


def _pieces(text: str, limit: int) -> list[str]:
    """A long paragraph in pieces of at most `limit` words, cut where a sentence ends, so a piece quoted alone reads
    from a sentence's start ("tuple in the table's heap. For shorter length variable-" was a piece); a sentence longer
    than that is cut between words."""
    pieces: list[list[str]] = [[]]
    for sentence in SENTENCE_BREAK.split(text):
        words = sentence.split()
        if pieces[-1] and len(pieces[-1]) + len(words) > limit:
            pieces.append([])
        for start in range(0, len(words), limit):  # a sentence over the limit: cut between words
            if start:
                pieces.append([])
            pieces[-1] += words[start : start + limit]
    return [" ".join(piece) for piece in pieces if piece]


def _windows(lines: list[Line], max_words: int, overlap_words: int) -> list[list[Line]]:
    if not lines:
        return []
    counts = [len(line.text.split()) for line in lines]
    if sum(counts) <= max_words:
        return [lines]
    windows: list[list[Line]] = []
    start = 0
    while start < len(lines):
        end, words = start, 0
        while end < len(lines) and (words + counts[end] <= max_words or end == start):
            words += counts[end]
            end += 1
        windows.append(lines[start:end])
        if end >= len(lines):
            break
        back, overlap = end, 0  # step back over whole lines covering the overlap
        while back - 1 > start and overlap + counts[back - 1] <= overlap_words:
            back -= 1
            overlap += counts[back]
        start = back
    return windows
