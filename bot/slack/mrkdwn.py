"""Markdown (as Claude writes it and as docs quote it) into Slack's mrkdwn, which spells most things differently.

**bold** -> *bold*, *italic* / _italic_ -> _italic_, ~~struck~~ -> ~struck~, [text](https://...) -> <url|text>
and [text](../other-page.md) -> text, "NODE\\_ENV" -> "NODE_ENV" (an escaped character makes no markup),
# Heading -> *Heading*, "- item" -> "• item", a table -> an aligned monospace block (its header once; the
renderer shows the first table of a message as Slack's own table block instead, see `pieces`), a leading
"> " stays a quote. Code spans and fences are kept as written. Everything else is text: & < > are escaped, so
nothing from a doc or the model can ping anyone or smuggle a link.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"\[([^\]\n]+)\]\(\s*(https?://[^\s)]+)\s*\)")
# A link to another page of the docs folder ("[npm install](../commands/npm-install.md)") goes nowhere in Slack: its
# text is what the reader is shown. A target with a scheme that is not http(s) stays as written, no link.
_RELATIVE_LINK = re.compile(r"\[([^\]\n]+)\]\(\s*(?![a-zA-Z][\w+.-]*:)[^\s()]*(?:\s+\"[^\"\n]*\")?\s*\)")
# Markdown's backslash before punctuation ("NODE\_ENV", "\<div>") shows the punctuation alone; Slack would show both.
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_QUOTE = re.compile(r"^(\s*)>\s?")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*(?:\[\d+\]\s*)*$")  # a quoted row may end in its citation markers
_MARKERS = re.compile(r"(?:\s*\[\d+\])+\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: str, limit: int) -> str:
    """The text on one line, cut at a word (with "…") when it is longer than limit: a title, a button."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _label(text: str) -> str:
    return escape(" ".join(_ESCAPED.sub(r"\1", text).replace("|", "/").split()))


def _inline(text: str) -> str:
    """One line's inline markup; code spans are set aside first and come back untouched (but escaped)."""
    kept: list[str] = []

    def keep(piece: str) -> str:
        kept.append(piece)
        return f"\x00{len(kept) - 1}\x00"

    text = _CODE.sub(lambda m: keep("`" + escape(m.group(2)) + "`"), text)
    text = _LINK.sub(lambda m: keep(f"<{escape(m.group(2))}|{_label(m.group(1))}>"), text)
    text = _RELATIVE_LINK.sub(r"\1", text)
    text = escape(_ESCAPED.sub(lambda m: keep(escape(m.group(1))), text))  # set aside: an escaped "*" makes no markup
    text = _BOLD.sub(lambda m: keep("*" + m.group(2) + "*"), text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)


def _cells(row: str) -> list[str]:
    """A row's cells; citation markers after the row ("| 409 | Conflict | [1]") go with its last cell."""
    markers = _MARKERS.search(row) if not row.rstrip().endswith("|") else None
    body = row[: markers.start()] if markers else row
    cells = [c.strip() for c in body.strip().strip("|").split("|")]
    if markers:
        cells[-1] = f"{cells[-1]} {' '.join(markers.group(0).split())}".strip()
    return cells


def table_cells(rows: list[str]) -> list[list[str]]:
    """A Markdown table's rows as cells (header first, the rule line dropped), padded to one width."""
    cells = [_cells(r) for r in rows if not _TABLE_RULE.match(r)]
    width = max(len(r) for r in cells)
    return [r + [""] * (width - len(r)) for r in cells]


def _table_end(lines: list[str], i: int) -> int | None:
    """Where the table starting at line i ends (None: no table starts there)."""
    if not (_TABLE_ROW.match(lines[i]) and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1])):
        return None
    j = i
    while j < len(lines) and _TABLE_ROW.match(lines[j]):
        j += 1
    return j


def pieces(markdown: str) -> list[str | list[list[str]]]:
    """The text between tables (as Markdown) and each table (as cells), in order; tables inside code fences
    are code."""
    out: list[str | list[list[str]]] = []
    lines = markdown.split("\n")
    text: list[str] = []
    i, fenced = 0, False
    while i < len(lines):
        if _FENCE.match(lines[i]):
            fenced = not fenced
        end = None if fenced else _table_end(lines, i)
        if end is None:
            text.append(lines[i])
            i += 1
            continue
        if any(t.strip() for t in text):
            out.append("\n".join(text))
        text = []
        out.append(table_cells(lines[i:end]))
        i = end
    if any(t.strip() for t in text):
        out.append("\n".join(text))
    return out


def plain(text: str) -> str:
    """A cell's text without Markdown markup (code ticks, emphasis, link syntax), escaped."""
    text = _RELATIVE_LINK.sub(r"\1", _LINK.sub(lambda m: m.group(1), text))
    text = _CODE.sub(lambda m: m.group(2), text)
    text = _BOLD.sub(lambda m: m.group(2), text)
    text = _STRIKE.sub(r"\1", text)
    return escape(_ESCAPED.sub(r"\1", text))


def aligned(cells: list[list[str]]) -> str:
    """A table's cells as an aligned monospace block: its header once, no rule line."""
    return "\n".join(_aligned(cells))


def _aligned(cells: list[list[str]]) -> list[str]:
    width = len(cells[0])
    sizes = [max(len(r[i]) for r in cells) for i in range(width)]
    lines = ["  ".join(c.ljust(sizes[i]) for i, c in enumerate(r)).rstrip() for r in cells]
    return ["```", *(escape(line) for line in lines), "```"]


def to_mrkdwn(markdown: str) -> str:
    out: list[str] = []
    lines = markdown.split("\n")
    i, fenced = 0, False
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fenced = not fenced
            out.append("```")
        elif fenced:
            out.append(escape(line))
        elif (end := _table_end(lines, i)) is not None:
            out += _aligned(table_cells(lines[i:end]))
            i = end
            continue
        elif heading := _HEADING.match(line):
            out.append(f"*{_inline(heading.group(1))}*")
        else:
            quote = _QUOTE.match(line)
            prefix = ""
            if quote:  # a quote marker stays raw: '>' alone can form no control sequence
                prefix, line = quote.group(1) + "> ", line[quote.end() :]
            bullet = _BULLET.match(line)
            if bullet:
                prefix, line = prefix + bullet.group(1) + "• ", line[bullet.end() :]
            out.append(prefix + _inline(line))
        i += 1
    if fenced:
        out.append("```")
    return "\n".join(out)
