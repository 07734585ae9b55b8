"""Markdown and MDX, with optional YAML front matter.

markdown-it finds the headings, so a "#" inside a code fence is not a heading;
the section bodies keep the source lines as written, which is what a citation
quotes back to the reader, except that a paragraph wrapped over several source
lines is one line, as it reads: quoted by its lines, it would be cut mid-sentence.
What the page does not show is not read: a link reference definition ("[pricing]: https://...") and a docs
generator's syntax around the text (_text_of). What the site shows of that syntax is read:
an admonition's or an alert's title, a tab's label and an accordion's title, introducing their text ("macOS: Drag the
app..."); the HTML inside a paragraph by what it shows ("Press <kbd>Ctrl</kbd>+<kbd>S</kbd>": "Press Ctrl+S",
_as_shown), a component there by its label and text ("<Card title="Quickstart">Set up...</Card>"); an image by its alt
text; a line of images (a screenshot, badges), a footnote's mark, an MDX comment and an attribute list
("{ .md-button }") not at all, the footnote's text without its label.
MkDocs' admonitions and content tabs indent their text four spaces, which CommonMark reads as a code block; it is
read as the text it is (_blocks_dedented).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import partial
from pathlib import PurePosixPath

import yaml
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference
from mdit_py_plugins.front_matter import front_matter_plugin

from kb.anchors import Anchors, front_matter_path, split_explicit_id
from kb.documents import POWER, QUOTE_MARK, Document, Line, LoadError, Section, index_terms, introducing, title_from_filename

_md = MarkdownIt("commonmark", {"html": True}).use(front_matter_plugin).enable("table")


def load_markdown(text: str, path: str, style: str | None = None) -> Document:
    """path: the file's, relative to the docs root (its name is the title of last resort); style: DOCS_ANCHOR_STYLE."""
    stem = PurePosixPath(path).stem
    text = _blocks_dedented(text)
    env: dict = {}  # markdown-it keeps the link reference definitions here, by their normalised labels
    tokens = _md.parse(text, env)
    references = {label: ref["href"] for label, ref in env.get("references", {}).items()}
    meta: dict = {}
    warnings: list[str] = []
    body_start = 0
    headings: list[tuple[int, int, int, str]] = []  # (first line, last line, level, text)
    raw_html: list[tuple[int, int]] = []  # line ranges of HTML blocks: markup, not text to quote
    code: set[int] = set()  # lines of code blocks, kept exactly as written
    wrapped: dict[int, int] = {}  # a paragraph written over several lines: its first line -> the line after it
    shown: set[int] = set()  # lines some block holds: outside them are blank lines and link reference definitions
    rules: set[int] = set()  # thematic breaks ("---", "***"): a line drawn across the page, no text
    for i, tok in enumerate(tokens):
        if tok.level == 0 and tok.map:
            shown.update(range(*tok.map))
        if tok.type == "front_matter" and tok.map:
            body_start = tok.map[1]
            try:
                loaded = _front_matter(tok.content)
            except yaml.YAMLError as e:
                warnings.append(f"front matter is not valid YAML, ignored ({str(e).splitlines()[0]})")
                loaded = None
            if isinstance(loaded, dict):
                meta = loaded
        elif tok.type in ("fence", "code_block") and tok.map:
            code.update(range(*tok.map))
        elif tok.type == "paragraph_open" and tok.map and tok.map[1] - tok.map[0] > 1:
            wrapped[tok.map[0]] = tok.map[1]
        elif tok.type == "hr" and tok.map:
            rules.update(range(*tok.map))
        elif tok.type == "html_block" and tok.map:
            raw_html.append((tok.map[0], tok.map[1]))
        elif tok.type == "heading_open" and tok.map:
            inline = tokens[i + 1]
            text_of = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            headings.append((tok.map[0], tok.map[1], int(tok.tag[1]), text_of.strip() or inline.content.strip()))

    lines = [line if n in shown and n not in rules else "" for n, line in enumerate(text.splitlines())]
    for start, stop in raw_html:
        lines[start:stop] = _html_block(lines[start:stop])
    title = str(meta.get("title") or "").strip()
    if not title:
        h1 = next((h for h in headings if h[2] == 1), None)
        title = split_explicit_id(h1[3], style)[0] if h1 else title_from_filename(stem)
    url = meta.get("url")
    if url is not None and not isinstance(url, str):
        raise LoadError("front matter 'url' must be a string")
    url = url or front_matter_path(path, meta, style)

    anchors = Anchors(style)
    sections: list[Section] = []
    first_heading = headings[0][0] if headings else len(lines)
    lead = _description(meta, lines, body_start) + _keywords(meta, lines, body_start, title)
    if first_heading > body_start or lead:
        sections.append(Section(0, "", "", lead + _lines(lines, body_start, first_heading, code, wrapped, references)))
    for n, (_, end, level, heading) in enumerate(headings):
        stop = headings[n + 1][0] if n + 1 < len(headings) else len(lines)
        heading, explicit = split_explicit_id(heading, style)
        sections.append(Section(level, heading, anchors(heading, explicit), _lines(lines, end, stop, code, wrapped, references)))
    return Document(title=title, sections=sections, url=url, warnings=warnings)


