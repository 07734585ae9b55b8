"""Ordering the hybrid's top pages by meaning, with the sentence encoder's vectors as they land.

The hybrid ranking (kb.ranking) reads words; the encoder (kb.encoder) reads sentences. The first
RERANK_PAGES pages of the hybrid ranking are ordered again by reciprocal rank fusion (Cormack, Clarke
and Buettcher, SIGIR 2009) of two page rankings: the hybrid's own, and the encoder's, where a page
scores its best chunk's cosine with the query plus LEAD_WEIGHT times its lead's (its first chunk: the
title and the opening lines, where a page says what it is about). The two weigh the same: alone, the encoder ordered the
pages better than the hybrid on three real docs sets of bench/retrieval.py, and worse on a small folder
where every page shares the subject (an earbuds help centre: "return my earbuds" put the returns page
seventh); fused, each covers the other's misses, and doubling the encoder's weight lost the small folder's
first question. A page with no vector yet keeps its hybrid place in both rankings, so a
search during the fill-in is the hybrid's, moving towards the re-ranked one as vectors land.
"""

from __future__ import annotations

import threading

import numpy as np
from sqlalchemy import Engine, select

from kb.dense import IVF_MIN_ROWS
from kb.embedding import int8_scores
from kb.models import encodings

RERANK_PAGES = 30
# The pages the encoder alone ranks best over the whole index join the hybrid's RERANK_PAGES: a question in other
# words than its page's can miss the words-first head. On bench/retrieval.py's three real docs sets, 5 pages gave
# page recall@5 32/40, 35/41, 30/40 (from 32, 33, 29), 10 and 20 a little less. Scoring every vector costs about
# 1.2 ms at 4,000 chunks and 3 ms at 20,000 (bench/pool_bench.py), so larger indexes go without it, as
# kb.dense scores every row only below the same size.
ENCODER_POOL = 5
PAGE_RRF_K = 5
ENCODER_WEIGHT = 1.0
# A page's lead says what the whole page is about; its best chunk may only mention the question's words on the way
# to something else (a tutorial's one paragraph on tags, against the tag command's page). On bench/retrieval.py's
# three real docs sets (Git, npm, GIMP), page recall@5 went 32/40, 33/41, 30/40 -> 34/40, 37/41, 30/40 and MRR .61,
# .66, .71 -> .66, .68, .70 with 0.3; replayed offline, every weight from 0.15 to 0.4 gave recall +1 to +2 on Git,
# +2 to +4 on npm and -1 to 0 on GIMP: 0.3 is the middle of that plateau, not a fit to one question.
LEAD_WEIGHT = 0.3
LOAD_BATCH = 20_000
POOL_MAX_ROWS = IVF_MIN_ROWS


