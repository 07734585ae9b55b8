"""The chunks nearest a query vector: every row scored on small indexes, an inverted file on large ones.

Scoring 100k rows reads them all for every query: 26 MB of int8 codes, as stored, memory-bound. The inverted
file is the coarse stage of Jégou, Douze and Schmid, "Product Quantization for Nearest Neighbor
Search" (IEEE TPAMI 2011), as in faiss's IndexIVFFlat: the rows are grouped by their nearest of
sqrt(n) centroids (spherical k-means on a sample), stored group by group, and a query scores only
the groups of its nearest centroids. It is approximate: bench/search_bench.py prints how many of the
exact top rows it keeps.
"""

from __future__ import annotations

import logging
import threading

import numpy as np
import scipy.sparse as sp

from kb.embedding import Packed
from kb.memory import return_freed_memory
from kb.ranking import top

log = logging.getLogger(__name__)

IVF_MIN_ROWS = 20_000  # below this every row is scored: exact, and fast enough
PROBE_SHARE = 1 / 8  # the share of groups a query scores
KMEANS_SAMPLE = 40  # rows sampled per centroid to train on
KMEANS_ROUNDS = 8
_BATCH = 8192  # rows assigned at a time, to bound the scores matrix


class DenseIndex:
    """Unit vectors by row; `top` gives the rows nearest a query, best first, as ranking.top does.

    A small index keeps float32 rows. A large one keeps the int8 codes as stored (kb.embedding.Packed: a quarter of
    the memory, 26 MB at 100k rows, widened only where a query scores), starts answering at once with exact scans,
    and builds its inverted file in a thread (about 0.4 s at 100k rows, a fifth of a fresh process's load): a
    restarted bot answers its first question sooner, and queries score every row until the file is ready."""

    def __init__(self, rows: np.ndarray | Packed | InvertedFile, seed: int = 0, background: bool = True) -> None:
        """rows: float or packed unit vectors in row order, or an inverted file already built (kb.snapshot)."""
        self._ivf: InvertedFile | None = rows if isinstance(rows, InvertedFile) else None
        self._grouped = threading.Event()
        self.rows: np.ndarray | Packed | None  # row order, until a large index's grouped copy replaces it
        if isinstance(rows, InvertedFile):
            self.size, self.rows = len(rows.order), None
            self._grouped.set()
            return
        self.size = len(rows)
        if self.size < IVF_MIN_ROWS:
            self.rows = rows.unit() if isinstance(rows, Packed) else rows
            self._grouped.set()
            return
        self.rows = rows if isinstance(rows, Packed) else Packed.of(rows)
        if background:
            threading.Thread(target=self._group, args=(self.rows, seed), name="kb-dense-groups", daemon=True).start()
        else:
            self._group(self.rows, seed)

    def _group(self, rows: Packed, seed: int) -> None:
        try:
            self._ivf = InvertedFile.build(rows, np.random.default_rng(seed))
            self.rows = None  # after _ivf is set: a query that reads None here finds the file (`top`)
            return_freed_memory()
        except Exception as e:  # MemoryError included: exact scans go on serving, correct, only slower
            log.warning("could not group %d vectors (%s); every search scores them all", len(rows), e)
        finally:
            self._grouped.set()

    def arrays(self) -> dict[str, np.ndarray]:
        """The index as arrays, its inverted file included once built (kb.snapshot keeps them on disk)."""
        ivf, rows = self._ivf, self.rows
        if ivf is not None:
            return {"ivf_" + name: value for name, value in ivf.arrays().items()}
        if isinstance(rows, Packed):
            return {"dense_codes": rows.codes, "dense_factors": rows.factors}
        assert rows is not None
        return {"dense_rows": rows}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> DenseIndex:
        """An index as arrays() gave it: a kept inverted file serves at once, with no grouping to do again."""
        if "ivf_order" in arrays:
            return cls(InvertedFile.from_arrays({name[4:]: value for name, value in arrays.items() if name.startswith("ivf_")}))
        rows = arrays.get("dense_rows")
        return cls(rows if rows is not None else Packed(arrays["dense_codes"], arrays["dense_factors"]))

    def wait_until_grouped(self, timeout: float | None = None) -> bool:
        return self._grouped.wait(timeout)

    @property
    def inverted(self) -> InvertedFile | None:
        return self._ivf

    @property
    def groups(self) -> int:
        return self._ivf.groups if self._ivf is not None else 0

    @property
    def nbytes(self) -> int:
        rows, ivf = self.rows, self._ivf
        return (rows.nbytes if rows is not None else 0) + (ivf.nbytes if ivf is not None else 0)

    def top(self, query: np.ndarray, depth: int, excluded: np.ndarray | None = None) -> np.ndarray:
        """Rows with the best positive inner products, best first; excluded: a mask of rows never returned."""
        rows = self.rows  # read before the file: the builder sets the file, then drops these
        ivf = self._ivf
        if ivf is not None:
            return ivf.top(query, depth, excluded)
        assert rows is not None
        scores = rows.scores(query) if isinstance(rows, Packed) else rows @ query
        if excluded is not None:
            scores[excluded] = 0
        return top(scores, depth)


