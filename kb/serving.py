"""The index as one process serves it: one consistent version of the postings and vectors, in memory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection, Engine, select

from kb.database import is_sqlite
from kb.dense import DenseIndex
from kb.embedding import Embedder, unpack_codes
from kb.index import BM25Index
from kb.memory import return_freed_memory
from kb.models import chunks
from kb.rerank import EncodedRows
from kb.snapshot import Snapshots, Stamp
from kb.state import chunk_count, index_stamp
from kb.tokens import DEFAULT_TOKENIZER, Tokenizer
from kb.vocabulary import Vocabulary


@dataclass(frozen=True)
class ServingIndex:
    """One consistent version: BM25 postings, dense vectors and page ids, row-aligned."""

    bm25: BM25Index
    dense: DenseIndex | None  # the chunks' unit vectors (zero where a chunk has none), row-aligned by ids
    pages: np.ndarray  # document id per row
    version: int
    encoded: EncodedRows | None = None  # the sentence encoder's vectors, filled in as they land

    @property
    def collection_names(self) -> list[str]:
        return self.bm25.collection_names

    @property
    def size(self) -> int:
        return self.bm25.size

    @property
    def tokenizer(self) -> Tokenizer:
        return self.bm25.tokenizer

    def idf(self, words: Sequence[str]) -> list[float]:
        return self.bm25.idf(words)

    @property
    def nbytes(self) -> int:
        extra = (self.dense.nbytes if self.dense is not None else 0) + (self.encoded.nbytes if self.encoded else 0)
        return self.bm25.nbytes + self.pages.nbytes + extra


def load_index(
    engine: Engine,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    embedder: Embedder | None = None,
    batch: int = 20_000,
    encoder: Embedder | None = None,
    snapshots: Snapshots | None = None,
) -> ServingIndex:
    """Read the vocabulary, every chunk's stored postings and (with an embedder) its vector, at one version; with
    an encoder, room for its vectors (EncodedRows.load_new reads them, after the index already answers). With
    snapshots, a large index is read from the one kept for this version, or kept for the next start."""
    model = embedder.name if embedder is not None else ""
    if snapshots is not None:
        with engine.connect() as conn:
            stamp = _stamp(conn, tokenizer, embedder)
        saved = snapshots.read(engine, stamp)
        if saved is not None:
            bm25 = BM25Index.from_arrays(saved, saved["collection_names"].tolist(), stamp.version, tokenizer)
            dense = DenseIndex.from_arrays(saved) if embedder is not None else None
            return _serving(bm25, dense, saved["pages"], saved["ordinals"], encoder)
    ids: list[int] = []
    codes: list[int] = []
    lengths: list[int] = []
    blobs: list[bytes] = []
    pages: list[int] = []
    ordinals: list[int] = []
    vectors: list[bytes | None] = []
    names: dict[str, int] = {}
    columns = [chunks.c.id, chunks.c.collection, chunks.c.length, chunks.c.terms, chunks.c.document_id, chunks.c.ordinal]
    if embedder is not None:
        columns += [chunks.c.embedding, chunks.c.embedding_model]
    with engine.connect() as conn:
        if not is_sqlite(engine):
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            stamp = _stamp(conn, tokenizer, embedder)
            vocabulary = Vocabulary.load_arrays(conn)
            result = conn.execute(select(*columns).order_by(chunks.c.id))
            while rows := result.fetchmany(batch):
                for row in rows:
                    ids.append(row[0])
                    codes.append(names.setdefault(row[1], len(names)))
                    lengths.append(row[2])
                    blobs.append(bytes(row[3]))
                    pages.append(row[4])
                    ordinals.append(row[5])
                    if embedder is not None:
                        vectors.append(bytes(row[6]) if row[6] is not None and row[7] == model else None)
    bm25 = BM25Index.from_blobs(ids, codes, list(names), lengths, blobs, vocabulary, version=stamp.version, tokenizer=tokenizer)
    packed = unpack_codes(vectors, embedder.dim) if embedder is not None else None
    del blobs, vectors
    return_freed_memory()
    dense = DenseIndex(packed) if packed is not None else None
    page_ids, places = np.asarray(pages, dtype=np.int64), np.asarray(ordinals, dtype=np.int64)
    if snapshots is not None and bm25.size >= snapshots.min_chunks:

        def built() -> dict[str, np.ndarray]:
            """What to keep, once the dense rows are grouped: a restart then has nothing to build."""
            if dense is not None:
                dense.wait_until_grouped()
            extra = dense.arrays() if dense is not None else {}
            return {**bm25.arrays(), "collection_names": np.array(list(names)), "pages": page_ids, "ordinals": places, **extra}

        snapshots.write(engine, stamp, built)
    return _serving(bm25, dense, page_ids, places, encoder)


def keep_snapshot(
    engine: Engine, snapshots: Snapshots, embedder: Embedder | None, tokenizer: Tokenizer = DEFAULT_TOKENIZER
) -> bool:
    """Keep the snapshot of the index as it is now, if it is large enough and none is kept yet, and wait until it
    is on disk: a sync does, so the next process to start maps it instead of reading every chunk (kb.snapshot).
    Whether one is kept for this version now."""
    with engine.connect() as conn:
        if chunk_count(conn) < snapshots.min_chunks:
            return False
    load_index(engine, tokenizer, embedder, snapshots=snapshots)  # maps a kept one; else builds it and keeps it
    snapshots.wait()
    with engine.connect() as conn:
        return snapshots.path(engine, _stamp(conn, tokenizer, embedder)).exists()


def _stamp(conn: Connection, tokenizer: Tokenizer, embedder: Embedder | None) -> Stamp:
    """What a snapshot of the index this connection sees must match (kb.snapshot.Stamp)."""
    version, committed = index_stamp(conn)
    return Stamp(version, committed, tokenizer.name, embedder.name if embedder is not None else "")


def _serving(
    bm25: BM25Index, dense: DenseIndex | None, pages: np.ndarray, ordinals: np.ndarray, encoder: Embedder | None
) -> ServingIndex:
    encoded = None
    if encoder is not None:
        encoded = EncodedRows(bm25.chunk_ids, pages, encoder.name, encoder.dim, ordinals)
    return ServingIndex(bm25, dense, pages, bm25.version, encoded)
