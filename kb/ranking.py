"""Turning two chunk rankings into one page ranking.

Reciprocal rank fusion (Cormack, Clarke and Buettcher, "Reciprocal Rank Fusion
outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009): a chunk
scores sum(1 / (k + rank)) over the rankings it appears in, so BM25 and dense
similarity are combined without calibrating their scores against each other.

A page then scores its best chunk plus a small bonus for its next best ones, so a
long page whose words are spread over sections can win without a one-chunk page
being punished for having no second chunk (a decaying sum, s1 + s2/2 + s3/3...,
helped the long-page manual and hurt the short-page docs; see bench/realdocs).

k, the bonus and the candidate depth were chosen on three docs sets together
(the sample docs, Git's HTML manual, npm's Markdown docs) by `python bench/retrieval.py`.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

RRF_K = 10
PAGE_BONUS = 0.1  # weight of a page's 2nd and 3rd best chunks
DEPTH = 200  # candidates taken from each ranking


def top(scores: np.ndarray, depth: int = DEPTH) -> np.ndarray:
    """Indices of the best positive scores, best first (ties by position)."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) > depth:
        positive = positive[np.argpartition(-scores[positive], depth - 1)[:depth]]
    return positive[np.lexsort((positive, -scores[positive]))]


def rrf(rankings: list[np.ndarray], size: int, k: int = RRF_K) -> np.ndarray:
    """Fused score of every row (zero where no ranking has it)."""
    fused = np.zeros(size, dtype=np.float64)
    for ranking in rankings:
        fused[ranking] += 1.0 / (k + 1 + np.arange(len(ranking)))
    return fused


def rank_pages(scores: np.ndarray, pages: np.ndarray, bonus: float = PAGE_BONUS) -> Iterator[tuple[int, float, list[int]]]:
    """(page, page score, its rows best first) for every page with a scoring row, best page first
    (ties: the page whose best row comes first); lazily, since a search reads only the first few."""
    rows = top(scores, len(scores))
    if not len(rows):
        return
    page_of = pages[rows]
    order = np.argsort(page_of, kind="stable")  # rows grouped by page, best first within each
    grouped = page_of[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    ends = np.r_[starts[1:], len(order)]
    rank = np.arange(len(order)) - np.repeat(starts, ends - starts)
    weight = np.where(rank == 0, 1.0, np.where(rank < 3, bonus, 0.0))
    page_score = np.add.reduceat(scores[rows[order]] * weight, starts)
    best_row = rows[order[starts]]
    for i in np.lexsort((best_row, -page_score)).tolist():
        yield int(grouped[starts[i]]), float(page_score[i]), rows[order[starts[i] : ends[i]]].tolist()
