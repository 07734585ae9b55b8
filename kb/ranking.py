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


def rank_pages(scores: np.ndarray, pages: np.ndarray, bonus: float = PAGE_BONUS) -> list[tuple[int, float, list[int]]]:
    """(page, page score, its rows best first) for every page with a scoring row, best page first."""
    rows = top(scores, len(scores))
    by_page: dict[int, list[int]] = {}
    for row in rows.tolist():
        by_page.setdefault(int(pages[row]), []).append(row)
    ranked = []
    for page, page_rows in by_page.items():
        s = scores[page_rows]
        ranked.append((page, float(s[0] + bonus * s[1:3].sum()), page_rows))
    ranked.sort(key=lambda x: (-x[1], x[2][0]))
    return ranked
