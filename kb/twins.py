"""One page, two formats: a docs folder that holds both `guide.md` and the `guide.html` built from it.

Indexing both would show every passage twice and cite the page twice, so the source
format is kept and the rendered twin is skipped and reported. Only files that share a
folder and a name are compared, and only their words: Markdown's marks and HTML's tags
differ, the text does not.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import PurePosixPath

from kb.loaders import LOADERS, loader_for
from kb.prepare import decode
from kb.scan import DocProblem, SourceFile

SAME_TEXT = 0.8  # Jaccard similarity of the two pages' word sets at which they are one page
PREFERENCE = list(LOADERS)  # the source formats come before the rendered ones (.html last)


def _words(source: SourceFile) -> set[str] | None:
    path = PurePosixPath(source.path)
    load = loader_for(path.suffix)
    if load is None:
        return None
    try:
        document = load(decode(source.content)[0], str(path), None)
    except Exception:  # LoadError, or a parser's own failure: prepare() reports it, the same way
        return None
    text = " ".join(
        [document.title, *(s.heading for s in document.sections), *(ln.text for s in document.sections for ln in s.lines)]
    )
    return set(re.findall(r"\w+", text.lower()))


def drop_format_twins(files: list[SourceFile]) -> tuple[list[SourceFile], list[DocProblem]]:
    """The files without rendered copies of another file here, and a problem naming each copy skipped."""
    groups: dict[tuple[str, str], list[SourceFile]] = defaultdict(list)
    for f in files:
        path = PurePosixPath(f.path)
        groups[(str(path.parent), path.stem)].append(f)
    skipped: dict[str, DocProblem] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda f: PREFERENCE.index(PurePosixPath(f.path).suffix.lower()))
        kept: list[tuple[SourceFile, set[str]]] = []
        for f in group:
            words = _words(f)
            twin = next((k for k, kw in kept if words and kw and len(words & kw) / len(words | kw) >= SAME_TEXT), None)
            if twin is None:
                kept.append((f, words or set()))
            else:
                skipped[f.path] = DocProblem(f.path, f"the same page as {twin.path} in another format", "skipped")
    return [f for f in files if f.path not in skipped], list(skipped.values())
