"""A static site's HTML page: its main content, title and headings.

Navigation, site headers and footers repeat on every page and would make every
page match every query, so they are removed before anything is read: the tags and
ARIA roles that say so, and the sidebar a theme names without them (a Sphinx theme's
`<div class="sphinxsidebar">`, which lists every page's title on every page) when most
of its text is link text, the link-density cue of boilerplate detection (Kohlschuetter,
Fankhauser and Nejdl, WSDM 2010), so a content box that happens to carry the name stays.
A <title> that adds the site's name to the page's h1 gives the h1, and a <pre> is fenced
as Markdown writes one, so what reads the lines knows a code block from prose.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from pathlib import PurePosixPath

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from kb.anchors import Anchors
from kb.documents import POWER, Document, Line, Section, index_terms, introducing, segment, title_from_filename

_HIDDEN = ["script", "style", "noscript", "template"]
_CHROME = ["nav", "header", "footer", "aside", "form", "iframe", "svg"]
# Words of a class or id that name a site's navigation box ("sphinxsidebar", "bd-sidebar-primary", "navbar-nav").
# Not "header" (asciidoc's id="header" holds a man page's NAME line), "menu" (DocBook's class="guimenu" names a menu
# in the text) nor "footer": DocBook's navfooter links a page's neighbours, which in GIMP's manual are its family (the
# other blur filters), and GIMP's page recall@5 fell 32/40 -> 28/40 without them (bench/retrieval.py).
_CHROME_WORDS = frozenset({"sidebar", "sphinxsidebar", "sidenav", "navbar", "breadcrumb", "breadcrumbs", "dropdown"})
_WORD_SPLIT = re.compile(r"[-_\s]+")
_LINK_DENSITY = 0.5
_SPACES = re.compile(r"\s+")
_ENGLISH = string.ascii_letters  # the letters of the words kb.documents.segment knows
FENCE = "```"
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
    "header",  # an article's, kept (its title); a page's is chrome, gone before reading
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
    soup = BeautifulSoup(POWER.sub(r"^\1", text), "html.parser")
    for br in soup.find_all("br"):  # a line break between words, not glue: "rows.<br>Next" is not "rows.Next"
        br.replace_with("\n" if br.find_parent("pre") else " ")
    page_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    _drop(soup.find_all(_HIDDEN))
    _label_tab_panels(soup)  # before the buttons go: a tab's label may be one
    _drop(soup.find_all(_is_chrome_box))  # before its <nav> goes: the links in it are what tell it apart
    chrome = soup.find_all(_CHROME)  # an article's header is its title, not chrome
    _drop(t for t in chrome if t.name != "header" or t.find_parent(["article", "main"]) is None)
    _drop(soup.find_all(attrs={"role": ["navigation", "banner", "contentinfo"]}))  # type: ignore[call-overload]
    _drop(soup.find_all(_is_control))
    _drop(soup.find_all(_is_permalink))
    _part_siblings(soup)
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

    _wrap_loose_text(soup, main)
    sections[0].lines += _index_terms(soup, page_title)
    for el in _blocks(main):
        if el.name in _HEADINGS:
            flush()
            heading = _SPACES.sub(_one_space, _joined([(" ", text) for text in el.strings])).strip()
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
        lines = [Line(base + offset, piece.strip()) for offset, piece in enumerate(own.splitlines()) if piece.strip()]
        if el.name == "pre" and lines:  # fenced as Markdown writes it, so what reads lines knows a code block
            lines = [Line(lines[0].number, FENCE), *lines, Line(lines[-1].number, FENCE)]
        sections[-1].lines.extend(lines)  # prose is one line already: _own_text joins it on spaces
    flush()
    return Document(title=_own_title(page_title, h1) or title_from_filename(stem), sections=sections)


# " — ", " | ", " - ", " :: " and the like between a page's name and its site's in a <title>.
_TITLE_PARTS = re.compile(r"\s+(?:[—–|·»]|::?|-{1,2})\s+")


def _drop(tags: Iterable[Tag]) -> None:
    """Remove each tag from the page, unless it went already with a box around it."""
    for tag in tags:
        if not tag.decomposed:
            tag.decompose()


def _index_terms(soup: BeautifulSoup, page_title: str) -> list[Line]:
    """The page's keywords (kb.documents.index_terms): one <meta> an index entry (LibreOffice's help writes them in
    the body, as schema.org's itemprop), or one list in the <head> (Docusaurus' from front matter's keywords)."""
    metas = soup.find_all("meta")
    keywords = [m for m in metas if m.get("name") == "keywords"] + [m for m in metas if m.get("itemprop") == "keywords"]
    if not keywords:
        return []
    return index_terms(keywords[0].sourceline or 1, [str(m.get("content") or "") for m in keywords], page_title)


