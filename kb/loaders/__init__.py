"""One loader per format, chosen by file extension."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from kb.documents import Document, Line, Section, title_from_filename
from kb.loaders.html import load_html
from kb.loaders.markdown import load_markdown
from kb.loaders.rst import load_rst

# Raise when a loader reads the same file differently: the next sync re-indexes every page with it.
LOADERS_VERSION = 4  # 4: a paragraph wrapped over several lines is one line


def load_text(text: str, path: str, style: str | None = None) -> Document:
    """path: the file's, relative to the docs root (its name is the title of last resort); style: DOCS_ANCHOR_STYLE."""
    stem = PurePosixPath(path).stem
    lines = [Line(i + 1, s.strip()) for i, s in enumerate(text.splitlines()) if s.strip()]
    return Document(title=title_from_filename(stem), sections=[Section(0, "", "", lines)])


Loader = Callable[[str, str, str | None], Document]  # (text, path, DOCS_ANCHOR_STYLE)

LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".mdx": load_markdown,
    ".rst": load_rst,
    ".txt": load_text,
    ".text": load_text,
    ".html": load_html,
    ".htm": load_html,
}


def loader_for(suffix: str) -> Loader | None:
    return LOADERS.get(suffix.lower())
