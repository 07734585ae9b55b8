"""One loader per format, chosen by file extension.

A format's parser (markdown-it, docutils, BeautifulSoup) is imported when a file of that format is first read:
together they take about 0.2 s to import, which a process that never reads a docs file (a serving bot, whose
syncs run in a child process, or `supportbot logs`) does not pay.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from kb.documents import Document, Line, Section, title_from_filename

# Raise when a loader reads the same file differently, or kb.chunking cuts it otherwise: the next sync re-indexes every
# page with it.
# 5: an HTML theme's sidebar and a <title>'s site name left out, code fenced; Markdown without its generator's syntax
# 6: Markdown without link reference definitions, MkDocs' admonition and tab text read as text, not code;
#    reStructuredText with Sphinx's directives read as their text and its roles as the text they show
# 7: tabs and accordions introduced by their labels (Markdown and HTML), a Markdown heading's {#id} taken when
#    DOCS_ANCHOR_STYLE is unset; a Sphinx version note's label and first paragraph one line
# 8: Markdown as its page shows it: the HTML inside a paragraph (<kbd>, <br>, <a href> as a link), a reference link
#    as a link, an image by its alt text and a line of images not at all, footnotes, GitHub's and Obsidian's alerts,
#    MDX comments, components inside a paragraph and attribute lists; HTML's <br> parts words ("-p<br>plain" was
#    "-pplain"); a power after a number as one ("2^31", not "231"); an article's <header> read (its h1), and a heading
#    whose id says "sidebar" kept
# 9: a paragraph too long for one chunk is cut where a sentence ends, not mid-sentence (kb.chunking); in HTML a word
#    parted by tags is read whole ("<span>E</span>dit": "Edit") and words a tag glues are read apart ("menuEdit");
#    a Markdown thematic break ("---") is no line
# 10: in HTML a button is not text (a code block's "copy", a theme's "Light" / "Dark"), but for one that opens a panel
#    or is its heading's whole text; a box named a sidebar is judged with the links of its own <nav>; text right
#    inside a box beside blocks is read where it stands, and right inside the main box at all; a block inside a <pre>
#    is not read again on its own (Docusaurus writes a code line a <div>)
# 11: in HTML a <code> right after another inside a <pre> begins a line (Node.js' ES module and CommonJS examples);
#     inline elements hidden side by side, alternatives a script shows one of, are parted by " / " (LibreOffice's help);
#     a page's keywords (an HTML keywords <meta>, front matter's `keywords:`) are its first line, its index terms
LOADERS_VERSION = 11


def load_text(text: str, path: str, style: str | None = None) -> Document:
    """path: the file's, relative to the docs root (its name is the title of last resort); style: DOCS_ANCHOR_STYLE."""
    stem = PurePosixPath(path).stem
    lines = [Line(i + 1, s.strip()) for i, s in enumerate(text.splitlines()) if s.strip()]
    return Document(title=title_from_filename(stem), sections=[Section(0, "", "", lines)])


Loader = Callable[[str, str, str | None], Document]  # (text, path, DOCS_ANCHOR_STYLE)


def _markdown(text: str, path: str, style: str | None = None) -> Document:
    from kb.loaders.markdown import load_markdown

    return load_markdown(text, path, style)


def _rst(text: str, path: str, style: str | None = None) -> Document:
    from kb.loaders.rst import load_rst

    return load_rst(text, path, style)


def _html(text: str, path: str, style: str | None = None) -> Document:
    from kb.loaders.html import load_html

    return load_html(text, path, style)


LOADERS: dict[str, Loader] = {  # the source formats before the rendered ones (.html last)
    ".md": _markdown,
    ".markdown": _markdown,
    ".mdx": _markdown,
    ".rst": _rst,
    ".txt": load_text,
    ".text": load_text,
    ".html": _html,
    ".htm": _html,
}


def loader_for(suffix: str) -> Loader | None:
    return LOADERS.get(suffix.lower())