def _part_siblings(soup: BeautifulSoup) -> None:
    """Sibling elements that are read apart, not glued where one ends and the next begins:
    - inline elements hidden side by side are alternatives a script shows one of: LibreOffice's help writes a shortcut
      for macOS and one for the rest ("Command+T", "F11"), or a phrase for each of its applications, and hides all
      but the reader's; all are read, parted by " / " ("Command+T / F11", not "Command+TF11");
    - in a <pre>, a <code> right after another is a listing of its own, on its own lines: Node.js' docs write each
      example twice, as an ES module and as CommonJS."""
    for tag in soup.find_all(hidden=True):
        if tag.name in _BLOCKS:  # a hidden block (a tab's panel) is read as a block of its own
            continue
        before = tag.previous_sibling
        while isinstance(before, NavigableString) and not before.strip():
            before = before.previous_sibling
        if isinstance(before, Tag) and before.name not in _BLOCKS and before.has_attr("hidden"):
            tag.insert_before(NavigableString(" / "))
    for pre in soup.find_all("pre"):
        for code in pre.find_all("code", recursive=False):
            before = code.previous_sibling
            if isinstance(before, Tag) and before.name == "code" and not before.get_text().endswith("\n"):
                code.insert_before(NavigableString("\n"))


def _compact(tag: Tag) -> str:
    """A tag's text without its spaces: what is measured of it, whatever its markup's spacing."""
    return "".join(tag.get_text().split())


def _blocks(main: Tag) -> list[Tag]:
    """The main box's blocks in page order (what `find_all` with their names gives, without its matching per tag), but
    none inside a <pre>, whose text is read whole: Docusaurus writes each line of a code block as a <div>, and read on
    its own as well each line was read twice."""
    blocks: list[Tag] = []
    for tag in main.descendants:
        if isinstance(tag, Tag) and tag.name in _BLOCKS:
            if tag.find_parent("pre") is not None:
                continue
            blocks.append(tag)
    return blocks


def _wrap_loose_text(soup: BeautifulSoup, main: Tag) -> None:
    """Text that stands right inside a box beside blocks ("<body>We often get questions...<pre>", "<div>Intro<ul>")
    becomes a paragraph of its own where it stands: read as the box's own text it went before the box's blocks, or,
    right inside the page's main box, was not read at all."""
    for box in [main, *_blocks(main)]:
        if box.name in _HEADINGS or box.name == "pre":
            continue
        children = list(box.children)
        if not any(isinstance(c, Tag) and c.name in _BLOCKS for c in children):
            continue
        run: list = []
        for child in [*children, None]:
            if child is not None and not (isinstance(child, Tag) and child.name in _BLOCKS):
                run.append(child)
                continue
            if any(_text_of(c).strip() for c in run):
                paragraph = soup.new_tag("p")
                paragraph.sourceline = _line_of(run[0], box)
                run[0].insert_before(paragraph)
                for c in run:
                    paragraph.append(c.extract())
            run = []


