"""The chunks nearest a query vector: every row scored on small indexes, an inverted file on large ones.

Scoring 100k rows of 256 floats reads 100 MB a query (about 5 ms here, memory-bound). The inverted
file is the coarse stage of Jégou, Douze and Schmid, "Product Quantization for Nearest Neighbor
Search" (IEEE TPAMI 2011), as in faiss's IndexIVFFlat: the rows are grouped by their nearest of
sqrt(n) centroids (spherical k-means on a sample), stored group by group, and a query scores only
the groups of its nearest centroids. It is approximate: bench/search_bench.py prints how many of the
exact top rows it keeps.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kb.ranking import top

IVF_MIN_ROWS = 20_000  # below this every row is scored: exact, and fast enough
PROBE_SHARE = 1 / 8  # the share of groups a query scores
KMEANS_SAMPLE = 40  # rows sampled per centroid to train on
KMEANS_ROUNDS = 8
_BATCH = 8192  # rows assigned at a time, to bound the scores matrix


class DenseIndex:
    """Unit vectors by row; `top` gives the rows nearest a query, best first, as ranking.top does."""

    def __init__(self, vectors: np.ndarray, seed: int = 0) -> None:
        n = len(vectors)
        self.size = n
        self.groups = 0
        if n < IVF_MIN_ROWS:
            self.vectors = vectors
            return
        self.centroids = _spherical_kmeans(vectors, int(np.sqrt(n)), np.random.default_rng(seed))
        self.groups = len(self.centroids)
        nearest = np.concatenate([np.argmax(vectors[i : i + _BATCH] @ self.centroids.T, axis=1) for i in range(0, n, _BATCH)])
        self.order = np.argsort(nearest, kind="stable")  # stored position -> row
        self.vectors = vectors[self.order]
        self.starts = np.searchsorted(nearest[self.order], np.arange(self.groups + 1))
        self.probe = max(1, int(np.ceil(self.groups * PROBE_SHARE)))

    @property
    def nbytes(self) -> int:
        extra = self.order.nbytes + self.centroids.nbytes if self.groups else 0
        return self.vectors.nbytes + extra

    def top(self, query: np.ndarray, depth: int, excluded: np.ndarray | None = None) -> np.ndarray:
        """Rows with the best positive inner products, best first; excluded: a mask of rows never returned."""
        if not self.groups:
            scores = self.vectors @ query
            if excluded is not None:
                scores[excluded] = 0
            return top(scores, depth)
        nearest = np.argpartition(-(self.centroids @ query), self.probe - 1)[: self.probe]
        spans = [slice(self.starts[g], self.starts[g + 1]) for g in np.sort(nearest)]
        scores = np.concatenate([self.vectors[span] @ query for span in spans])
        rows = np.concatenate([self.order[span] for span in spans])
        if excluded is not None:
            scores[excluded[rows]] = 0
        best = top(scores, depth)
        return rows[best]


def _spherical_kmeans(vectors: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k unit centroids from a sample of the rows (Dhillon and Modha, 2001: k-means by cosine)."""
    sample = vectors[rng.choice(len(vectors), size=min(len(vectors), KMEANS_SAMPLE * k), replace=False)]
    centroids = sample[rng.choice(len(sample), size=k, replace=False)].copy()
    for _ in range(KMEANS_ROUNDS):
        nearest = np.argmax(sample @ centroids.T, axis=1)
        members = sp.csr_matrix(
            (np.ones(len(sample), dtype=np.float32), (nearest, np.arange(len(sample)))), shape=(k, len(sample))
        )
        sums = np.asarray(members @ sample)
        empty = ~sums.any(axis=1)
        sums[empty] = centroids[empty]  # a group that lost every row keeps its centroid
        centroids = sums / np.linalg.norm(sums, axis=1, keepdims=True)
    return centroids.astype(np.float32)
