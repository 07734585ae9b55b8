"""A sentence encoder that orders the top pages: all-MiniLM-L6-v2, int8, run by onnxruntime.

WordLlama (kb.embedding) averages token vectors: fast enough to embed every chunk at sync and every
query, but it reads words, not sentences. MiniLM (Wang et al., "MiniLM: Deep Self-Attention
Distillation", NeurIPS 2020; sentence-transformers' all-MiniLM-L6-v2, Apache-2.0) reads the sentence,
and on three real docs sets its order of the hybrid's top pages was better than the hybrid's own
(bench/retrieval.py). It costs about 100 chunks/s on two cores, so its vectors are computed after a
sync has committed the index, and search uses them as they land (kb.rerank).

The graph and tokenizer ship in kb/weights (made once by kb/weights/export_minilm.py) and are read
from disk: nothing is downloaded, and it loads with sockets refused.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kb.chunking import ENCODER_TEXT
from kb.embedding import EmbedderUnavailable

WEIGHTS = Path(__file__).parent / "weights"
# Its weights are int8 in 7 bits (kb/weights/export_minilm.py), so no CPU's int8 products overflow; vectors of
# the earlier 8-bit graph ("all-MiniLM-L6-v2-int8") are encoded again.
MINILM = "all-MiniLM-L6-v2-int8-7bit"
MAX_TOKENS = 256  # the model's own max_seq_length
BATCH = 4  # as fast as 32 on two cores (about 105 chunks/s), at a fifth of the memory (200 MB peak, not 670)
# What its cosines mean (a property of the model, not of any docs folder). Measured on four docs sets
# (bench/retrieval.py, each line read under its section's name): the best line of the first search for an
# answerable question has a median cosine of 0.62 and a 10th percentile of 0.46; of 29 uncovered questions, 2
# reached 0.55 (2026-12-03; 0.63, 0.48 and 2 with the line read alone).
RELATED = 0.40  # below this, a line or passage is not about the query
CLOSE = 0.55  # at least this, it is about the query even when the docs never use the query's own words


class MiniLMEncoder:
    """Unit sentence vectors (the Embedder protocol of kb.embedding)."""

    name = f"{MINILM}/{ENCODER_TEXT}"  # its vectors' name: the model, and what it reads of a chunk
    dim = 384

    def __init__(self, folder: Path = WEIGHTS, threads: int = 2) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3  # its warnings are about graph optimisations, not for an operator
            self._session = ort.InferenceSession(str(folder / "minilm-l6-int8.onnx"), options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(folder / "minilm-l6-tokenizer.json"))
        except Exception as e:  # ImportError, a missing or damaged file
            raise EmbedderUnavailable(f"the sentence encoder could not be loaded: {e}") from e
        tokenizer.no_padding()  # the file pads to 128; batches are padded here, to their own longest text
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        self._lock = threading.Lock()  # a tokenizers.Tokenizer is not documented as thread-safe

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 unit vectors, one row per text. Texts are batched by length, so short ones are not padded to
        a long one's size."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            encodings = self._tokenizer.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            width = max(len(encodings[r].ids) for r in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for n, r in enumerate(rows):
                length = len(encodings[r].ids)
                ids[n, :length] = encodings[r].ids
                mask[n, :length] = 1
            out[rows] = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return out


_default: MiniLMEncoder | None = None
_default_lock = threading.Lock()


def default_encoder() -> MiniLMEncoder:
    """One session per process (about 60 MB)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = MiniLMEncoder()
        return _default
