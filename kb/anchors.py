"""Where a site generator puts a page and its sections, so that a DOCS_BASE_URL link lands on the right heading.

DOCS_ANCHOR_STYLE names the generator. Each rule is the generator's own:
- github, docusaurus, hugo: github-slugger's slug (lower case; letters, marks, numbers, "_", "-" and spaces kept,
  each space a "-"), a repeated heading "foo-1", "foo-2" (https://github.com/Flet/github-slugger). Docusaurus and
  Hugo also take an explicit `{#id}` after a heading.
- mkdocs: Python-Markdown's toc `slugify` (accents folded to ASCII, other marks dropped, runs of spaces and "-" one
  "-") and its `unique` ("foo_1", "foo_2"), and `{#id}` (attr_list).
- sphinx: docutils' `make_id` (ASCII, runs of anything but a-z and 0-9 one "-", no leading digit), repeated
  "foo-1"; reStructuredText pages carry docutils' ids already (kb.loaders.rst).
Unset: GitHub's slugs and the path without its suffix (index and README pages at their folder), as before; a heading's
`{#id}` is taken as every generator but GitHub takes it (only GitHub shows the braces, and no one writes them for it).

Pages: github keeps the file's path (a forge renders the file); mkdocs and hugo serve a folder per page ("guide/",
use_directory_urls; Hugo in lower case); docusaurus drops number prefixes ("01-intro" -> "intro") and takes front
matter `slug:` and `id:`; hugo takes `slug:`; sphinx serves "page.html".
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePosixPath
from urllib.parse import quote

STYLES = ("github", "mkdocs", "docusaurus", "sphinx", "hugo")
_EXPLICIT_ID = re.compile(r"\s*\{#([A-Za-z0-9_\-:.]+)\}\s*$")  # "## Install {#setup}"
_TAKES_EXPLICIT_ID = (None, "mkdocs", "docusaurus", "hugo")  # unset too: only GitHub shows the braces
_INDEX_STEMS = {"index", "readme", "_index"}
_NUMBER_PREFIX = re.compile(r"^\d+[-_.]\s*")  # Docusaurus: "01-intro.md" is served as "intro"


def github_slug(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return re.sub(r"\s", "-", text)


def mkdocs_slug(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def sphinx_slug(text: str) -> str:
    from docutils.nodes import make_id  # docutils reads the reStructuredText pages already

    return make_id(text)


SLUGS = {"mkdocs": mkdocs_slug, "sphinx": sphinx_slug}


def split_explicit_id(heading: str, style: str | None) -> tuple[str, str | None]:
    """ "Install {#setup}" -> ("Install", "setup") where the generator reads such ids; else (heading, None)."""
    m = _EXPLICIT_ID.search(heading) if style in _TAKES_EXPLICIT_ID else None
    return (heading[: m.start()].rstrip(), m[1]) if m else (heading, None)


class Anchors:
    """Hands out a page's heading anchors as its generator does, repeated headings numbered its way."""

    def __init__(self, style: str | None = None) -> None:
        self.style = style
        self._slug = SLUGS.get(style or "", github_slug)
        self._taken: set[str] = set()
        self._counts: dict[str, int] = {}

    def __call__(self, heading: str, preferred: str | None = None) -> str:
        base = preferred or self._slug(heading)
        anchor = self._mkdocs_unique(base) if self.style == "mkdocs" else self._slugger_unique(base)
        self._taken.add(anchor)
        return anchor

    def _slugger_unique(self, base: str) -> str:
        """github-slugger: "foo", "foo-1", "foo-2"; a heading that is itself "foo-1" then becomes "foo-1-1"."""
        anchor = base
        while anchor in self._taken:
            self._counts[base] = self._counts.get(base, 0) + 1
            anchor = f"{base}-{self._counts[base]}"
        return anchor

    def _mkdocs_unique(self, base: str) -> str:
        """Python-Markdown's toc `unique`: "foo", "foo_1", "foo_2" (and an empty slug is "_1")."""
        anchor = base
        while anchor in self._taken or not anchor:
            m = re.match(r"^(.*)_([0-9]+)$", anchor)
            anchor = f"{m[1]}_{int(m[2]) + 1}" if m else f"{anchor}_1"
        return anchor


def site_path(path: str, style: str | None) -> str:
    """The page's path on the site, relative to DOCS_BASE_URL, URL-quoted."""
    p = PurePosixPath(path)
    if style == "github":
        return quote(str(p))
    keep_suffix = p.suffix.lower() in (".html", ".htm")
    if not keep_suffix:
        p = p.with_suffix("")
    if style == "sphinx":
        return quote(str(p) if keep_suffix else f"{p}.html")
    if not keep_suffix and p.name.lower() in _INDEX_STEMS:
        p = p.parent
    if style == "docusaurus":
        p = PurePosixPath(*[_NUMBER_PREFIX.sub("", part) or part for part in p.parts]) if p.parts else p
    rel = "" if str(p) == "." else str(p)
    if style == "hugo":
        rel = rel.lower()
    if style in ("mkdocs", "hugo") and rel:
        rel += "/"
    return quote(rel)


def front_matter_path(path: str, meta: dict, style: str | None) -> str | None:
    """A page's site path set by its front matter, as "/..." under DOCS_BASE_URL: Docusaurus's `slug:` (absolute,
    or relative to the page's folder) and `id:` (in place of the file name), Hugo's `slug:` (the last part)."""
    slug, doc_id = meta.get("slug"), meta.get("id")
    folder = PurePosixPath(path).parent
    if style == "docusaurus" and isinstance(slug, str) and slug.strip():
        slug = slug.strip()
        return quote(slug if slug.startswith("/") else "/" + str(folder / slug).lstrip("./"))
    if style == "docusaurus" and isinstance(doc_id, str | int) and str(doc_id).strip():
        return "/" + site_path(str(folder / f"{doc_id}.md"), style)
    if style == "hugo" and isinstance(slug, str) and slug.strip():
        return "/" + site_path(str(folder / slug.strip()) + ".md", style)
    return None
