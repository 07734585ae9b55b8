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
from itertools import chain, islice

import numpy as np
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from kb.coverage import coverage, docs_weights, strength
from kb.embedding import USE_DEFAULT, Embedder, EmbedderUnavailable, resolve_embedder
from kb.encoder import RELATED
from kb.errors import IndexUnavailable
from kb.frequency import zipf
from kb.hits import Hit, Page, Ranked, read_hits, read_pages
from kb.links import Links
from kb.question import Question, read_question
from kb.ranking import DEPTH, PAGE_BONUS, rank_pages, rrf, top
from kb.rerank import ENCODER_POOL, RERANK_PAGES
from kb.serving import ServingIndex, load_index
from kb.snapshot import Snapshots
from kb.state import index_version, synced_commit
from kb.tokens import DEFAULT_TOKENIZER, Tokenizer

log = logging.getLogger(__name__)

# The BM25 floor of the "strong" label: a hit scoring this (with a focus word of the
# question) is strong even when it covers little of the question.
DEFAULT_MIN_SCORE = 2.0
SEARCH_MODES = ("rerank", "hybrid", "bm25")
CHUNKS_PER_PAGE = 3  # a page's best chunks come together, so an answer spread over sections is read whole
# Close in meaning: the sentence encoder's cosine with the query is at least kb.encoder.RELATED; with no encoder
# vector, the dense ranking puts the chunk within this share of the docs' chunks (at least MEANING_FLOOR).
MEANING_SHARE, MEANING_FLOOR = 0.02, 10


class Searcher:
    """Answers searches from the current index; safe to share between threads."""

    def __init__(
        self,
        engine: Engine,
        *,
        base_url: str | None = None,
        source_url: str | None = None,
        review_url: str | None = None,
        style: str | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        recheck_seconds: float = 2.0,
        tokenizer: Tokenizer = DEFAULT_TOKENIZER,
        embedder: Embedder | None = USE_DEFAULT,
        page_bonus: float = PAGE_BONUS,
        encoder: Embedder | None = None,
        snapshots: Snapshots | None = None,
    ) -> None:
        """embedder: None searches with BM25 alone; the default is WordLlama (hybrid search).
        page_bonus: 0 ranks a page by its best chunk alone.
        encoder: a sentence encoder (kb.encoder) that orders the top pages again by meaning, with the vectors
        kb.encode has stored so far; None: no re-ranking.
        base_url, source_url, review_url: where a page is read (kb.links): a published site, else a template such
        as a git forge's web view of the file at the commit the served index was synced from, else the review
        page's copy. style: DOCS_ANCHOR_STYLE, how the site lays out its pages (kb.anchors).
        snapshots: where a large index is kept for the next start (kb.snapshot); None: always read the database."""
        self.engine = engine
        self._link = Links(base_url, source_url, self._served_commit, review_url, style)
        self._commit: tuple[int | None, str | None] = (None, None)  # (index version, the commit it was synced from)
        self.min_score = min_score
        self.recheck_seconds = recheck_seconds
        self.tokenizer = tokenizer
        self.page_bonus = page_bonus
        self.encoder = encoder
        self.snapshots = snapshots
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
                if self._index is None:  # the first question reads its words' frequencies: loaded meanwhile
                    threading.Thread(target=zipf, args=("the",), name="kb-word-frequencies", daemon=True).start()
                self._index = load_index(
                    self.engine, self.tokenizer, self.embedder, encoder=self.encoder, snapshots=self.snapshots
                )
                encoded = self._index.encoded
                if encoded is not None:  # the index answers now; the re-ranking vectors join it shortly
                    self._vectors = self._in_background(lambda: encoded.load_new(self.engine), "kb-vectors")
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
        return read_question(query, self.tokenizer, bm25.df, bm25.df_many, bm25.together)

    def unknown_words(self, query: str) -> list[str]:
        """The query's focus words that no chunk contains: what the docs never talk about (typos aside)."""
        return self.read(query).unknown()

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
        candidates, bm, meant = self._rank(index, question.query(), collections, per_page)
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
    ) -> tuple[Iterator[Ranked], np.ndarray, np.ndarray | None]:
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
            Ranked(row, positions[0].get(row), positions[1].get(row) if len(positions) > 1 else None, meaning.get(page))
            for n, (page, rows) in enumerate(pages)
            for row in rows[: limits[min(n, len(limits) - 1)]]
        )
        return out, bm, meant

    def hits(self, scored: list[tuple[int, float, Ranked]]) -> list[Hit]:
        """The hits for (chunk id, BM25 score, how it ranked), in that order; chunks gone since the load are dropped."""
        return read_hits(self.engine, scored, self._link)

    def pages(self, paths: Sequence[str]) -> list[Page]:
        """The pages at these paths, in the order given (missing ones left out)."""
        return read_pages(self.engine, paths, self._link)

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
        self._rebuild = self._in_background(target, "kb-index-rebuild")

    @staticmethod
    def _in_background(target: Callable[[], object], name: str) -> threading.Thread:
        """A thread that reads the database beside the serving index. If the database is out, the index keeps
        serving what it has, and the next search's recheck tries again: one warning, never a thread's traceback."""

        def run() -> None:
            try:
                target()
            except DBAPIError as e:
                log.warning("%s: the index's database could not be read (%s); trying again later", name, type(e).__name__)

        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        return thread
