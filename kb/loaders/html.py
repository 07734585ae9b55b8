"""A static site's HTML page: its main content, title and headings.

Navigation, site headers and footers repeat on every page and would make every
page match every query, so they are removed before anything is read.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from kb.anchors import Anchors
from kb.documents import Document, Line, Section, title_from_filename

_CHROME = ["script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "iframe", "svg"]
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS = _HEADINGS | {
    "p",
    "li",
    "pre",
    "td",
    "th",
    "dt",
    "dd",
    "blockquote",
    "figcaption",
    "caption",
    "div",
    "section",
    "article",
    "main",
    "ul",
    "ol",
    "dl",
    "table",
    "tr",
    "thead",
    "tbody",
    "details",
    "summary",
}


def load_html(text: str, path: str, style: str | None = None) -> Document:
    """path: the file's, relative to the docs root (its name is the title of last resort); style: DOCS_ANCHOR_STYLE."""
    stem = PurePosixPath(path).stem
    soup = BeautifulSoup(text, "html.parser")
    page_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_CHROME):
        tag.decompose()
    for tag in soup.find_all(attrs={"role": ["navigation", "banner", "contentinfo"]}):  # type: ignore[call-overload]
        tag.decompose()
    for tag in soup.find_all(_is_permalink):
        tag.decompose()
    by_role = soup.find(attrs={"role": "main"})  # type: ignore[call-overload]
    main = soup.find("main") or by_role or soup.find("article") or soup.body or soup

    anchors = Anchors(style)
    sections = [Section(0, "", "")]
    h1 = ""
    terms: list[tuple[int, str]] = []  # <dt> terms waiting for their <dd>: "--soft: Does not touch the index"

    def flush() -> None:
        for number, term in terms:
            sections[-1].lines.append(Line(number, term))
        terms.clear()

    for el in main.find_all(_BLOCKS):
        if el.name in _HEADINGS:
            flush()
            heading = el.get_text(" ", strip=True)
            if el.name == "h1" and not h1:
                h1 = heading
            sections.append(Section(int(el.name[1]), heading, anchors(heading, str(el.get("id") or "") or None)))
            continue
        own = _own_text(el)
        if not own:
            continue
        base = el.sourceline or 1
        if el.name == "dt":
            terms.append((base, own))
            continue
        if terms and el.name != "pre" and el.find_parent("dd") is not None:
            own = ", ".join(t for _, t in terms) + ": " + own
            terms.clear()
        flush()
        for offset, piece in enumerate(own.splitlines() if el.name == "pre" else [own]):
            if piece.strip():
                sections[-1].lines.append(Line(base + offset, piece.strip()))
    flush()
    return Document(title=page_title or h1 or title_from_filename(stem), sections=sections)


PERMALINK_MARKS = {"", "#", "¶", "§", "🔗", "link", "permalink"}


def _is_permalink(tag: Tag) -> bool:
    """A heading's self-link ("Promises API #", "Usage¶"): site chrome, not content."""
    return tag.name == "a" and str(tag.get("href", "")).startswith("#") and tag.get_text(strip=True) in PERMALINK_MARKS


def _own_text(el: Tag) -> str:
    """The element's text without that of nested blocks, which are read on their own."""
    parts: list[str] = []
    for child in el.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            parts.append(str(child))
        elif isinstance(child, Tag) and child.name not in _BLOCKS:
            parts.append(child.get_text(" " if el.name != "pre" else ""))
    text = "".join(parts)
    return text.strip("\n") if el.name == "pre" else " ".join(text.split())
