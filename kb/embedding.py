"""Dense vectors for chunks and queries, computed offline.

The default model is WordLlama (`wordllama` on PyPI), a token-embedding table of
32,000 x 256 learned from a large language model's embeddings, averaged over a
text's tokens. Its weights and tokenizer ship inside the wheel, so nothing is
downloaded: the files are opened straight from the package folder. The library's
own `embed` pads every batch to its longest text (400-650 chunks/s here); the
same mean over tokens taken as a sparse chunk-by-token count matrix times the
table is several times faster and gives the same vectors.

Vectors are stored int8 with one float32 scale per vector (`pack`/`unpack`): the
ranking is the same as float32's and the rows are four times smaller.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from kb.errors import SupportbotError

WORDLLAMA = "wordllama-l2_supercat-256"


class Embedder(Protocol):
    """What search needs from a model: a name (stored with each vector) and unit vectors for texts."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 unit vectors, one row per text (a zero row for a text with no tokens)."""
        ...


class EmbedderUnavailable(SupportbotError, RuntimeError):
    """The model's files could not be loaded."""


class WordLlamaEmbedder:
    name = WORDLLAMA
    dim = 256

    def __init__(self, folder: Path | None = None) -> None:
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            if folder is None:  # found, not imported: importing wordllama sets the root logger to INFO
                spec = importlib.util.find_spec("wordllama")
                if spec is None or not spec.submodule_search_locations:
                    raise EmbedderUnavailable("the wordllama package is not installed")
                folder = Path(spec.submodule_search_locations[0])
            table = load_file(str(folder / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
            tokenizer = Tokenizer.from_file(str(folder / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        except (ImportError, OSError, KeyError, ValueError, Exception) as e:
            raise EmbedderUnavailable(f"the embedding model could not be loaded: {e}") from e
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        self._table = np.ascontiguousarray(table, dtype=np.float32)
        self._lock = threading.Lock()  # a tokenizers.Tokenizer is not documented as thread-safe

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        ids = np.fromiter((i for e in encodings for i in e.ids), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self._table) - 1, out=ids)
        indptr = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        weights = np.repeat(1.0 / np.maximum(lengths, 1), lengths).astype(np.float32)
        counts = sp.csr_matrix((weights, ids, indptr), shape=(len(texts), len(self._table)))
        return normalize(np.asarray(counts @ self._table, dtype=np.float32))


def normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def pack(vector: np.ndarray) -> bytes:
    """int8 codes after a float32 scale: 4 + dim bytes."""
    codes, scales = _quantise(vector[None, :])
    return scales[0].tobytes() + codes[0].tobytes()


def _quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row as int8 codes times a float32 scale (its largest magnitude over 127)."""
    peaks = np.abs(vectors).max(axis=1) / 127.0
    scales = np.where(peaks == 0, 1.0, peaks).astype(np.float32)
    return np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8), scales


SCAN_BLOCK = 16_384  # rows widened from int8 at a time when scoring packed rows: never all of them at once


class Packed:
    """Vectors as stored (`pack`): int8 codes, and per row the factor that turns its codes into a unit vector (0 for
    a missing or damaged row, which then never matches). A quarter of float32's memory: a large index keeps these
    and widens only the rows it scores."""

    def __init__(self, codes: np.ndarray, factors: np.ndarray) -> None:
        self.codes = codes
        self.factors = factors

    @classmethod
    def of(cls, vectors: np.ndarray) -> Packed:
        """Float rows quantised as `pack` stores them."""
        codes, _ = _quantise(vectors)
        return cls(codes, _inverse_norms(codes))

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def nbytes(self) -> int:
        return self.codes.nbytes + self.factors.nbytes

    def take(self, rows: np.ndarray | slice) -> Packed:
        return Packed(self.codes[rows], self.factors[rows])

    def unit(self) -> np.ndarray:
        """float32 unit vectors (zeros where a row is missing)."""
        return self.codes.astype(np.float32) * self.factors[:, None]

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Each row's inner product with the query."""
        return int8_scores(self.codes, self.factors, query)


def int8_scores(codes: np.ndarray, factors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """codes @ query x factors, the codes widened to float32 a block at a time."""
    out = np.empty(len(codes), dtype=np.float32)
    for start in range(0, len(codes), SCAN_BLOCK):
        block = slice(start, start + SCAN_BLOCK)
        out[block] = (codes[block].astype(np.float32) @ query) * factors[block]
    return out


def _inverse_norms(codes: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", codes, codes, dtype=np.float32))
    return np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)


def unpack_codes(blobs: Sequence[bytes | None], dim: int) -> Packed:
    """Packed rows as read from the database; a missing or malformed row becomes zeros. A row's stored scale is
    not needed: its unit vector is its codes over their norm."""
    width = 4 + dim
    good = np.fromiter((b is not None and len(b) == width for b in blobs), dtype=bool, count=len(blobs))
    if good.all():  # the usual case: one join, no mask
        codes = np.frombuffer(b"".join(b for b in blobs if b is not None), dtype=np.int8).reshape(-1, width)[:, 4:]
        codes = np.ascontiguousarray(codes)
    else:
        codes = np.zeros((len(blobs), dim), dtype=np.int8)
        if good.any():
            packed = np.frombuffer(b"".join(b for b, ok in zip(blobs, good) if ok and b is not None), dtype=np.int8)
            codes[good] = packed.reshape(-1, width)[:, 4:]
    return Packed(codes, _inverse_norms(codes))


def unpack_many(blobs: Sequence[bytes | None], dim: int) -> np.ndarray:
    """float32 unit vectors from packed rows; a missing or malformed row becomes zeros (never matches)."""
    return unpack_codes(blobs, dim).unit()


class _UseDefault:
    def __repr__(self) -> str:
        return "USE_DEFAULT"


USE_DEFAULT: Any = _UseDefault()  # "the default model", as a parameter default; None means no dense vectors


def resolve_embedder(embedder: Embedder | None) -> Embedder | None:
    return default_embedder() if embedder is USE_DEFAULT else embedder


_default: Embedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> Embedder:
    """One WordLlama per process: the table is 32 MB as float32."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WordLlamaEmbedder()
        return _default
