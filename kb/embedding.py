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
    scale = float(np.abs(vector).max()) / 127.0 or 1.0
    codes = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    return np.float32(scale).tobytes() + codes.tobytes()


def unpack_many(blobs: Sequence[bytes | None], dim: int) -> np.ndarray:
    """float32 unit vectors from packed rows; a missing or malformed row becomes zeros (never matches)."""
    width = 4 + dim
    good = np.fromiter((b is not None and len(b) == width for b in blobs), dtype=bool, count=len(blobs))
    out = np.zeros((len(blobs), dim), dtype=np.float32)
    if good.any():
        packed = np.frombuffer(b"".join(b for b, ok in zip(blobs, good) if ok and b is not None), dtype=np.uint8)
        packed = packed.reshape(-1, width)
        scales = packed[:, :4].copy().view(np.float32)
        out[good] = packed[:, 4:].view(np.int8) * scales
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    out /= np.where(norms == 0, 1.0, norms)
    return out


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
