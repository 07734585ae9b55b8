"""From a doc's path and heading anchor to a link a reader can click."""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import quote, urlsplit

_KEEP_SUFFIX = {".html", ".htm"}
_INDEX_STEMS = {"index", "readme", "_index"}


SAFE_SCHEMES = ("http", "https")


def safe_url(url: str | None) -> str | None:
    """An http(s) URL with the characters that would end a Slack link or an HTML attribute escaped; anything
    else (javascript:, data:, a bare path) is no link at all. A doc's front matter is data, not markup."""
    if not url:
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in SAFE_SCHEMES or not parts.netloc:
        return None
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def page_url(base_url: str | None, path: str, override: str | None = None) -> str | None:
    """The page's URL: front matter wins (when it is a safe link), else DOCS_BASE_URL + the path as a site
    would serve it."""
    if override:
        return safe_url(override)
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
