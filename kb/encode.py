"""Filling in the sentence encoder's vectors after a sync has committed the index.

A sync never waits for them: the index serves BM25 and WordLlama results as soon as it commits, and the
encoder's vectors (about 100 chunks/s on two cores) land batch by batch, each batch its own short
transaction, while search picks them up (kb.rerank). A pass stopped at its deadline, killed, or beaten
to a batch by another process loses nothing: the next pass encodes what is still missing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, func, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError

from kb.chunking import encoder_text, stored
from kb.embedding import Embedder, pack
from kb.models import chunks, documents, encodings

BATCH = 256  # chunks read, encoded and written at a time: about 2.5 s of encoding
MAX_CONFLICTS = 3  # batches in a row another writer got to first: stop, the next pass finishes


@dataclass
class EncodeReport:
    encoded: int  # vectors this pass wrote
    done: int  # chunks with a vector of this model, after the pass
    total: int  # chunks in the index
    seconds: float

    @property
    def left(self) -> int:
        return self.total - self.done

    def as_dict(self) -> dict:
        return {
            "encoded": self.encoded,
            "done": self.done,
            "total": self.total,
            "left": self.left,
            "seconds": round(self.seconds, 3),
        }


def encoding_progress(conn: Connection, model: str) -> tuple[int, int]:
    """(chunks with a vector of this model, chunks in the index)."""
    done = conn.execute(select(func.count()).select_from(encodings).where(encodings.c.model == model)).scalar_one()
    total = conn.execute(select(func.count()).select_from(chunks)).scalar_one()
    return done, total


def encode_missing(
    engine: Engine,
    encoder: Embedder,
    *,
    seconds: float | None = None,
    batch: int = BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> EncodeReport:
    """Encode every chunk that has no vector from this encoder, in chunk order, until done or `seconds` have
    passed (the batch under way is finished first). A pass writes at least one batch, however short its time or
    slow the database: each scheduled pass moves the fill-in on. progress(done, total) after each batch."""
    started = time.monotonic()
    with engine.begin() as conn:  # vectors of another model never rank against this one's
        conn.execute(delete(encodings).where(encodings.c.model != encoder.name))
    with engine.connect() as conn:
        done, total = encoding_progress(conn, encoder.name)
    encoded, after, conflicts = 0, 0, 0
    while done < total and (seconds is None or not encoded or time.monotonic() - started < seconds):
        rows = _missing(engine, encoder.name, after, batch)
        if not rows:
            break
        after = rows[-1].id
        vectors = encoder.embed([_read(r.title, r.heading, r.lines) for r in rows])
        try:
            written = _write(engine, encoder.name, [r.id for r in rows], vectors)
        except (IntegrityError, OperationalError):  # a sync removed a chunk, or another process wrote it first
            conflicts += 1
            if conflicts >= MAX_CONFLICTS:
                break
            continue
        conflicts = 0
        encoded += written
        done += written
        if progress is not None:
            progress(done, total)
    with engine.connect() as conn:
        done, total = encoding_progress(conn, encoder.name)
    return EncodeReport(encoded, done, total, time.monotonic() - started)


class KeptVectors:
    """The encoder's vectors of the chunks a sync deletes, by what the encoder read of each, for the chunks that
    replace them and read the same: a page edited in one section, a page moved to another folder, and every page
    after a loaders change (which re-indexes them all, most chunks coming out as they were) are then not encoded
    again, minutes to tens of minutes on a large folder during which the search ranks without its re-ranking."""

    def __init__(self) -> None:
        self._vectors: dict[bytes, tuple[str, bytes]] = {}  # digest of the encoder's text -> (model, vector)

    def keep(self, conn: Connection, document_id: int) -> None:
        """Remember the vectors of a document's chunks, before they are deleted."""
        rows = conn.execute(
            select(encodings.c.model, encodings.c.vector, chunks.c.heading, chunks.c.lines, documents.c.title)
            .join(chunks, chunks.c.id == encodings.c.chunk_id)
            .join(documents, documents.c.id == chunks.c.document_id)
            .where(chunks.c.document_id == document_id)
        )
        for r in rows:
            self._vectors[_digest(r.title, r.heading, r.lines)] = (r.model, bytes(r.vector))

    def restore(self, conn: Connection, document_ids: list[int]) -> int:
        """Give each chunk of these (newly inserted) documents the vector kept for its text, if any; how many got one."""
        if not self._vectors:
            return 0
        restored = 0
        for start in range(0, len(document_ids), BATCH):
            rows = conn.execute(
                select(chunks.c.id, chunks.c.heading, chunks.c.lines, documents.c.title)
                .join(documents, documents.c.id == chunks.c.document_id)
                .where(chunks.c.document_id.in_(document_ids[start : start + BATCH]))
            )
            found = [
                {"chunk_id": r.id, "model": kept[0], "vector": kept[1]}
                for r in rows
                if (kept := self._vectors.get(_digest(r.title, r.heading, r.lines))) is not None
            ]
            if found:
                conn.execute(insert(encodings), found)
                restored += len(found)
        self._vectors.clear()
        return restored


def _read(title: str, heading: str, lines: list) -> str:
    """What the encoder reads of a stored chunk (kb.chunking.encoder_text)."""
    return encoder_text(title, stored(heading, lines))


def _digest(title: str, heading: str, lines: list) -> bytes:
    """The key a kept vector is found by: what the encoder read, hashed."""
    return hashlib.blake2b(_read(title, heading, lines).encode(), digest_size=16).digest()


def _missing(engine: Engine, model: str, after: int, limit: int):
    """The next chunks (past chunk id `after`) with no vector of this model, with what their text is made of."""
    have = select(encodings.c.chunk_id).where(encodings.c.model == model, encodings.c.chunk_id == chunks.c.id).exists()
    with engine.connect() as conn:
        return conn.execute(
            select(chunks.c.id, chunks.c.heading, chunks.c.lines, documents.c.title)
            .join(documents, documents.c.id == chunks.c.document_id)
            .where(chunks.c.id > after, ~have)
            .order_by(chunks.c.id)
            .limit(limit)
        ).all()


def _write(engine: Engine, model: str, ids: list[int], vectors) -> int:
    """Insert the vectors of the chunks that still exist; how many."""
    with engine.begin() as conn:
        alive = set(conn.execute(select(chunks.c.id).where(chunks.c.id.in_(ids))).scalars())
        rows = [{"chunk_id": i, "model": model, "vector": pack(v)} for i, v in zip(ids, vectors) if i in alive]
        if rows:
            conn.execute(insert(encodings), rows)
    return len(rows)
