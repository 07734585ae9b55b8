"""Searching the index a process serves, and keeping it current.

A search ranks pages, not only chunks: BM25 and (in hybrid mode) dense similarity
each rank the chunks, reciprocal rank fusion merges them, and a page is scored
from its best chunks (kb.ranking). A page is returned only with evidence: its
best chunk holds a focus word of the question, and scores over the BM25 floor or
covers enough of the question's rarity-weighted words (kb.coverage).

The index lives in memory and is rebuilt from the database when the index
version moves. A rebuild runs beside the old index, which keeps answering until
the new one is swapped in whole.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

import numpy as np
from sqlalchemy import Engine, select

from kb.coverage import (
    Coverage,
    Question,
    coverage,
    docs_weights,
    is_evidence,
    never_used,
    read_question,
)
from kb.database import is_sqlite
from kb.dense import DenseIndex
from kb.documents import Line
from kb.embedding import USE_DEFAULT, Embedder, EmbedderUnavailable, resolve_embedder, unpack_many
from kb.index import BM25Index
from kb.links import chunk_url, page_url
from kb.models import chunks, documents
from kb.ranking import DEPTH, PAGE_BONUS, rank_pages, rrf, top
from kb.sync import index_version
from kb.tokens import DEFAULT_TOKENIZER, Tokenizer
from kb.vocabulary import Vocabulary

log = logging.getLogger(__name__)

# The BM25 floor of the evidence rule: a hit scoring this (with a focus word of the
# question) is evidence even when it covers little of the question.
DEFAULT_MIN_SCORE = 2.0
SEARCH_MODES = ("hybrid", "bm25")
CHUNKS_PER_PAGE = 3  # a page's best chunks come together, so an answer spread over sections is read whole
CANDIDATE_BATCH = 32  # candidates checked for evidence at a time: most searches stop within the first batch


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    path: str
    collection: str
    title: str
    heading: str
    url: str | None
    score: float  # the chunk's BM25 score
    lines: tuple[Line, ...]
    bm25_rank: int | None = None  # 1-based rank of the chunk by BM25, None when BM25 did not find it
    dense_rank: int | None = None  # likewise by dense similarity (hybrid mode)
    coverage: float = 0.0  # weighted share of the question's words the chunk holds
    missing: tuple[str, ...] = ()  # focus words of the question the chunk lacks

    def as_dict(self) -> dict:
        return {
            "chunk_id": self.chunk_id,
            "path": self.path,
            "collection": self.collection,
            "title": self.title,
            "heading": self.heading,
            "url": self.url,
            "score": round(self.score, 4),
            "bm25_rank": self.bm25_rank,
            "dense_rank": self.dense_rank,
        }

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


@dataclass(frozen=True)
class ServingIndex:
    """One consistent version: BM25 postings, dense vectors and page ids, row-aligned."""

    bm25: BM25Index
    dense: DenseIndex | None  # the chunks' unit vectors (zero where a chunk has none), row-aligned by ids
    pages: np.ndarray  # document id per row
    version: int

    @property
    def collection_names(self) -> list[str]:
        return self.bm25.collection_names

    @property
    def size(self) -> int:
        return self.bm25.size

    @property
    def tokenizer(self) -> Tokenizer:
        return self.bm25.tokenizer

    def idf(self, words: Sequence[str]) -> list[float]:
        return self.bm25.idf(words)

    @property
    def nbytes(self) -> int:
        return self.bm25.nbytes + (self.dense.nbytes if self.dense is not None else 0) + self.pages.nbytes


def load_index(
    engine: Engine, tokenizer: Tokenizer = DEFAULT_TOKENIZER, embedder: Embedder | None = None, batch: int = 20_000
) -> ServingIndex:
    """Read the vocabulary, every chunk's stored postings and (with an embedder) its vector, at one version."""
    ids: list[int] = []
    codes: list[int] = []
    lengths: list[int] = []
    blobs: list[bytes] = []
    pages: list[int] = []
    vectors: list[bytes | None] = []
    names: dict[str, int] = {}
    columns = [chunks.c.id, chunks.c.collection, chunks.c.length, chunks.c.terms, chunks.c.document_id]
    if embedder is not None:
        columns += [chunks.c.embedding, chunks.c.embedding_model]
    with engine.connect() as conn:
        if not is_sqlite(engine):
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            version = index_version(conn)
            vocabulary = Vocabulary.load_arrays(conn)
            result = conn.execute(select(*columns).order_by(chunks.c.id))
            while rows := result.fetchmany(batch):
                for row in rows:
                    ids.append(row[0])
                    codes.append(names.setdefault(row[1], len(names)))
                    lengths.append(row[2])
                    blobs.append(bytes(row[3]))
                    pages.append(row[4])
                    if embedder is not None:
                        vectors.append(bytes(row[5]) if row[5] is not None and row[6] == embedder.name else None)
    bm25 = BM25Index.from_blobs(ids, codes, list(names), lengths, blobs, vocabulary, version=version, tokenizer=tokenizer)
    dense = DenseIndex(unpack_many(vectors, embedder.dim)) if embedder is not None else None
    return ServingIndex(bm25, dense, np.asarray(pages, dtype=np.int64), version)


@dataclass(frozen=True)
class Page:
    path: str
    title: str
    url: str | None
    collection: str


