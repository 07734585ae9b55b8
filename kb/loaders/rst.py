"""reStructuredText through docutils' own parser.

Directives that read files or pass raw HTML through are disabled: a docs folder
is data, and parsing it must not reach outside it.

Sphinx's own directives and roles, and its extensions', are unknown to docutils, which drops what they hold (a
"versionadded" note, a tab, a glossary) and leaves a role as written (":ref:`Installing <install>`"). A page is
read as Sphinx shows it instead: an unknown directive's text is read as the page's text, introduced by its argument
(a tab's label; "New in version 2.1" for Sphinx's version notes), and a role by its text ("Installing").
Navigation and directives that name files ("toctree", "literalinclude", "index", "auto...") show nothing here.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import PurePosixPath

from docutils import nodes
from docutils.core import publish_doctree
from docutils.utils import SystemMessage

from kb.anchors import Anchors
from kb.documents import Document, Line, LoadError, Section, introducing, title_from_filename

_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "input_encoding": "unicode",
    "warning_stream": False,
}

_TEXT_NODES = (nodes.paragraph, nodes.literal_block, nodes.term, nodes.rubric, nodes.line)
_DIRECTIVE = re.compile(r"\.\.\s+([\w:.+-]+)::[ \t]*(.*)")
_ROLE = re.compile(r":[\w:.+-]+:`(.*?)`", re.S)
_ROLE_TARGET = re.compile(r"(.*?)\s*<[^<>]*>", re.S)  # "Installing <install>": shown as "Installing"
_OPTION = re.compile(r":[\w-]+:(?:\s.*)?$")
# What Sphinx writes before a version note's text, which it shows on one line with it
_VERSION_NOTES = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_LABELS = {**_VERSION_NOTES, "seealso": "See also"}
# Directives that show no text of their own here: navigation, indexes, files to read, settings
_SHOWN_NOTHING = {
    "toctree", "index", "literalinclude", "include", "highlight", "code-include", "currentmodule", "module",
    "sectionauthor", "moduleauthor", "codeauthor", "tabularcolumns", "todolist", "graphviz", "digraph", "graph",
    "mermaid", "plantuml", "uml", "inheritance-diagram", "todo",
}  # fmt: skip
_CONDITIONS = {"only", "ifconfig"}  # their argument is a build condition, not text
_MAX_NESTING = 8


def load_rst(text: str, path: str, style: str | None = None) -> Document:
    """path: the file's, relative to the docs root (its name is the title of last resort); style: DOCS_ANCHOR_STYLE."""
    stem = PurePosixPath(path).stem
    try:
        tree = publish_doctree(text, settings_overrides=_SETTINGS)
    except (SystemMessage, Exception) as e:  # docutils raises many types on malformed input
        raise LoadError(f"reStructuredText did not parse: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from e

    title_node = next(iter(tree.findall(nodes.title)), None)
    doc_title = ""
    if title_node is not None and title_node.parent is tree:
        doc_title = title_node.astext().strip()

    anchors = Anchors(style)
    top = Section(1 if doc_title else 0, doc_title, anchors(doc_title, (tree.get("ids") or [None])[0]) if doc_title else "")
    sections = [top]
    by_node: dict[int, Section] = {id(tree): top}

    for node in tree.findall(lambda n: isinstance(n, nodes.section) or _read(n)):
        if isinstance(node, nodes.section):
            title = node.next_node(nodes.title)
            heading = title.astext().strip() if title else ""
            level = _depth(node) + (1 if doc_title else 0)
            sec = Section(level, heading, anchors(heading, (node.get("ids") or [None])[0]))
            sections.append(sec)
            by_node[id(node)] = sec
            continue
        _owning_section(node, by_node).lines.extend(_lines_of(node))

    for sec in sections:
        sec.lines.sort(key=lambda line: line.number)
    return Document(title=doc_title or title_from_filename(stem), sections=sections)


def _read(node: nodes.Node) -> bool:
    """A node whose text is read: a text node, or docutils' message about a directive it does not know."""
    return isinstance(node, (nodes.system_message, *_TEXT_NODES))


def _lines_of(node: nodes.Element, depth: int = 0) -> list[Line]:
    """A node's lines at their source lines (depth: how many unknown directives it is read inside)."""
    if isinstance(node, nodes.system_message):
        return _unknown_directive(node, depth)
    if isinstance(node.parent, nodes.title) or node.line is None:
        return []
    pieces = _text(node).splitlines()
    if isinstance(node, nodes.paragraph) and len(pieces) > 1:  # wrapped over several lines, it reads as one
        return [Line(node.line, " ".join(" ".join(pieces).split()), node.line + len(pieces) - 1)]
    return [Line(node.line + offset, piece.strip()) for offset, piece in enumerate(pieces) if piece.strip()]


def _text(node: nodes.Element) -> str:
    """A node's text as Sphinx shows it: a role docutils does not know (Sphinx's ":ref:", ":func:") by its text."""
    if isinstance(node, nodes.literal_block) or next(node.findall(nodes.problematic), None) is None:
        return node.astext()
    copy = node.deepcopy()
    for bad in list(copy.findall(nodes.problematic)):
        if _ROLE.fullmatch(bad.astext()):
            bad.parent.replace(bad, nodes.Text(_roles_shown(bad.astext())))
    return copy.astext()


def _roles_shown(text: str) -> str:
    """Roles by the text they show: ":ref:`Installing <install>`" -> "Installing", ":func:`~client.connect`" ->
    "client.connect"."""

    def shown(role: re.Match) -> str:
        target = _ROLE_TARGET.fullmatch(role[1])
        return (target[1] if target and target[1] else role[1]).lstrip("~!")

    return _ROLE.sub(shown, text)


def _unknown_directive(message: nodes.system_message, depth: int) -> list[Line]:
    """The lines of a directive docutils does not know, read from its source: its argument introduces its text
    (a tab's "Linux", "New in version 2.1"), its options are left out, and its text is read as reStructuredText."""
    block = message.next_node(nodes.literal_block)
    unknown = message.children and message[0].astext().startswith("Unknown directive type")  # not one disabled here
    if depth > _MAX_NESTING or not unknown or block is None or message.get("line") is None:
        return []
    source = block.astext().split("\n")
    head = _DIRECTIVE.match(source[0])
    if head is None:
        return []
    name = head[1].rsplit(":", 1)[-1]  # a domain's directive ("py:function") by its name
    if name in _SHOWN_NOTHING or name.startswith("auto"):
        return []
    start = message["line"]
    body = textwrap.dedent("\n".join(source[1:])).split("\n")
    skip = 0
    while skip < len(body) and _OPTION.match(body[skip]):
        skip += 1
    shown = "" if name in _CONDITIONS else _roles_shown(head[2].strip())
    said = ""
    if name in _VERSION_NOTES:  # "2.1 The option." is the version and the note's text
        shown, _, said = shown.partition(" ")
    argument = " ".join(filter(None, [_LABELS.get(name, ""), shown]))
    read: list[tuple[nodes.Node, Line]] = []
    text = "\n".join(body[skip:])
    if text.strip():
        try:
            tree = publish_doctree(text, settings_overrides=_SETTINGS)
        except Exception:  # docutils raises many types on malformed input: the rest of the page still reads
            tree = None
        offset = start + skip  # the text's line 1 is the page's line after the directive's and its options
        for node in tree.findall(_read) if tree is not None else ():
            read += [(node, Line(n.number + offset, n.text, n.end + offset)) for n in _lines_of(node, depth + 1)]
    lines = [line for _, line in read]
    last = 0
    if name in _VERSION_NOTES and not said and read and isinstance(read[0][0], nodes.paragraph):
        said, last = lines[0].text, lines[0].end  # Sphinx shows the label and the note's first paragraph as one
        lines = lines[1:]
    if said:
        return [Line(start, f"{argument}: {said}", last), *lines]
    if not argument:
        return lines
    if lines:  # it introduces the text below
        return [Line(start, introducing(argument)), *lines]
    return [Line(start, f"{argument}." if name in _VERSION_NOTES and argument[-1] not in ".:?!" else argument)]


def _depth(section: nodes.section) -> int:
    depth, parent = 1, section.parent
    while parent is not None:
        if isinstance(parent, nodes.section):
            depth += 1
        parent = parent.parent
    return depth


def _owning_section(node: nodes.Node, by_node: dict[int, Section]) -> Section:
    parent = node.parent
    while parent is not None:
        if id(parent) in by_node:
            return by_node[id(parent)]
        parent = parent.parent
    raise LoadError("a text node lies outside the document")  # pragma: no cover - docutils guarantees a root
