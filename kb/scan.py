"""Walking a docs folder: which files are documents, and why the others are not."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kb.errors import SupportbotError
from kb.loaders import loader_for

DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class DocProblem:
    """A docs file a sync skipped, repaired, kept at its last good version or flagged, and why."""

    path: str
    reason: str
    action: str  # "skipped", "repaired", "kept previous version", "flagged"
    new: bool = True  # False: the last successful sync reported the same (path, action, reason)

    @property
    def key(self) -> tuple[str, str, str]:
        return self.path, self.action, self.reason

    def as_dict(self) -> dict:
        return {"path": self.path, "reason": self.reason, "action": self.action, "new": self.new}


@dataclass(frozen=True)
class SourceFile:
    path: str  # relative to the docs root, "/" separators
    collection: str
    content: bytes
    content_hash: str

    @classmethod
    def of(cls, path: str, collection: str, content: bytes) -> SourceFile:
        """A source with its content hash, by which a sync tells a changed document from an unchanged one."""
        return cls(path, collection, content, hashlib.sha256(content).hexdigest())


class DocsFolderMissing(SupportbotError, FileNotFoundError):
    pass


class DocsRootOutside(SupportbotError, ValueError):
    """The docs folder leads out of the folder it must stay in: a repository that made its docs folder a symlink,
    or a subfolder setting with '..'. Refused before anything is read, so the last index keeps serving."""


def collection_of(path: str) -> str:
    """The top-level subfolder; pages at the root belong to the collection "general"."""
    parts = PurePosixPath(path).parts
    return parts[0] if len(parts) > 1 else "general"


def scan(
    root: Path, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, within: Path | None = None
) -> tuple[list[SourceFile], list[DocProblem]]:
    """within: the folder the root must resolve inside (a git checkout); None trusts the root as given."""
    root = Path(root)
    if within is not None and not root.resolve().is_relative_to(Path(within).resolve()):
        raise DocsRootOutside(f"refused: the docs folder {root} leads outside {within} (a symlink or '..' in its path)")
    if not root.is_dir():
        raise DocsFolderMissing(f"docs folder not found: {root} (set DOCS_DIR or pass --docs)")
    real_root = root.resolve()
    files: list[SourceFile] = []
    problems: list[DocProblem] = []

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        kept = []
        for d in sorted(dirnames):
            rel = _rel(here / d, root)
            if d.startswith("."):
                problems.append(DocProblem(rel + "/", "hidden folder", "skipped"))
            elif (here / d).is_symlink():
                problems.append(DocProblem(rel + "/", "symlinked folder is not followed", "skipped"))
            else:
                kept.append(d)
        dirnames[:] = kept

        for name in sorted(filenames):
            full = here / name
            rel = _rel(full, root)
            if not _printable(rel):
                problems.append(DocProblem(_printable_form(rel), "file name is not valid UTF-8", "skipped"))
                continue
            if name.startswith("."):
                problems.append(DocProblem(rel, "hidden file", "skipped"))
                continue
            if loader_for(full.suffix) is None:
                problems.append(DocProblem(rel, f"unsupported file type '{full.suffix or name}'", "skipped"))
                continue
            try:
                if full.is_symlink():
                    target = full.resolve(strict=True)
                    if not target.is_relative_to(real_root):
                        problems.append(DocProblem(rel, "symlink leads outside the docs folder", "skipped"))
                        continue
                info = full.stat()
                if not stat.S_ISREG(info.st_mode):  # a FIFO would block the read forever; a device never ends
                    problems.append(DocProblem(rel, "not a regular file", "skipped"))
                    continue
                if info.st_size > max_file_bytes:
                    problems.append(
                        DocProblem(rel, f"file is {info.st_size:,} bytes, over the {max_file_bytes:,}-byte cap", "skipped")
                    )
                    continue
                content = full.read_bytes()
            except FileNotFoundError:
                problems.append(DocProblem(rel, "broken symlink" if full.is_symlink() else "vanished while reading", "skipped"))
                continue
            except RuntimeError:  # Path.resolve on a symlink loop
                problems.append(DocProblem(rel, "symlink loop", "skipped"))
                continue
            except OSError as e:
                problems.append(DocProblem(rel, f"cannot be read: {e.strerror or e}", "skipped"))
                continue
            files.append(SourceFile.of(rel, collection_of(rel), content))
    return files, problems


def _printable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable bytes over as surrogates
        return False
    return True


def _printable_form(text: str) -> str:
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