class InvertedFile:
    """The rows grouped by their nearest of sqrt(n) centroids, stored group by group."""

    def __init__(self, centroids: np.ndarray, order: np.ndarray, rows: Packed, starts: np.ndarray) -> None:
        """centroids: unit, one per group; order: stored position -> row; rows: the rows in stored order; starts:
        where each group begins in it, and the end."""
        self.centroids, self.order, self.rows, self.starts = centroids, order, rows, starts
        self.groups = len(centroids)
        self.probe = max(1, int(np.ceil(self.groups * PROBE_SHARE)))

    @classmethod
    def build(cls, rows: Packed, rng: np.random.Generator) -> InvertedFile:
        n = len(rows)
        centroids = _spherical_kmeans(rows, int(np.sqrt(n)), rng)
        nearest = np.concatenate(
            [np.argmax(rows.codes[i : i + _BATCH].astype(np.float32) @ centroids.T, axis=1) for i in range(0, n, _BATCH)]
        )  # a row's positive factor does not change its nearest centroid
        order = np.argsort(nearest, kind="stable")
        return cls(centroids, order, rows.take(order), np.searchsorted(nearest[order], np.arange(len(centroids) + 1)))

    def arrays(self) -> dict[str, np.ndarray]:
        rows = self.rows
        return {
            "centroids": self.centroids,
            "order": self.order,
            "codes": rows.codes,
            "factors": rows.factors,
            "starts": self.starts,
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> InvertedFile:
        return cls(arrays["centroids"], arrays["order"], Packed(arrays["codes"], arrays["factors"]), arrays["starts"])

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes + self.order.nbytes + self.centroids.nbytes

    def top(self, query: np.ndarray, depth: int, excluded: np.ndarray | None) -> np.ndarray:
        nearest = np.argpartition(-(self.centroids @ query), self.probe - 1)[: self.probe]
        spans = [slice(self.starts[g], self.starts[g + 1]) for g in np.sort(nearest)]
        scores = np.concatenate([self.rows.take(span).scores(query) for span in spans])
        rows = np.concatenate([self.order[span] for span in spans])
        if excluded is not None:
            scores[excluded[rows]] = 0
        best = top(scores, depth)
        return rows[best]


def _spherical_kmeans(rows: Packed, k: int, rng: np.random.Generator) -> np.ndarray:
    """k unit centroids from a sample of the rows (Dhillon and Modha, 2001: k-means by cosine)."""
    sample = rows.take(rng.choice(len(rows), size=min(len(rows), KMEANS_SAMPLE * k), replace=False)).unit()
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
