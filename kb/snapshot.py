"""A large serving index kept on disk, so a process started after the sync that made it, or restarted, answers
without building it again.

Reading 100k chunks' postings and vectors from the database and building the index from them takes about 1.6 s
(kb.serving.load_index); mapping the arrays it built back into memory takes milliseconds, and the pages a query
reads come in as it reads them. The database stays the truth: a snapshot is read only when its stamp is the
index's now (the version, the moment that version was committed, which a database made again from scratch does
not repeat, the analyzer and the embedder). Another stamp, a missing snapshot or a damaged one, and the index is
read from the database as before. Only indexes of at least MIN_CHUNKS are kept: a smaller one loads from the
database about as fast.

A snapshot is a folder of NumPy `.npy` files and its stamp, written under a temporary name and renamed into place
whole; older snapshots of the same database are then removed (a process still reading one keeps its files).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import Engine

log = logging.getLogger(__name__)

FORMAT = 2  # the arrays' layout: another means the snapshot is from another build and is not read
MIN_CHUNKS = 20_000
STAMP = "stamp.json"


@dataclass(frozen=True)
class Stamp:
    """What a snapshot must match to be served."""

    version: int
    committed: str  # index_state.updated_at, ISO 8601: version numbers start over in a database made again
    analyzer: str  # the tokenizer's name
    embedder: str  # the dense vectors' model ("" with none)

    def text(self) -> str:
        return json.dumps({**asdict(self), "format": FORMAT}, sort_keys=True)


class Snapshots:
    """Snapshots in `folder`, named for their database and stamp."""

    def __init__(self, folder: Path, min_chunks: int | None = None) -> None:
        self.folder = folder
        self.min_chunks = MIN_CHUNKS if min_chunks is None else min_chunks
        self._writing: threading.Thread | None = None

    def wait(self, timeout: float | None = None) -> None:
        """Until the snapshot being written, if any, is on disk."""
        if self._writing is not None:
            self._writing.join(timeout)

    def prefix(self, engine: Engine) -> str:
        """Named for the database's URL (its password left out), so databases never read each other's."""
        url = engine.url.render_as_string(hide_password=True)
        return f"index-{hashlib.sha256(url.encode()).hexdigest()[:16]}-"

    def path(self, engine: Engine, stamp: Stamp) -> Path:
        return self.folder / (self.prefix(engine) + hashlib.sha256(stamp.text().encode()).hexdigest()[:16])

    def read(self, engine: Engine, stamp: Stamp) -> dict[str, np.ndarray] | None:
        """The arrays kept for this stamp, mapped from disk (copy on write), or None."""
        path = self.path(engine, stamp)
        try:
            kept, _, names = (path / STAMP).read_text().partition("\n")
            if kept != stamp.text():
                return None
            return {name: np.load(path / f"{name}.npy", mmap_mode="c", allow_pickle=False) for name in json.loads(names)}
        except Exception as e:  # a missing, truncated or damaged file, an unreadable folder: the database has it all
            if isinstance(e, FileNotFoundError) and e.filename == str(path / STAMP):  # none kept for this index yet
                return None
            log.warning("index snapshot %s could not be read (%s); reading the index from the database", path, e)
            shutil.rmtree(path, ignore_errors=True)  # so the load that follows keeps a whole one in its place
            return None

    def write(self, engine: Engine, stamp: Stamp, arrays: Callable[[], dict[str, np.ndarray]]) -> None:
        """Keep the arrays, in a thread (they may wait for a build to finish: the index already answers). A failure
        (a full disk, a read-only folder) is one warning; the next start reads the database, as without a snapshot."""
        path = self.path(engine, stamp)

        def run() -> None:
            temporary = None
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                temporary = Path(tempfile.mkdtemp(dir=self.folder, prefix=".writing-"))
                built = arrays()
                for name, array in built.items():
                    np.save(temporary / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
                (temporary / STAMP).write_text(f"{stamp.text()}\n{json.dumps(sorted(built))}")
                if path.exists():  # another process kept the same index meanwhile
                    return
                temporary.rename(path)  # whole or not at all, for a process starting meanwhile
                temporary = None
                for older in self.folder.glob(self.prefix(engine) + "*"):
                    if older != path:
                        shutil.rmtree(older, ignore_errors=True)
            except Exception as e:  # OSError mostly; a snapshot only saves time, so never a thread's traceback
                log.warning("could not keep an index snapshot in %s (%s)", self.folder, e)
            finally:
                if temporary is not None:
                    shutil.rmtree(temporary, ignore_errors=True)

        self._writing = threading.Thread(target=run, name="kb-index-snapshot", daemon=True)
        self._writing.start()