_COMMENT = re.compile(r"<!--.*?-->")


def _description(meta: dict, lines: list[str], body_start: int) -> list[Line]:
    """Front matter's `description:`, the page's summary in its author's words, as the page's first line: it
    is what a page is about, so it is searched and can be quoted (cited at its line in the front matter)."""
    text = meta.get("description")
    if not isinstance(text, str) or not text.strip():
        return []
    return [Line(_key_line(lines, body_start, "description"), " ".join(text.split()))]


def _keywords(meta: dict, lines: list[str], body_start: int, title: str) -> list[Line]:
    """Front matter's `keywords:` (a list, or one string of terms parted by commas), as Docusaurus reads them: the
    page's index terms (kb.documents.index_terms), searched and never quoted."""
    terms = meta.get("keywords")
    if isinstance(terms, str):
        terms = terms.split(",")
    if not isinstance(terms, list):
        return []
    said = (str(t) for t in terms if isinstance(t, (str, int, float)))
    return index_terms(_key_line(lines, body_start, "keywords"), said, title)


def _key_line(lines: list[str], body_start: int, key: str) -> int:
    """The front matter line a key is written on (1 if it cannot be told), which a line made of it is cited at."""
    return next((i + 1 for i in range(body_start) if lines[i].startswith(f"{key}:")), 1)


MAX_FRONT_MATTER = 64 * 1024


def _front_matter(text: str):
    """YAML front matter without aliases: a few bytes of nested aliases ("billion laughs") expand to gigabytes."""
    if len(text) > MAX_FRONT_MATTER:
        raise yaml.YAMLError(f"front matter is over {MAX_FRONT_MATTER // 1024} KB")
    if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=yaml.SafeLoader)):
        raise yaml.YAMLError("front matter uses YAML aliases (*name), which are not allowed")
    return yaml.safe_load(text)


def _lines(
    lines: list[str], start: int, stop: int, code: set[int], wrapped: dict[int, int], references: dict[str, str]
) -> list[Line]:
    out, i, paragraph_end = [], start, 0
    while i < stop:
        if i in code:
            out.append(Line(i + 1, lines[i].strip()))
            i += 1
            continue
        paragraph_end = wrapped.get(i, max(paragraph_end, i + 1))
        # a tag on a line of its own opens or closes a tab or a hint, even with no blank line around it
        end = min(next((j for j in range(i + 1, paragraph_end) if _LONE_TAG.match(lines[j])), paragraph_end), stop)
        first, *rest = (_text_of(_COMMENT.sub("", line)).strip() for line in lines[i:end])
        rest = [QUOTE_MARK.sub("", line) for line in rest]  # a quoted paragraph's next lines: "> ..." again
        out.append(Line(i + 1, _as_shown(" ".join(t for t in [first, *rest] if t), references), end if end > i + 1 else 0))
        i = end
    return [line for line in out if line.text]


# A docs generator's syntax around the text, not text: MDX's import and export lines, Liquid's and Hugo's tags
# ("{% hint style="info" %}", "{{< note >}}") and an admonition's fences (Docusaurus' ":::tip Good to know", MkDocs'
# '!!! note "Title"'), whose title, when it has one, is kept to introduce the lines it fences.
_ESM = re.compile(
    r"""^\s*(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?['"][^'"]+['"]\s*;?|export\s+(?:default|const|let|function|\{).*)\s*$"""
)
_SNIPPET = re.compile(r"""^\s*-+8<-+\s+["'].*["']\s*$""")  # MkDocs' '--8<-- "file.md"': another file's text, not read
_TEMPLATE_TAG = re.compile(r"\{%-?[^{}]*?-?%\}|\{\{[<%][^{}]*?[>%]\}\}")  # no brace inside: linear on any line


