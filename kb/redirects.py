"""HTML pages that only send the browser to another page: left out of the index, as a rendered twin is.

A docs generator writes one wherever a page moved or a name should still lead somewhere: Texinfo's split HTML
(every GNU manual) writes one for every node and anchor that is not a file of its own, 89 of diffutils' 112 pages
("The node you are looking for is at Hunks."); Jekyll's redirect_from, MkDocs' redirects plugin and
sphinx-reredirects write the same `<meta http-equiv="refresh" content="0; url=...">`. Indexed, each was a page
of its own whose only line answered nothing, and the local answerer quoted it. Its target is a page of the folder,
read there, or is elsewhere and not the docs'. A refresh inside `<noscript>` only fires without JavaScript
(LibreOffice's help has one on every page, to its "enable JavaScript" page) and a refresh to the page itself
reloads it: neither sends a reader elsewhere.
"""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from kb.loaders import LOADERS
from kb.scan import DocProblem, SourceFile

HTML = {suffix for suffix, load in LOADERS.items() if load is LOADERS[".html"]}
HEAD_BYTES = 65_536  # a <meta> is in the page's head; a page's body is not read for one
_URL_PREFIX = re.compile(r"^url\s*=\s*", re.I)


class _Read(Exception):
    """What _Refresh looks for is found, or cannot be further on: the rest of the page is not parsed."""


class _Refresh(HTMLParser):
    """The URL of the page's first refresh that is not inside <noscript>, read up to the body's first tag."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.url: str | None = None
        self.noscript = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "noscript":
            self.noscript += 1
        elif tag == "body":
            raise _Read
        elif tag == "meta" and not self.noscript:
            values = {k.lower(): v or "" for k, v in attrs}
            if values.get("http-equiv", "").strip().lower() == "refresh":
                self.url = refresh_url(values.get("content", ""))
                if self.url is not None:
                    raise _Read

    def handle_endtag(self, tag: str) -> None:
        if tag == "noscript" and self.noscript:
            self.noscript -= 1


def refresh_url(content: str) -> str | None:
    """The URL of a refresh's content ("0; url=Comparison.html#Hunks", "0;URL='new/'"), None for a timer alone ("30")."""
    parts = re.split(r"[;,]", content, maxsplit=1)  # the delay, then the URL
    url = _URL_PREFIX.sub("", parts[-1].strip()).strip("'\" \t") if len(parts) == 2 else ""
    return url or None


def redirect_target(source: SourceFile) -> str | None:
    """Where an HTML page sends the browser at once, or None for a page that is read where it is."""
    if PurePosixPath(source.path).suffix.lower() not in HTML:
        return None
    head = source.content[:HEAD_BYTES]
    if b"refresh" not in head.lower():  # most pages: not parsed at all, on every sync
        return None
    parser = _Refresh()
    try:
        parser.feed(head.decode("utf-8", errors="replace"))
    except _Read:
        pass
    except Exception:  # a page html.parser cannot read is the loader's to report
        return None
    if not parser.url:
        return None
    target = urlsplit(parser.url)
    if not target.scheme and not target.netloc:
        path = unquote(target.path)
        if not path or posixpath.normpath(posixpath.join(posixpath.dirname(source.path), path)) == posixpath.normpath(
            source.path
        ):
            return None  # itself: a page that reloads
    return parser.url


def drop_redirects(files: list[SourceFile]) -> tuple[list[SourceFile], list[DocProblem]]:
    """The files without the pages that only redirect, and a problem naming each one and where it leads."""
    skipped: list[DocProblem] = []
    kept: list[SourceFile] = []
    for f in files:
        target = redirect_target(f)
        if target is None:
            kept.append(f)
        else:
            shown = target if len(target) <= 120 else target[:117] + "..."
            skipped.append(DocProblem(f.path, f"a redirect to {shown}: only the page it leads to is read", "skipped"))
    return kept, skipped
