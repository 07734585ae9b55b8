"""Searching the index a process serves, and keeping it current.

The BM25 index lives in memory and is rebuilt from the database when the index
version moves. A rebuild runs beside the old index, which keeps answering until
the new one is swapped in whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, select

from kb.database import is_sqlite
from kb.documents import Line
from kb.index import BM25Index
from kb.links import chunk_url, page_url
from kb.models import chunks, documents
from kb.sync import index_version
from kb.tokens import DEFAULT_TOKENIZER, Tokenizer
from kb.vocabulary import Vocabulary

# Hits scoring below this are not evidence. Calibrated on the sample docs' question
# set: answerable questions' best hits score well above it, off-topic ones below.
DEFAULT_MIN_SCORE = 2.0


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    path: str
    collection: str
    title: str
    heading: str
    url: str | None
    score: float
    lines: tuple[Line, ...]

    def as_dict(self) -> dict:
        return {
            "chunk_id": self.chunk_id,
            "path": self.path,
            "collection": self.collection,
            "title": self.title,
            "heading": self.heading,
            "url": self.url,
            "score": round(self.score, 4),
        }

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


def load_index(engine: Engine, tokenizer: Tokenizer = DEFAULT_TOKENIZER, batch: int = 20_000) -> BM25Index:
    """Read the vocabulary and every chunk's stored postings, at one consistent version."""
    ids: list[int] = []
    codes: list[int] = []
    lengths: list[int] = []
    blobs: list[bytes] = []
    names: dict[str, int] = {}
    with engine.connect() as conn:
        if not is_sqlite(engine):
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            version = index_version(conn)
            vocabulary = Vocabulary.load_arrays(conn)
            result = conn.execute(
                select(chunks.c.id, chunks.c.collection, chunks.c.length, chunks.c.terms).order_by(chunks.c.id)
            )
            while rows := result.fetchmany(batch):
                for chunk_id, collection, length, blob in rows:
                    ids.append(chunk_id)
                    codes.append(names.setdefault(collection, len(names)))
                    lengths.append(length)
                    blobs.append(bytes(blob))
    return BM25Index.from_blobs(ids, codes, list(names), lengths, blobs, vocabulary, version=version, tokenizer=tokenizer)


@dataclass(frozen=True)
class Page:
    path: str
    title: str
    url: str | None
    collection: str


class Searcher:
    """Answers searches from the current index; safe to share between threads."""

    def __init__(
        self,
        engine: Engine,
        *,
        base_url: str | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        recheck_seconds: float = 2.0,
        tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    ) -> None:
        self.engine = engine
        self.base_url = base_url
        self.min_score = min_score
        self.recheck_seconds = recheck_seconds
        self.tokenizer = tokenizer
        self._index: BM25Index | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()
        self._rebuild: threading.Thread | None = None

    @property
    def index(self) -> BM25Index:
        if self._index is None:
            self.refresh()
        else:
            self._maybe_refresh_in_background()
        assert self._index is not None
        return self._index

    @property
    def version(self) -> int:
        return self.index.version

    @property
    def loaded_version(self) -> int | None:
        """The version being served now, without loading or checking anything."""
        return self._index.version if self._index is not None else None

    def refresh(self) -> BM25Index:
        """Load the current version now, and wait for it."""
        with self._lock:
            current = self._current_version()
            if self._index is None or self._index.version != current:
                self._index = load_index(self.engine, self.tokenizer)
            self._checked_at = time.monotonic()
            return self._index

    def wait_for_rebuild(self, timeout: float = 60.0) -> None:
        thread = self._rebuild
        if thread is not None:
            thread.join(timeout)

    def search(
        self,
        query: str,
        k: int = 5,
        collections: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[Hit]:
        index = self.index
        scored = index.search(query, k, collections, self.min_score if min_score is None else min_score)
        return self.hits(scored)

    def hits(self, scored) -> list[Hit]:
        """Fetch the rows for scored chunk ids, keeping their order; chunks gone since the load are dropped."""
        if not scored:
            return []
        ids = [s.chunk_id for s in scored]
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    chunks.c.id, chunks.c.heading, chunks.c.anchor, chunks.c.lines,
                    documents.c.path, documents.c.collection, documents.c.title, documents.c.url,
                )  # fmt: skip
                .join(documents, documents.c.id == chunks.c.document_id)
                .where(chunks.c.id.in_(ids))
            ).all()
        by_id = {r.id: r for r in rows}
        out = []
        for s in scored:
            r = by_id.get(s.chunk_id)
            if r is None:
                continue
            page = page_url(self.base_url, r.path, r.url)
            out.append(
                Hit(
                    chunk_id=r.id,
                    path=r.path,
                    collection=r.collection,
                    title=r.title,
                    heading=r.heading,
                    url=chunk_url(page, r.anchor),
                    score=s.score,
                    lines=tuple(Line(n, t) for n, t in r.lines),
                )
            )
        return out

    def pages(self, paths: Sequence[str]) -> list[Page]:
        """The pages at these paths, in the order given (missing ones left out)."""
        if not paths:
            return []
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(documents.c.path, documents.c.title, documents.c.url, documents.c.collection).where(
                    documents.c.path.in_(list(paths))
                )
            ).all()
        by_path = {r.path: r for r in rows}
        return [
            Page(r.path, r.title, page_url(self.base_url, r.path, r.url), r.collection)
            for r in (by_path.get(p) for p in paths)
            if r is not None
        ]

    def _current_version(self) -> int:
        with self.engine.connect() as conn:
            return index_version(conn)

    def _maybe_refresh_in_background(self) -> None:
        if time.monotonic() - self._checked_at < self.recheck_seconds:
            return
        if self._rebuild is not None and self._rebuild.is_alive():
            return
        self._checked_at = time.monotonic()
        if self._current_version() == self._index.version:
            return
        self._rebuild = threading.Thread(target=self.refresh, name="kb-index-rebuild", daemon=True)
        self._rebuild.start()