def _attribute(names: str) -> re.Pattern:
    """A tag's attribute among `names`, its quoted value in group 1 or 2 (JSX may brace it: label={"Annual"})."""
    return re.compile(rf"""\b(?:{names})\s*=\s*\{{?\s*(?:"([^"]*)"|'([^']*)')""")


_COMPONENT_OPENER = re.compile(r"<[A-Z][\w.]*\b[^<>]*>")  # JSX: a component's name is capitalised
_COMPONENT_TAG = re.compile(r"^\s*</?[A-Z]")
_TAG_END = r"-?%\}|[>%]\}\}"
_LONE_TAG = re.compile(rf"^\s*(?:\{{%-?|\{{\{{[<%])\s*(\w+)((?:(?!{_TAG_END}).)*)(?:{_TAG_END})\s*$")  # a line of one tag
# What a site shows of a component or a tag: the label of a tab (Docusaurus' <TabItem label="Annual">, GitBook's
# {% tab title="Windows" %}, Hugo's {{< tab name="Linux" >}} or {{< tab "Linux" >}}) or the title of an accordion, a
# step, a card or a callout (Mintlify's <Accordion title="...">, Hugo's {{< alert title="Note" >}}).
_LABEL = _attribute("label|title|header|name")
# Docusaurus shows a TabItem without a label by its value
_TAB_ITEM, _VALUE = re.compile(r"<TabItem\b"), _attribute("value")
_POSITIONAL_LABEL = re.compile(r'^\s*"([^"]+)"')  # {{< tab "Linux" >}}, {{% expand "Details" %}}
_WIDGETS = re.compile(r"tab|expand|details|collapse|accordion", re.I)  # whose first argument is a label, not a file
# MkDocs (Python-Markdown with pymdownx): an admonition ("!!! note", "??? tip" when collapsible) or a content tab
# ('=== "Windows"'), whose text is the lines below it indented four spaces more; its title, if any, in a group.
_MKDOCS_OPENER = r'(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+"(.*)")?|===\+?\s+"(.*)"'
_ADMONITION = re.compile(rf"""^\s*(?::::+\s*[\w-]*\s*(.*?)|{_MKDOCS_OPENER})\s*$""")
# GitHub's alert ("> [!NOTE]") shows its kind as its title, Obsidian's callout ("> [!tip]- Save money") its own title
_ALERT = re.compile(r"^\s*((?:>\s?)+)\[!(\w+)\][-+]?(.*)$")
_BLOCK_OPENER = re.compile(rf"""^(\s*)(?:{_MKDOCS_OPENER})\s*$""")


def _blocks_dedented(text: str) -> str:
    """The text of MkDocs' admonitions and content tabs moved back to their opener's indentation, line for line, so
    that it is read as paragraphs and lists, not as a code block; blocks inside blocks too."""
    lines = text.split("\n")
    if not any(_BLOCK_OPENER.match(line) for line in lines):
        return text
    out: list[str] = []
    body: list[int] = []  # the indentation of each block the current line is inside, innermost last
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        while body and line.strip() and indent < body[-1]:
            body.pop()
        depth = 4 * len(body)
        out.append(line[depth:] if line.startswith(" " * depth) else line.lstrip(" "))
        opener = _BLOCK_OPENER.match(line)
        if opener:
            body.append(len(opener.group(1)) + 4)
    return "\n".join(out)


def _text_of(line: str) -> str:
    """A Markdown line's text without the generator's syntax (_ESM, _SNIPPET, _LONE_TAG, _TEMPLATE_TAG, _ADMONITION)."""
    if _ESM.match(line) or _SNIPPET.match(line):
        return ""
    tag = _LONE_TAG.match(line)
    if tag:
        label = _LABEL.search(tag[2]) or (_WIDGETS.search(tag[1]) and _POSITIONAL_LABEL.match(tag[2]))
        return introducing(_quoted(label))
    if _TEMPLATE_TAG.search(line):
        line = " ".join(_TEMPLATE_TAG.sub(" ", line).split())
    alert = _ALERT.match(line)
    if alert:
        return alert[1] + introducing(alert[3].strip() or alert[2].capitalize())
    admonition = _ADMONITION.match(line)
    if admonition:
        return introducing((admonition.group(1) or admonition.group(2) or admonition.group(3) or "").strip("[] "))
    return line


