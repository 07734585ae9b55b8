"""reStructuredText through docutils' own parser.

Directives that read files or pass raw HTML through are disabled: a docs folder
is data, and parsing it must not reach outside it.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from docutils import nodes
from docutils.core import publish_doctree
from docutils.utils import SystemMessage

from kb.anchors import Anchors
from kb.documents import Document, Line, LoadError, Section, title_from_filename

_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "input_encoding": "unicode",
    "warning_stream": False,
}

_TEXT_NODES = (nodes.paragraph, nodes.literal_block, nodes.term, nodes.rubric, nodes.line)


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

    for node in tree.findall(lambda n: isinstance(n, (nodes.section, *_TEXT_NODES))):
        if isinstance(node, nodes.section):
            title = node.next_node(nodes.title)
            heading = title.astext().strip() if title else ""
            level = _depth(node) + (1 if doc_title else 0)
            sec = Section(level, heading, anchors(heading, (node.get("ids") or [None])[0]))
            sections.append(sec)
            by_node[id(node)] = sec
            continue
        if isinstance(node.parent, nodes.title) or node.line is None:
            continue
        owner = _owning_section(node, by_node)
        pieces = node.astext().splitlines()
        if isinstance(node, nodes.paragraph) and len(pieces) > 1:  # wrapped over several lines, it reads as one
            owner.lines.append(Line(node.line, " ".join(" ".join(pieces).split()), node.line + len(pieces) - 1))
            continue
        for offset, piece in enumerate(pieces):
            if piece.strip():
                owner.lines.append(Line(node.line + offset, piece.strip()))

    for sec in sections:
        sec.lines.sort(key=lambda line: line.number)
    return Document(title=doc_title or title_from_filename(stem), sections=sections)


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
