"""From a doc's path and heading anchor to a link a reader can click."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from kb.anchors import site_path

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


def page_url(base_url: str | None, path: str, override: str | None = None, style: str | None = None) -> str | None:
    """The page's URL: front matter wins (a safe link, or a path under DOCS_BASE_URL), else DOCS_BASE_URL + the
    path as the site's generator serves it (kb.anchors)."""
    if override:
        if override.startswith("/") and not override.startswith("//"):
            return safe_url(f"{base_url.rstrip('/')}{override}") if base_url else None
        return safe_url(override)
    if not base_url:
        return None
    return f"{base_url.rstrip('/')}/{site_path(path, style)}"


def chunk_url(page: str | None, anchor: str) -> str | None:
    if not page:
        return None
    if not anchor or "#" in page:
        return page
    return f"{page}#{quote(anchor)}"


# A file at a commit, with its lines, in a forge's web view. GitHub's form serves Gitea and Forgejo too.
FORGE_FILES = {
    "github": "/blob/{commit}/{path}#L{start}-L{end}",
    "gitlab": "/-/blob/{commit}/{path}#L{start}-{end}",
    "bitbucket": "/src/{commit}/{path}#lines-{start}:{end}",
}
_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?!//)(?P<repo>[^\s]+)$")  # git@github.com:acme/handbook.git


def forge_template(git_url: str | None, subdir: str = "") -> str | None:
    """A DOCS_SOURCE_URL template for a git remote: its web view of a file at the synced commit, with the cited
    lines. https, ssh:// and scp-like (git@host:owner/repo) remotes; credentials are never carried over. The forge
    is told by the host's name (gitlab..., bitbucket...), else GitHub's form. None: no web view (file://, a path)."""
    if not git_url:
        return None
    git_url = git_url.strip()
    scp = _SCP.match(git_url) if "://" not in git_url else None
    if scp:
        host, repo = scp["host"], scp["repo"]
    else:
        parts = urlsplit(git_url)
        if parts.scheme not in ("https", "http", "ssh", "git") or not parts.hostname:
            return None
        host, repo = parts.hostname, parts.path
    repo = repo.strip("/").removesuffix(".git")
    if not repo:
        return None
    forge = next((name for name in ("gitlab", "bitbucket") if name in host.lower()), "github")
    prefix = "/".join(quote(part) for part in subdir.strip("/").split("/") if part)
    file = FORGE_FILES[forge].replace("{path}", f"{prefix}/{{path}}" if prefix else "{path}")
    return f"https://{host}/{repo}{file}"


def source_url(
    template: str | None, path: str, commit: str | None, lines: tuple[int, int] | None, anchor: str = ""
) -> str | None:
    """DOCS_SOURCE_URL filled in: {path}, {commit}, {start}, {end}, {anchor}. A template that needs the commit gets
    no link without one; a page without lines (a closest page) drops a fragment that names them."""
    if not template or ("{commit}" in template and not commit):
        return None
    if lines is None and re.search(r"#.*\{(start|end)\}", template):
        template = template.split("#", 1)[0]
    start, end = lines or (None, None)
    url = (
        template.replace("{path}", quote(path))
        .replace("{commit}", quote(commit or ""))
        .replace("{start}", str(start))
        .replace("{end}", str(end))
        .replace("{anchor}", quote(anchor))
    )
    return safe_url(url)


def _no_commit() -> str | None:
    return None


def review_copy_url(review_url: str | None, path: str, lines: tuple[int, int] | None) -> str | None:
    """The review page's read-only copy of a page as indexed (its /docs/<path>), the passage's lines marked: a
    link that opens something for docs with no site and no web view."""
    if not review_url:
        return None
    url = f"{review_url.rstrip('/')}/docs/{quote(path)}"
    if lines:
        url += f"?lines={lines[0]}-{lines[1]}#L{lines[0]}"
    return safe_url(url)


@dataclass(frozen=True)
class Links:
    """Where a reader reads a page (no lines) or a passage of it: the published site (front matter's url, else
    DOCS_BASE_URL), else the source's web view (a DOCS_SOURCE_URL template or a git forge's) at `commit()`, the
    commit the index being read was synced from, with the passage's lines; else the review page's copy of the page
    (REVIEW_URL)."""

    base_url: str | None = None
    source_url: str | None = None
    commit: Callable[[], str | None] = _no_commit
    review_url: str | None = None
    style: str | None = None  # DOCS_ANCHOR_STYLE: how the site's generator lays out its pages

    def __call__(self, path: str, url: str | None, lines=None, anchor: str = "") -> str | None:
        page = page_url(self.base_url, path, url, self.style)
        if page:
            return chunk_url(page, anchor) if lines is not None else page
        span = (lines[0][0], lines[-1][0]) if lines else None
        if self.source_url:
            return source_url(self.source_url, path, self.commit(), span, anchor)
        return review_copy_url(self.review_url, path, span)
