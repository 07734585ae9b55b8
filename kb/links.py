"""From a doc's path and heading anchor to a link a reader can click."""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import quote

_KEEP_SUFFIX = {".html", ".htm"}
_INDEX_STEMS = {"index", "readme", "_index"}


def page_url(base_url: str | None, path: str, override: str | None = None) -> str | None:
    """The page's URL: front matter wins, else DOCS_BASE_URL + the path as a site would serve it."""
    if override:
        return override
    if not base_url:
        return None
    p = PurePosixPath(path)
    if p.suffix.lower() not in _KEEP_SUFFIX:
        p = p.with_suffix("")
        if p.name.lower() in _INDEX_STEMS:
            p = p.parent
    rel = "" if str(p) == "." else quote(str(p))
    return f"{base_url.rstrip('/')}/{rel}"


def chunk_url(page: str | None, anchor: str) -> str | None:
    if not page:
        return None
    if not anchor or "#" in page:
        return page
    return f"{page}#{quote(anchor)}"