# What a page shows of the HTML and the extensions written inside a paragraph (CommonMark passes inline HTML through;
# GitHub, Docusaurus and MkDocs read footnotes and alerts), as Markdown where Markdown can say it and the renderer to
# Slack follows (kb's lines are quoted as written): <a href> a link, <code> a code span, <b>/<strong> and <i>/<em>
# emphasis, <br> a space, a power after a number as one ("2<sup>31</sup>": "2^31", kb.documents.POWER); another HTML
# element (<kbd>, <abbr>, <span>) by its text, an image or an empty anchor not at all. A name HTML does not have
# ("s3.<region>.amazonaws.com") is a placeholder the author meant to show, and stays as written.
_HTML_INLINE = frozenset(
    "a abbr b bdi bdo big br center cite code data del dfn div em font i img ins kbd mark p q s samp small span strike "
    "strong sub sup time tt u var wbr".split()
)
_INLINE_TAG = re.compile(r"(?<!\\)<(/?)([a-z][a-z0-9]*)((?:\s[^<>]*)?)/?>")  # lower case: a capitalised name is JSX
_EMPTY_ELEMENT = re.compile(r"(?<!\\)<([a-z][a-z0-9]*)(?:\s[^<>]*)?>\s*</\1\s*>")  # <a id="top"></a>, an icon's <span>
_AS_MARKDOWN = {  # (what an opening tag reads as, what its closing tag reads as)
    **dict.fromkeys(["b", "strong"], ("**", "**")),
    **dict.fromkeys(["i", "em"], ("*", "*")),
    "code": ("`", "`"),
    "br": (" ", " "),
}
_HREF = _attribute("href")
_TICKS = re.compile(r"`+")
# An image: the page shows a picture, which its alt text says in words ("Click the ![gear](gear.png) icon"); a line of
# images alone (a screenshot, a row of badges) says nothing to quote.
_IMAGE = re.compile(r"!\[([^][]*)\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
_EMPTY_LINK = re.compile(r"\[\s*\]\([^()\s]*\)")
_NO_TARGET = re.compile(r"\[([^][\n]+)\]\(\s*\)")  # a link whose target was a generator's tag, "{{< ref "x.md" >}}"
# A JSX component inside a paragraph (Mintlify's "<Note>Backups run nightly.</Note>", "<Card title="Quickstart">...")
# shows its text, introduced by its label or title as a block component's is (_labelled).
# A name with neither attributes nor a closing tag on the line is a type's parameter, as written: "Box<T>", "Array<String>".
_JSX_TAG = re.compile(r"(?<!\\)<(/?)([A-Z][\w.]*)((?:\s[^<>]*)?)/?>")
_JSX_CLOSING = re.compile(r"</([A-Z][\w.]*)\s*>")
# An attribute list (MkDocs' "[Get started](start.md){ .md-button }", kramdown's "{: .warning }"): classes, ids and
# attributes for the page's HTML, not text.
_ATTRIBUTE = r"""(?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s{}"']+))"""
_ATTRIBUTE_LIST = re.compile(rf"\{{:?\s*{_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*\s*\}}")
_REFERENCE_LINK = re.compile(r"\[([^][\n]+)\]\[([^][\n]*)\]")  # [text][label], or [label][]
_FOOTNOTE_MARK = re.compile(r"\[\^[^][\s]+\](?!:)")  # no "[" inside: linear on any line
_FOOTNOTE = re.compile(r"^\[\^[^][\s]+\]:\s*")  # its definition, shown at the foot of the page by its number


def _as_shown(text: str, references: dict[str, str]) -> str:
    """A Markdown line as its page shows it, its code spans as written; references: the page's link reference
    definitions, by normalised label."""
    if not any(c in text for c in "<&[{"):
        return text
    text = _without_mdx_comments(text)
    if references and "][" in text:  # "[our pricing][pricing]" is a link to where "[pricing]: ..." says
        text = _outside_code(text, lambda part: _REFERENCE_LINK.sub(partial(_referenced, references), part))
    if "![" in text and not _EMPTY_LINK.sub("", _IMAGE.sub("", text)).strip():
        return ""
    return _outside_code(_FOOTNOTE.sub("", text), _InlineReader()).strip()


def _without_mdx_comments(text: str) -> str:
    """The line without MDX's comments ("{/* TODO */}"): one pass, so linear however many open and never close."""
    out, done = [], 0
    while (start := text.find("{/*", done)) >= 0 and (end := text.find("*/}", start + 3)) >= 0:
        out.append(text[done:start])
        done = end + 3
    return "".join([*out, text[done:]]).strip() if out else text


def _referenced(references: dict[str, str], link: re.Match) -> str:
    """A full or collapsed reference link as an inline one, when the page defines its label."""
    href = references.get(normalizeReference(link[2] or link[1]))
    return f"[{link[1]}]({href})" if href is not None else link[0]


def _outside_code(text: str, read: Callable[[str], str]) -> str:
    """read() applied to the text around the code spans (a backtick run closed by the next run of the same length,
    as CommonMark pairs them; one that none closes is a backtick)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for n in range(len(runs) - 1, -1, -1):
        length = runs[n][1] - runs[n][0]
        following[n], last[length] = last.get(length), n
    out, done, n = [], 0, 0
    while n < len(runs):
        close = following[n]
        if close is None:
            n += 1
            continue
        out += [read(text[done : runs[n][0]]), text[runs[n][0] : runs[close][1]]]
        done, n = runs[close][1], close + 1
    return "".join([*out, read(text[done:])])


class _InlineReader:
    """The text between one line's code spans, read in order: a link opened before a code span closes after it."""

    def __init__(self) -> None:
        self.links: list[str] = []  # the targets of the <a> tags open, "" for one without an href

    def __call__(self, text: str) -> str:
        shown = text
        if "<" in text:
            shown = _INLINE_TAG.sub(self._tag, POWER.sub(r"^\1", _EMPTY_ELEMENT.sub("", text)))
            closed = set(_JSX_CLOSING.findall(shown))
            shown = _JSX_TAG.sub(partial(_component, closed), shown)
        if "{" in shown:
            shown = _ATTRIBUTE_LIST.sub("", shown)
        shown = html.unescape(_FOOTNOTE_MARK.sub("", _NO_TARGET.sub(r"\1", _IMAGE.sub(r"\1", shown))))
        return text if shown == text else re.sub(r"\s+", " ", shown)

    def _tag(self, found: re.Match) -> str:
        closing, name = found[1], found[2]
        if name not in _HTML_INLINE:
            return found[0]
        if name != "a":
            return _AS_MARKDOWN.get(name, ("", ""))[bool(closing)]
        if not closing:
            self.links.append(_quoted(_HREF.search(found[3])))
            return "[" if self.links[-1] else ""
        target = self.links.pop() if self.links else ""
        return f"]({target})" if target else ""


def _component(closed: set[str], tag: re.Match) -> str:
    """A JSX component's tag inside a paragraph as what it shows: its label or title, introducing its text.
    closed: the names the line has a closing tag for."""
    closing, name, attributes = tag[1], tag[2], tag[3]
    if name not in closed and "=" not in attributes:
        return tag[0]
    label = not closing and _LABEL.search(attributes)
    return f" {introducing(_quoted(label))} " if label else " "


_PART = "\ue000"  # a private-use character: where a part of an HTML block begins, through the HTML parser


def _html_block(block: list[str]) -> list[str]:
    """An HTML block's words without its tags and comments, on the first line of each part: a new part at each line
    that opens or closes a JSX component, so each tab's text is a line of its own, introduced by its label, not run on
    into the next tab's. One parse for the whole block."""
    starts = [0] + [n for n in range(1, len(block)) if _COMPONENT_TAG.match(block[n])]
    later = set(starts[1:])
    marked = "\n".join(_PART + line if n in later else line for n, line in enumerate(block))
    parts = BeautifulSoup(_COMPONENT_OPENER.sub(_labelled, marked), "html.parser").get_text(" ").split(_PART)
    if len(parts) != len(starts):  # a mark fell inside a comment or a tag: the block as one part
        starts, parts = [0], ["".join(parts)]
    out = [""] * len(block)
    for n, words in zip(starts, parts):
        out[n] = " ".join(words.split())
    return out


def _labelled(component: re.Match) -> str:
    """A JSX component's opening tag followed by the label or title the site shows with it, if it has one."""
    label = _LABEL.search(component[0]) or (_TAB_ITEM.match(component[0]) and _VALUE.search(component[0]))
    return f"{component[0]} {introducing(_quoted(label))} " if label else component[0]


def _quoted(found: re.Match | None) -> str:
    """The quoted value an attribute or argument pattern found, "" if none."""
    return next((group for group in found.groups() if group), "") if found else ""
