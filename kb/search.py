"""Searching the index a process serves, and keeping it current.

A search ranks pages, not only chunks: BM25 and (in hybrid mode) dense similarity
each rank the chunks, reciprocal rank fusion merges them, and a page is scored
from its best chunks (kb.ranking); with a sentence encoder, the top pages are then
ordered again by meaning (kb.rerank). A search returns what ranks best, never
less: each passage is labelled by how strongly it matches (kb.coverage.strength),
and whether the passages answer is the answerer's call.

The index lives in memory and is rebuilt from the database when the index
version moves. A rebuild runs beside the old index, which keeps answering until
the new one is swapped in whole.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice

import numpy as np
from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError

from kb.coverage import (
    Coverage,
    Question,
    coverage,
    docs_weights,
    never_used,
    read_question,
    strength,
)
from kb.database import is_sqlite
from kb.dense import DenseIndex
from kb.documents import Line
from kb.embedding import USE_DEFAULT, Embedder, EmbedderUnavailable, resolve_embedder, unpack_many
from kb.encoder import RELATED
from kb.errors import IndexUnavailable
from kb.index import BM25Index
from kb.links import chunk_url, page_url, source_url
from kb.models import chunks, documents
from kb.ranking import DEPTH, PAGE_BONUS, rank_pages, rrf, top
from kb.rerank import ENCODER_POOL, RERANK_PAGES, EncodedRows
from kb.state import index_version, synced_commit
from kb.tokens import DEFAULT_TOKENIZER, Tokenizer
from kb.vocabulary import Vocabulary

log = logging.getLogger(__name__)

# The BM25 floor of the "strong" label: a hit scoring this (with a focus word of the
# question) is strong even when it covers little of the question.
DEFAULT_MIN_SCORE = 2.0
SEARCH_MODES = ("rerank", "hybrid", "bm25")
CHUNKS_PER_PAGE = 3  # a page's best chunks come together, so an answer spread over sections is read whole
# Close in meaning: the sentence encoder's cosine with the query is at least kb.encoder.RELATED; with no encoder
# vector, the dense ranking puts the chunk within this share of the docs' chunks (at least MEANING_FLOOR).
MEANING_SHARE, MEANING_FLOOR = 0.02, 10


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
    strength: str = "strong"  # how strongly it matches: strong, partial or weak (kb.coverage.strength)
    meaning_rank: int | None = None  # its page's rank by the sentence encoder among the re-ranked pages
    cosine: float | None = None  # the sentence encoder's cosine of the chunk with the query (None: no vector yet)

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
            "meaning_rank": self.meaning_rank,
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "strength": self.strength,
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
    encoded: EncodedRows | None = None  # the sentence encoder's vectors, filled in as they land

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
        extra = (self.dense.nbytes if self.dense is not None else 0) + (self.encoded.nbytes if self.encoded else 0)
        return self.bm25.nbytes + self.pages.nbytes + extra


def load_index(
    engine: Engine,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    embedder: Embedder | None = None,
    batch: int = 20_000,
    encoder: Embedder | None = None,
) -> ServingIndex:
    """Read the vocabulary, every chunk's stored postings and (with an embedder) its vector, at one version; with
    an encoder, room for its vectors (EncodedRows.load_new reads them, after the index already answers)."""
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
    page_ids = np.asarray(pages, dtype=np.int64)
    encoded = EncodedRows(bm25.chunk_ids, page_ids, encoder.name, encoder.dim) if encoder is not None else None
    return ServingIndex(bm25, dense, page_ids, version, encoded)


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
    meaning_rank: int | None = None
    cover: Coverage = field(default=None)  # type: ignore[assignment]
    strength: str = "strong"
    cosine: float | None = None


class Searcher:
    """Answers searches from the current index; safe to share between threads."""

    def __init__(
        self,
        engine: Engine,
        *,
        base_url: str | None = None,
        source_url: str | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        recheck_seconds: float = 2.0,
        tokenizer: Tokenizer = DEFAULT_TOKENIZER,
        embedder: Embedder | None = USE_DEFAULT,
        page_bonus: float = PAGE_BONUS,
        encoder: Embedder | None = None,
    ) -> None:
        """embedder: None searches with BM25 alone; the default is WordLlama (hybrid search).
        page_bonus: 0 ranks a page by its best chunk alone.
        encoder: a sentence encoder (kb.encoder) that orders the top pages again by meaning, with the vectors
        kb.encode has stored so far; None: no re-ranking.
        base_url, source_url: where a page is read (kb.links): a published site, else a template such as a git
        forge's web view of the file at the commit the served index was synced from."""
        self.engine = engine
        self.base_url = base_url
        self.source_url = source_url
        self._commit: tuple[int | None, str | None] = (None, None)  # (index version, the commit it was synced from)
        self.min_score = min_score
        self.recheck_seconds = recheck_seconds
        self.tokenizer = tokenizer
        self.page_bonus = page_bonus
        self.encoder = encoder
        try:
            self.embedder = resolve_embedder(embedder)
        except EmbedderUnavailable as e:
            log.warning("searching with BM25 alone: %s", e)
            self.embedder = None
        self._index: ServingIndex | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()
        self._rebuild: threading.Thread | None = None
        self._vectors: threading.Thread | None = None

    @property
    def mode(self) -> str:
        if self.embedder is None:
            return "bm25"
        return "rerank" if self.encoder is not None else "hybrid"

    @property
    def index(self) -> ServingIndex:
        if self._index is None:
            self.refresh()
        else:
            self._maybe_refresh_in_background()
        assert self._index is not None
        return self._index

    @property
    def loaded(self) -> ServingIndex | None:
        """The index being served now, without loading or checking anything."""
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
                self._index = load_index(self.engine, self.tokenizer, self.embedder, encoder=self.encoder)
                if self._index.encoded is not None:  # the index answers now; the re-ranking vectors join it shortly
                    self._vectors = threading.Thread(
                        target=self._index.encoded.load_new, args=(self.engine,), name="kb-vectors", daemon=True
                    )
                    self._vectors.start()
            self._checked_at = time.monotonic()
            return self._index

    def wait_for_rebuild(self, timeout: float = 60.0) -> None:
        """Until a rebuild under way, and the re-ranking vectors it reads, are in."""
        for thread in (self._rebuild, self._vectors):
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

    def absent_subject(self, query: str) -> list[str]:
        """The query's words that show its subject is nowhere in the docs (kb.coverage.never_used), or []."""
        q = self.read(query)
        return never_used(q.words, q.df)

    def search(
        self,
        query: str,
        k: int = 5,
        collections: Sequence[str] | None = None,
        min_score: float | None = None,
        per_page: int | Sequence[int] = CHUNKS_PER_PAGE,
    ) -> list[Hit]:
        """The best passages of the best-ranked pages, up to k: each page's best chunks together, best page first,
        each labelled by how strongly it matches (Hit.strength). Nothing is withheld for matching weakly.

        per_page: how many chunks a page may give; a sequence gives the 1st page's, the 2nd's..., the last entry
        for every later page ((3, 1): the best page read whole, then the best passage of each next page).
        min_score: the BM25 floor of the "strong" label (default: the searcher's).
        """
        try:
            return self._search(query, k, collections, min_score, per_page)
        except DBAPIError as e:  # the database went away or broke mid-search (a PostgreSQL outage, a locked SQLite)
            raise IndexUnavailable(f"the index's database could not be read: {type(e).__name__}") from e

    def _search(self, query, k, collections, min_score, per_page) -> list[Hit]:
        index = self.index
        floor = self.min_score if min_score is None else min_score
        question = self.read(query)
        words, df = question.words, question.df
        candidates, bm, meant = self._rank(index, question.query(query), collections, per_page)
        kept = list(islice(candidates, k))
        if kept:
            rows = np.array([c.row for c in kept], dtype=np.int64)
            present = index.bm25.present(rows, [w.term for w in words])
            weights = docs_weights(words, df, index.bm25.size)
            near = max(MEANING_FLOOR, MEANING_SHARE * index.size)
            cosines = index.encoded.cosines(rows, meant) if meant is not None and index.encoded is not None else None
            for n, (c, held) in enumerate(zip(kept, present)):
                c.cover = coverage(words, held, weights)
                c.cosine = None if cosines is None or np.isnan(cosines[n]) else float(cosines[n])
                if c.cosine is not None:
                    close = c.cosine >= RELATED
                else:
                    close = c.dense_rank is not None and c.dense_rank <= near
                c.strength = strength(c.cover, float(bm[c.row]), floor, close)
        return self.hits([(int(index.bm25.chunk_ids[c.row]), float(bm[c.row]), c) for c in kept])

    def _rank(
        self,
        index: ServingIndex,
        query: str,
        collections: Sequence[str] | None,
        per_page: int | Sequence[int] = CHUNKS_PER_PAGE,
    ) -> tuple[Iterator[_Candidate], np.ndarray, np.ndarray | None]:
        """The best chunks of every page either ranking found, pages best first (lazily; the first RERANK_PAGES
        ordered again by the encoder when it has vectors), the BM25 scores, and the encoder's query vector."""
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
        pages: Iterator[tuple[int, list[int]]] = (
            (page, rows) for page, _, rows in rank_pages(fused, index.pages, self.page_bonus)
        )
        meaning: dict[int, int] = {}
        meant = None
        if self.encoder is not None and index.encoded is not None and index.encoded.count:
            meant = self.encoder.embed([query])[0]
            head = list(islice(pages, RERANK_PAGES))
            head += index.encoded.top_pages(meant, ENCODER_POOL, {page for page, _ in head}, mask)
            rows_of = dict(head)
            order, meaning = index.encoded.order([page for page, _ in head], meant)
            pages = chain(((page, rows_of[page]) for page in order), (p for p in pages if p[0] not in rows_of))
        limits = [per_page] if isinstance(per_page, int) else list(per_page)
        out = (
            _Candidate(row, positions[0].get(row), positions[1].get(row) if len(positions) > 1 else None, meaning.get(page))
            for n, (page, rows) in enumerate(pages)
            for row in rows[: limits[min(n, len(limits) - 1)]]
        )
        return out, bm, meant

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
            url = chunk_url(page, r.anchor) if page else self._source(r.path, r.lines, r.anchor)
            out.append(
                Hit(
                    chunk_id=r.id,
                    path=r.path,
                    collection=r.collection,
                    title=r.title,
                    heading=r.heading,
                    url=url,
                    score=score,
                    lines=tuple(Line(n, t) for n, t in r.lines),
                    bm25_rank=c.bm25_rank,
                    dense_rank=c.dense_rank,
                    coverage=round(c.cover.share, 4) if c.cover else 0.0,
                    missing=c.cover.missing_focus if c.cover else (),
                    strength=c.strength,
                    meaning_rank=c.meaning_rank,
                    cosine=c.cosine,
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
            Page(r.path, r.title, page_url(self.base_url, r.path, r.url) or self._source(r.path), r.collection)
            for r in (by_path.get(p) for p in paths)
            if r is not None
        ]

    def _source(self, path: str, lines=None, anchor: str = "") -> str | None:
        """The page in its source's web view, at the commit the served index came from, with the chunk's lines."""
        if not self.source_url:
            return None
        span = (lines[0][0], lines[-1][0]) if lines else None
        return source_url(self.source_url, path, self._served_commit(), span, anchor)

    def _served_commit(self) -> str | None:
        version = self.loaded_version
        if self._commit[0] != version:
            with self.engine.connect() as conn:
                commit = synced_commit(conn, version)
            self._commit = (version, commit)
        return self._commit[1]

    def _current_version(self) -> int:
        with self.engine.connect() as conn:
            return index_version(conn)

    def _maybe_refresh_in_background(self) -> None:
        """Every recheck_seconds: a new index version is loaded beside the one serving; otherwise the encoder's
        vectors that landed since are read into it."""
        if time.monotonic() - self._checked_at < self.recheck_seconds:
            return
        if self._rebuild is not None and self._rebuild.is_alive():
            return
        self._checked_at = time.monotonic()
        serving = self._index
        if serving is None:
            return
        if self._current_version() == serving.version:
            encoded = serving.encoded
            if encoded is None or encoded.complete:
                return
            target: Callable[[], object] = lambda: encoded.load_new(self.engine)
        else:
            target = self.refresh
        self._rebuild = threading.Thread(target=target, name="kb-index-rebuild", daemon=True)
        self._rebuild.start()