def _line_of(node, box: Tag) -> int:
    """The source line a node starts on; a string has none of its own, so it is counted on from the tag before it."""
    if isinstance(node, Tag):
        return node.sourceline or 1
    text = str(node)
    newlines = text[: len(text) - len(text.lstrip())].count("\n")
    before = node.previous_sibling
    if isinstance(before, Tag) and before.sourceline:
        return before.sourceline + str(before).count("\n") + newlines
    return (box.sourceline or 1) + newlines


def _text_of(node) -> str:
    if isinstance(node, Comment):
        return ""
    return node.get_text() if isinstance(node, Tag) else str(node)


def _own_title(title: str, h1: str) -> str:
    """The page's own name: a <title> that is the h1 followed by the site's name ("borg mount — Borg 1.2.4
    documentation") gives the h1, since the site's part is on every page and would be read in every chunk. The
    other way round is left whole: "File system | Node.js v18 Documentation" has the site's name as its h1."""
    if title and h1:
        parts = _TITLE_PARTS.split(title)
        if len(parts) > 1 and parts[0].casefold() == h1.casefold():
            return h1
    return title or h1


def _label_tab_panels(soup: BeautifulSoup) -> None:
    """Each tab's label as the first line of its panel ("macOS:"), where the page writes the labels apart from the
    panels: ARIA tabs (role="tab" and role="tabpanel": Docusaurus, sphinx-tabs) and CSS tabs made of radio buttons and
    their <label>s (MkDocs Material, sphinx-design). Read in page order, the labels ran together ("macOSWindows") and
    no panel said which system it was for."""
    for tablist in soup.find_all(attrs={"role": "tablist"}):  # type: ignore[call-overload]
        tabs = tablist.find_all(attrs={"role": "tab"})
        scope = tablist.parent or soup
        found = scope.find_all(attrs={"role": "tabpanel"})  # type: ignore[call-overload]
        panels = [p for p in found if p.find_parent(attrs={"role": "tablist"}) is None]
        by_id = {str(p.get("id")): p for p in panels if p.get("id")}
        for n, tab in enumerate(tabs):
            controlled = by_id.get(str(tab.get("aria-controls") or ""))
            panel = controlled or (panels[n] if len(panels) == len(tabs) else None)
            if panel is not None:
                _introduce(soup, panel, tab.get_text(" ", strip=True))
                tab.decompose()
    for group in {id(i.parent): i.parent for i in soup.find_all("input", attrs={"type": "radio"}) if i.parent}.values():
        radios = [i for i in group.find_all("input", attrs={"type": "radio"}, recursive=False) if i.get("id")]
        labels = [label for i in radios if isinstance(label := group.find("label", attrs={"for": i["id"]}), Tag)]
        blocks = _panels(group, len(radios))
        if len(radios) < 2 or len(labels) < len(radios) or blocks is None:
            continue
        for label, panel in zip(labels, blocks):
            _introduce(soup, panel, label.get_text(" ", strip=True))
            label.decompose()


def _panels(group: Tag, count: int) -> list[Tag] | None:
    """The first run of `count` sibling boxes under a radio-button tab set that holds no label: its panels."""
    boxes = [group]
    while len(boxes) == 1:
        boxes = [c for c in boxes[0].find_all(True, recursive=False) if c.name not in ("input", "label") and not c.find("label")]
    return boxes if len(boxes) == count else None


def _introduce(soup: BeautifulSoup, panel: Tag, label: str) -> None:
    """The tab's label as its panel's first line."""
    if label:
        line = soup.new_tag("p")
        line.string = introducing(label)
        line.sourceline = panel.sourceline
        panel.insert(0, line)


PERMALINK_WORDS = {"link", "permalink"}


def _is_permalink(tag: Tag) -> bool:
    """A heading's self-link ("Promises API #", "Usage¶", MkDocs' icon-font glyph): site chrome, not content. A link
    within the page whose text is no word, only a mark."""
    if tag.name != "a" or not str(tag.get("href", "")).startswith("#"):
        return False
    text = tag.get_text(strip=True)
    return text.lower() in PERMALINK_WORDS or not any(ch.isalnum() for ch in text)