@dataclass
class _Candidate:
    row: int
    bm25_rank: int | None
    dense_rank: int | None
    cover: Coverage = field(default=None)  # type: ignore[assignment]


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
        embedder: Embedder | None = USE_DEFAULT,
        page_bonus: float = PAGE_BONUS,
    ) -> None:
        """embedder: None searches with BM25 alone; the default is WordLlama (hybrid search).
        page_bonus: 0 ranks a page by its best chunk alone."""
        self.engine = engine
        self.base_url = base_url
        self.min_score = min_score
        self.recheck_seconds = recheck_seconds
        self.tokenizer = tokenizer
        self.page_bonus = page_bonus
        try:
            self.embedder = resolve_embedder(embedder)
        except EmbedderUnavailable as e:
            log.warning("searching with BM25 alone: %s", e)
            self.embedder = None
        self._index: ServingIndex | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()
        self._rebuild: threading.Thread | None = None

    @property
    def mode(self) -> str:
        return "hybrid" if self.embedder is not None else "bm25"

    @property
    def index(self) -> ServingIndex:
        if self._index is None:
            self.refresh()
        else:
            self._maybe_refresh_in_background()
        assert self._index is not None
        return self._index

    @property
    def loaded_version(self) -> int | None:
        """The version being served now, without loading or checking anything."""
        return self._index.version if self._index is not None else None

    def refresh(self) -> ServingIndex:
        """Load the current version now, and wait for it."""
        with self._lock:
            current = self._current_version()
            if self._index is None or self._index.version != current:
                self._index = load_index(self.engine, self.tokenizer, self.embedder)
            self._checked_at = time.monotonic()
            return self._index

    def wait_for_rebuild(self, timeout: float = 60.0) -> None:
        thread = self._rebuild
        if thread is not None:
            thread.join(timeout)

    def read(self, query: str) -> Question:
        """The query's content words weighed against the docs, its typos corrected."""
        bm25 = self.index.bm25
        return read_question(query, self.tokenizer, bm25.df, bm25.df_many)

    def unknown_words(self, query: str) -> list[str]:
        """The query's focus words that no chunk contains: what the docs never talk about (typos aside)."""
        q = self.read(query)
        return [w.word for w in q.words if w.focus and w.known and q.df[w.term] == 0]

    def search(
        self,
        query: str,
        k: int = 5,
        collections: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[Hit]:
        """Up to k chunks with evidence: the best pages first, each page's best chunks together.

        min_score=0 turns the evidence rule off: the closest pages, however weak.
        """
        index = self.index
        floor = self.min_score if min_score is None else min_score
        question = self.read(query)
        words, df = question.words, question.df
        if floor > 0 and never_used(words, df):
            return []  # the docs never use what the question is about: nothing here can answer it
        terms = [w.term for w in words]
        weights = docs_weights(words, df, index.bm25.size)
        candidates, bm = self._rank(index, question.query(query), collections)
        kept: list[_Candidate] = []
        while len(kept) < k and (batch := list(islice(candidates, CANDIDATE_BATCH))):
            present = index.bm25.present(np.array([c.row for c in batch], dtype=np.int64), terms)
            for c, held in zip(batch, present):
                c.cover = coverage(words, held, weights)
                if floor <= 0 or is_evidence(c.cover, float(bm[c.row]), floor):
                    kept.append(c)
                if len(kept) == k:
                    break
        return self.hits([(int(index.bm25.chunk_ids[c.row]), float(bm[c.row]), c) for c in kept])

    def _rank(
        self, index: ServingIndex, query: str, collections: Sequence[str] | None
    ) -> tuple[Iterator[_Candidate], np.ndarray]:
        """The best chunks of every page either ranking found, pages best first (lazily), and the BM25 scores."""
        bm = index.bm25.scores(query)
        mask = None
        if collections is not None:
            wanted = [index.collection_names.index(c) for c in collections if c in index.collection_names]
            mask = ~np.isin(index.bm25.collections, wanted)
            bm[mask] = 0
        rankings = [top(bm, DEPTH)]
        if self.embedder is not None and index.dense is not None and index.dense.size:
            rankings.append(index.dense.top(self.embedder.embed([query])[0], DEPTH, excluded=mask))
        positions = [{int(row): n for n, row in enumerate(r.tolist(), 1)} for r in rankings]
        fused = rrf(rankings, index.bm25.size)
        out = (
            _Candidate(row, positions[0].get(row), positions[1].get(row) if len(positions) > 1 else None)
            for _, _, rows in rank_pages(fused, index.pages, self.page_bonus)
            for row in rows[:CHUNKS_PER_PAGE]
        )
        return out, bm

    def hits(self, scored: list[tuple[int, float, _Candidate]]) -> list[Hit]:
        """Fetch the rows for (chunk id, BM25 score, candidate), keeping their order; chunks gone since the load are dropped."""
        if not scored:
            return []
        ids = [chunk_id for chunk_id, _, _ in scored]
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    chunks.c.id,
                    chunks.c.heading,
                    chunks.c.anchor,
                    chunks.c.lines,
                    documents.c.path,
                    documents.c.collection,
                    documents.c.title,
                    documents.c.url,
                )
                .join(documents, documents.c.id == chunks.c.document_id)
                .where(chunks.c.id.in_(ids))
            ).all()
        by_id = {r.id: r for r in rows}
        out = []
        for chunk_id, score, c in scored:
            r = by_id.get(chunk_id)
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
                    score=score,
                    lines=tuple(Line(n, t) for n, t in r.lines),
                    bm25_rank=c.bm25_rank,
                    dense_rank=c.dense_rank,
                    coverage=round(c.cover.share, 4) if c.cover else 0.0,
                    missing=c.cover.missing_focus if c.cover else (),
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
