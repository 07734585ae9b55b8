"""What a loader makes of a file: a title, an optional URL and its sections.

Every loader produces the same shape, so chunking, linking and sync know
nothing of file formats.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Line:
    number: int  # 1-based line in the source file
    text: str


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
    url: str | None = None  # from front matter; overrides DOCS_BASE_URL
    warnings: list[str] = field(default_factory=list)


class LoadError(Exception):
    """A file that cannot be indexed; the message is the reason shown in the sync report."""


def slugify(text: str) -> str:
    """GitHub-style heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return re.sub(r"\s", "-", text)


class Anchors:
    """Hands out unique anchors the way static site generators do (foo, foo-1, foo-2)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, heading: str, preferred: str | None = None) -> str:
        base = preferred or slugify(heading)
        n = self._seen.get(base)
        self._seen[base] = 0 if n is None else n + 1
        return base if n is None else f"{base}-{n + 1}"


def title_from_filename(stem: str) -> str:
    return re.sub(r"[-_]+", " ", stem).strip().capitalize() or stem