def _is_control(tag: Tag) -> bool:
    """A button is a control, not content: a code block's "copy", a theme's "Light" / "Dark", "Print to PDF", "Copy item
    path" beside a heading. Not one that opens a panel (aria-expanded: an accordion's "Is there a trial?") or that is
    its heading's whole text: its label titles what it opens."""
    if tag.name != "button" or tag.has_attr("aria-expanded"):
        return False
    heading = tag.find_parent(list(_HEADINGS))
    return heading is None or _compact(heading) != _compact(tag)


def _is_chrome_box(tag: Tag) -> bool:
    """A box whose class or id names it chrome ("sphinxsidebar", "sidebar-toc") and whose text is mostly links. A
    heading is never one: its id is its own words ("Customize the sidebar" and its self-link)."""
    if tag.name in _HEADINGS:
        return False
    names = [*tag.get_attribute_list("class"), str(tag.get("id") or "")]
    if not any(word in _CHROME_WORDS for name in names if name for word in _WORD_SPLIT.split(name.lower())):
        return False
    text = len(_compact(tag))
    linked = sum(len(_compact(a)) for a in tag.find_all(["a", "button"]))  # links and controls
    return text == 0 or linked >= _LINK_DENSITY * text


def _one_space(spaces: re.Match) -> str:
    """A heading's run of spaces as one, where it holds a space: a no-break space within a string stays ("6.2.\xa0Options",
    as in the page's <title>)."""
    return " " if any(c in " \t\n\r\f\v" for c in spaces[0]) else spaces[0]


def _own_text(el: Tag) -> str:
    """The element's text without that of nested blocks, which are read on their own: its own strings as written,
    and the strings inside each inline child parted by a space."""
    strings: list[tuple[str, str]] = []  # (what goes before it, the string)
    for child in el.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            strings.append(("", str(child)))
        elif isinstance(child, Tag) and child.name not in _BLOCKS:
            strings += (("" if n == 0 or el.name == "pre" else " ", text) for n, text in enumerate(child.strings))
    if el.name == "pre":
        return "".join(text for _, text in strings).strip("\n")
    return " ".join(_joined(strings).split())


def _joined(strings: list[tuple[str, str]]) -> str:
    """Strings joined by what goes before each, but where a tag parts two letters: there the word is whole or two
    words, as the more likely reading says. DocBook marks a menu's access key (`<span class="accel">E</span>dit`)
    and a first letter (`<em>I</em>ncome`) inside the word, and a page may leave out the space before a tag
    ("from the menu<span>Edit</span>"): read "Edit", "Income", "menu Edit", not "E dit", "I ncome", "menuEdit"."""
    out = [text for _, text in strings[:1]]
    run: list[int] = []  # places in `out` of the strings a word may span, tag to tag, letter to letter
    for before, text in strings[1:]:
        if _letters(out[-1][-1:]) and _letters(text[:1]):
            run = run or [len(out) - 1]
            run.append(len(out))
        else:
            _settle(out, run)
            run = []
            out.append(before)
        out.append(text)
        if not _letters(text):  # a word that ends inside this string ends the run
            _settle(out, run)
            run = []
    _settle(out, run)
    return "".join(out)


def _letters(text: str) -> bool:
    return text.isascii() and text.isalpha()


def _settle(out: list[str], run: list[int]) -> None:
    """Put a space, or nothing, before each string of the run after its first (kb.documents.segment)."""
    if not run:
        return
    first, last = out[run[0]], out[run[-1]]
    head, tail = first[len(first.rstrip(_ENGLISH)) :], last[: len(last) - len(last.lstrip(_ENGLISH))]
    pieces = [head, *(out[i] for i in run[1:-1]), tail]
    for i, joined in zip(run[1:], segment(pieces)):
        out[i] = ("" if joined else " ") + out[i]