class EncodedRows:
    """The encoder's vectors, row-aligned with one serving index: int8 codes and a scale per row, as stored
    (kb.embedding.pack), 39 MB at 100k chunks."""

    def __init__(
        self, chunk_ids: np.ndarray, pages: np.ndarray, model: str, dim: int, ordinals: np.ndarray | None = None
    ) -> None:
        """chunk_ids: the index's chunk id per row, ascending (kb.serving.load_index reads them in id order).
        ordinals: each row's place in its page (default: the id order); a page's lead is its first."""
        self.chunk_ids = chunk_ids
        self.model = model
        self.dim = dim
        self.codes = np.zeros((len(chunk_ids), dim), dtype=np.int8)
        self.scales = np.zeros(len(chunk_ids), dtype=np.float32)
        self.have = np.zeros(len(chunk_ids), dtype=bool)
        self.count = 0
        self.last_id = 0  # the newest kb_encodings.id read
        self.pages = pages
        self._by_page = np.argsort(pages, kind="stable")
        self._page_of_sorted = pages[self._by_page]
        self.ordinals = np.arange(len(pages)) if ordinals is None else ordinals
        self._lock = threading.Lock()

    @property
    def complete(self) -> bool:
        return self.count >= len(self.chunk_ids)

    @property
    def nbytes(self) -> int:
        arrays = (self.codes, self.scales, self.have, self.ordinals, self._by_page, self._page_of_sorted)
        return sum(a.nbytes for a in arrays)

    def load_new(self, engine: Engine) -> int:
        """Read the vectors that landed since the last call; how many rows gained one."""
        if not len(self.chunk_ids):
            return 0
        with self._lock:
            gained = 0
            with engine.connect() as conn:
                result = conn.execute(
                    select(encodings.c.id, encodings.c.chunk_id, encodings.c.vector)
                    .where(encodings.c.model == self.model, encodings.c.id > self.last_id)
                    .order_by(encodings.c.id)
                )
                while batch := result.fetchmany(LOAD_BATCH):
                    self.last_id = batch[-1][0]
                    batch = [r for r in batch if r[2] is not None and len(r[2]) == 4 + self.dim]  # a damaged row never ranks
                    ids = np.fromiter((r[1] for r in batch), dtype=np.int64, count=len(batch))
                    rows = np.searchsorted(self.chunk_ids, ids)
                    known = (rows < len(self.chunk_ids)) & (self.chunk_ids[np.minimum(rows, len(self.chunk_ids) - 1)] == ids)
                    if not known.any():
                        continue
                    packed = np.frombuffer(b"".join(bytes(r[2]) for r, k in zip(batch, known) if k), dtype=np.uint8)
                    packed = packed.reshape(-1, 4 + self.dim)
                    rows = rows[known]
                    gained += int((~self.have[rows]).sum())
                    self.scales[rows] = packed[:, :4].copy().view(np.float32).ravel()
                    self.codes[rows] = packed[:, 4:].view(np.int8)
                    self.have[rows] = True
            self.count += gained
            return gained

    def rows_of(self, page: int) -> np.ndarray:
        start, end = np.searchsorted(self._page_of_sorted, [page, page + 1])
        return self._by_page[start:end]

    def cosines(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Each row's cosine with the query; NaN where the row has no vector yet."""
        out = int8_scores(self.codes[rows], self.scales[rows], query)
        return np.where(self.have[rows], out, np.nan)

    def top_rows(self, query: np.ndarray, n: int, excluded: np.ndarray | None = None) -> np.ndarray:
        """The n rows closest to the query in meaning over the whole index, best first (rows with no vector yet,
        or excluded, never)."""
        scores = int8_scores(self.codes, self.scales, query)
        scores[~self.have] = -np.inf
        if excluded is not None:
            scores[excluded] = -np.inf
        n = min(n, int(np.isfinite(scores).sum()))
        if n <= 0:
            return np.zeros(0, dtype=np.int64)
        best = np.argpartition(-scores, n - 1)[:n]
        return best[np.argsort(-scores[best], kind="stable")]

    def top_pages(
        self, query: np.ndarray, n: int, have: set[int], excluded: np.ndarray | None = None
    ) -> list[tuple[int, list[int]]]:
        """The n pages closest to the query in meaning over the whole index, leaving out those in `have`, each with
        its closest rows, best first: a question in other words than its page's may be missed by the words-first
        hybrid, so the encoder's own best pages join the re-ranking pool. None over POOL_MAX_ROWS rows."""
        extra: dict[int, list[int]] = {}
        if len(self.chunk_ids) > POOL_MAX_ROWS:
            return []
        for row in self.top_rows(query, n * 4, excluded).tolist():
            page = int(self.pages[row])
            if page not in have and (page in extra or len(extra) < n):
                extra.setdefault(page, []).append(row)
        return list(extra.items())

    def order(self, pages: list[int], query: np.ndarray) -> tuple[list[int], dict[int, int]]:
        """The pages (hybrid order) ordered again by fusion with the encoder's page ranking, and each page's rank
        by the encoder (1-based; pages with no vector yet are left out of it)."""
        best: dict[int, float] = {}
        for page in pages:
            rows = self.rows_of(page)
            encoded = rows[self.have[rows]]
            if len(encoded):
                lead = rows[np.argmin(self.ordinals[rows])]
                about = float((self.codes[lead] @ query) * self.scales[lead]) if self.have[lead] else 0.0
                best[page] = float(int8_scores(self.codes[encoded], self.scales[encoded], query).max()) + LEAD_WEIGHT * about
        if not best:
            return pages, {}
        by_meaning = sorted(best, key=lambda p: -best[p])
        meaning_rank = {p: n for n, p in enumerate(by_meaning, 1)}
        score = {}
        for n, page in enumerate(pages, 1):
            encoder_place = meaning_rank.get(page, n)  # no vector yet: its hybrid place
            score[page] = 1 / (PAGE_RRF_K + n) + ENCODER_WEIGHT / (PAGE_RRF_K + encoder_place)
        return sorted(pages, key=lambda p: -score[p]), meaning_rank
