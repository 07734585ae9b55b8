"""An in-memory BM25 index with precomputed per-posting scores.

rank-bm25 loops over every chunk in Python for every query term (about 280 ms
a query at 100k chunks); here each term's postings and their BM25 weights are
computed once at load, so a query only touches the chunks that contain its
terms. The index is built from the per-chunk postings that sync stores, with one
linear transpose (chunk-major to term-major), so a fresh process never
re-tokenises the corpus.

Scoring is Okapi BM25 (Robertson and Zaragoza, "The Probabilistic Relevance
Framework: BM25 and Beyond", 2009) with the IDF Lucene uses (`lucene_idf`), which
stays positive for common terms where rank-bm25's goes negative and is patched
with an epsilon.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kb.tokens import Tokenizer
from kb.vocabulary import POSTING, Vocabulary

K1 = 1.2
B = 0.75


def lucene_idf(n: int | np.ndarray, df: int | np.ndarray) -> np.ndarray:
    """log(1 + (N - n + 0.5) / (n + 0.5)): a term in no chunk gets the highest IDF, one in every chunk a small positive one."""
    return np.log1p((n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class ScoredChunk:
    chunk_id: int
    score: float


_BUILT = ("chunk_ids", "collections", "_hashes", "_term_ids", "_starts", "_docs", "_weights")


class BM25Index:
    """Immutable once built: safe to search from many threads and to swap whole."""

    def __init__(
        self,
        chunk_ids: np.ndarray,
        collections: np.ndarray,
        collection_names: Sequence[str],
        lengths: np.ndarray,
        postings_per_chunk: np.ndarray,
        postings: np.ndarray,
        vocabulary: tuple[np.ndarray, np.ndarray],
        version: int = 0,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.version = version
        self.tokenizer = tokenizer or Tokenizer()
        self.chunk_ids = np.asarray(chunk_ids, dtype=np.int64)
        self.collections = np.asarray(collections, dtype=np.int16)
        self.collection_names = list(collection_names)
        self._hashes, self._term_ids = vocabulary
        self.size = n = len(self.chunk_ids)
        n_terms = int(self._term_ids.max()) + 1 if len(self._term_ids) else 0

        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(postings_per_chunk, out=indptr[1:])
        by_chunk = sp.csr_matrix((postings["tf"].astype(np.float32), postings["t"].astype(np.int32), indptr), shape=(n, n_terms))
        by_term = by_chunk.tocsc()  # the transpose: a counting sort, linear in the postings
        del by_chunk
        self._starts = by_term.indptr
        self._docs = by_term.indices
        tf = by_term.data
        df = np.diff(self._starts).astype(np.float32)
        idf = lucene_idf(n, df).astype(np.float32)
        lengths = np.asarray(lengths, dtype=np.float32)
        norm = K1 * (1 - B + B * lengths / (float(lengths.mean()) if n else 1.0))
        tf *= K1 + 1
        tf /= tf / (K1 + 1) + norm[self._docs]
        tf *= np.repeat(idf, np.diff(self._starts))
        self._weights = tf  # now the BM25 contribution of each posting

    def arrays(self) -> dict[str, np.ndarray]:
        """The built index as arrays (kb.snapshot keeps them on disk)."""
        return {name.lstrip("_"): getattr(self, name) for name in _BUILT}

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], collection_names: Sequence[str], version: int, tokenizer: Tokenizer
    ) -> BM25Index:
        """An index as arrays() gave it, without building it again."""
        index = cls.__new__(cls)
        for name in _BUILT:
            setattr(index, name, arrays[name.lstrip("_")])
        index.version, index.tokenizer, index.collection_names = version, tokenizer, list(collection_names)
        index.size = len(index.chunk_ids)
        return index

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        chunk_ids: Sequence[int] | None = None,
        collections: Sequence[str] | None = None,
        tokenizer: Tokenizer | None = None,
    ) -> BM25Index:
        """Build straight from text: for tests, benches and tokeniser experiments."""
        tokenizer = tokenizer or Tokenizer()
        vocab = Vocabulary()
        blobs, lengths = [], []
        for text in texts:
            counts, length = tokenizer.counts(text)
            blobs.append(vocab.encode(counts))
            lengths.append(length)
        ids = np.array(chunk_ids if chunk_ids is not None else range(len(blobs)), dtype=np.int64)
        names = sorted(set(collections or [""]))
        codes = [names.index(c) for c in (collections or [""] * len(blobs))]
        return cls.from_blobs(ids, codes, names, lengths, blobs, vocab.arrays(), tokenizer=tokenizer)

    @classmethod
    def from_blobs(
        cls,
        chunk_ids: Sequence[int] | np.ndarray,
        collections: Sequence[int],
        collection_names: Sequence[str],
        lengths: Sequence[int],
        blobs: Sequence[bytes],
        vocabulary: tuple[np.ndarray, np.ndarray],
        version: int = 0,
        tokenizer: Tokenizer | None = None,
    ) -> BM25Index:
        postings = np.frombuffer(b"".join(blobs), dtype=POSTING)
        counts = np.fromiter((len(b) // POSTING.itemsize for b in blobs), dtype=np.int64, count=len(blobs))
        return cls(
            np.asarray(chunk_ids),
            np.asarray(collections),
            collection_names,
            np.asarray(lengths),
            counts,
            postings,
            vocabulary,
            version=version,
            tokenizer=tokenizer,
        )

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every chunk for the query (zeros where no term matches)."""
        scores = np.zeros(self.size, dtype=np.float32)
        hashes = np.array(self.tokenizer.term_hashes(query), dtype=np.uint64)
        if not len(hashes) or not len(self._hashes):
            return scores
        pos = np.minimum(np.searchsorted(self._hashes, hashes), len(self._hashes) - 1)
        for p in pos[self._hashes[pos] == hashes].tolist():
            t = self._term_ids[p]
            s, e = self._starts[t], self._starts[t + 1]
            scores[self._docs[s:e]] += self._weights[s:e]
        return scores

    def idf(self, words: Sequence[str]) -> list[float]:
        """Each word's IDF here; a word the corpus never uses gets the IDF of a term in no chunk."""
        return [float(lucene_idf(self.size, df)) for df in self.df(words)]

    def df(self, terms: Sequence[str]) -> list[int]:
        """How many chunks hold each term."""
        return self.df_many(terms, remember=True).tolist()

    def df_many(self, terms: Sequence[str], remember: bool = False) -> np.ndarray:
        """df() as an array, in one vectorised lookup; remember=False for one-off terms (a typo's variants),
        whose hashes would only fill the tokenizer's cache."""
        out = np.zeros(len(terms), dtype=np.int64)
        if not len(terms) or not len(self._hashes):
            return out
        hashes = np.array([self.tokenizer.hash(t, remember=remember) for t in terms], dtype=np.uint64)
        pos = np.minimum(np.searchsorted(self._hashes, hashes), len(self._hashes) - 1)
        found = self._hashes[pos] == hashes
        ids = self._term_ids[pos[found]]
        out[found] = self._starts[ids + 1] - self._starts[ids]
        return out

    def _rows_holding(self, term: str) -> np.ndarray:
        """The rows whose chunk holds the term, ascending (the transpose keeps rows in order); none for a term the
        vocabulary lacks, or one only removed pages had (the vocabulary keeps every word it ever gave an id)."""
        h = np.uint64(self.tokenizer.hash(term))
        p = int(np.searchsorted(self._hashes, h)) if len(self._hashes) else 0
        if p >= len(self._hashes) or self._hashes[p] != h:
            return self._docs[:0]
        t = self._term_ids[p]
        return self._docs[self._starts[t] : self._starts[t + 1]]

    def together(self, terms: Sequence[str]) -> int:
        """How many chunks hold every one of these terms."""
        held: np.ndarray | None = None
        for term in dict.fromkeys(terms):
            docs = self._rows_holding(term)
            held = docs if held is None else np.intersect1d(held, docs, assume_unique=True)
        return 0 if held is None else len(held)

    def present(self, rows: np.ndarray, terms: Sequence[str]) -> list[set[str]]:
        """For each row (a position in this index), which of these terms its chunk contains."""
        out: list[set[str]] = [set() for _ in range(len(rows))]
        if not len(rows):
            return out
        for term in dict.fromkeys(terms):
            docs = self._rows_holding(term)
            if not len(docs):
                continue
            at = np.minimum(np.searchsorted(docs, rows), len(docs) - 1)
            for i in np.flatnonzero(docs[at] == rows).tolist():
                out[i].add(term)
        return out

    def search(
        self,
        query: str,
        k: int = 5,
        collections: Sequence[str] | None = None,
        min_score: float = 0.0,
    ) -> list[ScoredChunk]:
        scores = self.scores(query)
        if collections is not None:
            wanted = [self.collection_names.index(c) for c in collections if c in self.collection_names]
            scores[~np.isin(self.collections, wanted)] = 0
        k = min(k, self.size)
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k] if k < self.size else np.arange(self.size)
        top = top[np.lexsort((top, -scores[top]))]  # best first, ties by position
        floor = max(min_score, 1e-9)
        return [ScoredChunk(int(self.chunk_ids[i]), float(scores[i])) for i in top if scores[i] >= floor]

    @property
    def nbytes(self) -> int:
        arrays = (self.chunk_ids, self.collections, self._hashes, self._term_ids, self._starts, self._docs, self._weights)
        return sum(a.nbytes for a in arrays)
