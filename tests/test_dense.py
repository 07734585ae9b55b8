"""The dense ranking: every row scored on small indexes, an inverted file on large ones."""

import numpy as np
import pytest

from kb.dense import IVF_MIN_ROWS, DenseIndex
from kb.embedding import Packed
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
    stored = Packed.of(rows).unit()  # a large index keeps the int8 codes the database stores
    assert index.wait_until_grouped(60)
    assert index.groups > 0 and index.inverted.probe < index.groups
    rng = np.random.default_rng(9)
    kept = []
    for q in unit(centres[:20] + 0.1 * rng.normal(size=(20, rows.shape[1]))):
        got, want = index.top(q, 10), top(rows @ q, 10)
        kept.append(len(set(got.tolist()) & set(want.tolist())) / 10)
        assert np.all(np.diff((stored @ q)[got]) <= 1e-6), "best first"
    assert np.mean(kept) >= 0.9


def test_excluded_rows_are_never_returned_by_either_kind_of_index():
    for n in (1_000, IVF_MIN_ROWS * 2):
        rows, centres = clustered(n)
        excluded = np.zeros(n, dtype=bool)
        excluded[::2] = True
        index = DenseIndex(rows)
        assert index.wait_until_grouped(60)
        got = index.top(centres[0], 100, excluded=excluded)
        assert len(got) == 100 and not excluded[got].any()


def test_a_large_index_answers_while_its_groups_are_built_and_keeps_one_copy_of_its_rows_after():
    rows, centres = clustered(IVF_MIN_ROWS * 2)
    index = DenseIndex(rows)
    stored = Packed.of(rows).unit()
    answered = 0
    while not index.wait_until_grouped(0):  # queries race the build: each answer is whole and best first
        q = centres[answered % len(centres)]
        got = index.top(q, 50)
        assert len(got) == 50 and np.all(np.diff((stored @ q)[got]) <= 1e-6)
        answered += 1
    assert index.groups > 0 and index.rows is None, "the grouped copy replaces the rows"
    assert index.nbytes < rows.nbytes / 2, "int8 codes, a quarter of float32's bytes, plus the file's order"


@pytest.mark.parametrize("n", [1_000, IVF_MIN_ROWS * 2])
def test_an_index_given_back_as_its_arrays_answers_as_it_did_and_has_no_groups_to_build(n):
    rows, centres = clustered(n)
    built = DenseIndex(rows)
    assert built.wait_until_grouped(60)
    restored = DenseIndex.from_arrays({name: value.copy() for name, value in built.arrays().items()})
    assert restored.wait_until_grouped(0) and restored.groups == built.groups
    for q in centres[:10]:
        assert restored.top(q, 50).tolist() == built.top(q, 50).tolist()


def test_packed_vectors_come_back_as_their_unit_vectors_and_a_missing_or_malformed_row_as_zeros():
    from kb.embedding import pack, unpack_many

    rows, _ = clustered(50)
    blobs = [pack(r * 3.0) for r in rows]  # any length: what comes back is the unit vector
    assert np.abs(unpack_many(blobs, rows.shape[1]) - rows).max() < 0.02
    broken = unpack_many([blobs[0], None, blobs[2][:-1], blobs[3]], rows.shape[1])
    assert np.abs(broken[[0, 3]] - rows[[0, 3]]).max() < 0.02 and not broken[[1, 2]].any()
    assert unpack_many([], 8).shape == (0, 8)
