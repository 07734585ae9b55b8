"""The dense ranking: every row scored on small indexes, an inverted file on large ones."""

import numpy as np

from kb.dense import IVF_MIN_ROWS, DenseIndex
from kb.ranking import top


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clustered(n: int, topics: int = 60, dim: int = 48, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Rows around a few topics, as chunks of docs are: (rows, topic centres)."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.normal(size=(topics, dim)))
    rows = centres[rng.integers(0, topics, size=n)] + 0.15 * rng.normal(size=(n, dim))
    return unit(rows), centres


def test_a_small_index_scores_every_row_and_matches_a_full_scan():
    rows, centres = clustered(IVF_MIN_ROWS - 1)
    index = DenseIndex(rows)
    assert index.groups == 0
    for q in centres[:5]:
        assert index.top(q, 50).tolist() == top(rows @ q, 50).tolist()


def test_a_large_index_scans_a_share_of_its_groups_and_keeps_the_nearest_rows():
    rows, centres = clustered(IVF_MIN_ROWS * 2)
    index = DenseIndex(rows)
    assert index.groups > 0 and index.probe < index.groups
    rng = np.random.default_rng(9)
    kept = []
    for q in unit(centres[:20] + 0.1 * rng.normal(size=(20, rows.shape[1]))):
        got, want = index.top(q, 10), top(rows @ q, 10)
        kept.append(len(set(got.tolist()) & set(want.tolist())) / 10)
        assert np.all(np.diff((rows @ q)[got]) <= 0), "best first"
    assert np.mean(kept) >= 0.9


def test_excluded_rows_are_never_returned_by_either_kind_of_index():
    for n in (1_000, IVF_MIN_ROWS * 2):
        rows, centres = clustered(n)
        excluded = np.zeros(n, dtype=bool)
        excluded[::2] = True
        got = DenseIndex(rows).top(centres[0], 100, excluded=excluded)
        assert len(got) == 100 and not excluded[got].any()
