"""Dense term ids, shared by every chunk and assigned only by sync (under its lock).

Dense ids let a serving process turn the stored per-chunk postings into a
term-major index with one linear transpose, instead of sorting millions of
64-bit hashes at start-up.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from sqlalchemy import Connection, insert, select

from kb.models import terms

# One posting as stored per chunk: term id and term frequency in the chunk.
POSTING = np.dtype([("t", "<u4"), ("tf", "<u2")])
_U64 = 1 << 64


def to_signed(h: int) -> int:
    return h - _U64 if h >= 1 << 63 else h


class Vocabulary:
    """Term hash -> dense id; ids handed out here are written back by save_new()."""

    def __init__(self, ids: dict[int, int] | None = None) -> None:
        self.ids: dict[int, int] = ids or {}
        self.next_id = max(self.ids.values(), default=-1) + 1
        self.added: list[tuple[int, int]] = []

    @classmethod
    def load(cls, conn: Connection) -> Vocabulary:
        return cls({h % _U64: i for h, i in conn.execute(select(terms.c.hash, terms.c.id))})

    def encode(self, counts: Counter[int]) -> bytes:
        arr = np.empty(len(counts), dtype=POSTING)
        ids = self.ids
        for n, (h, tf) in enumerate(counts.items()):
            t = ids.get(h)
            if t is None:
                t = ids[h] = self.next_id
                self.next_id += 1
                self.added.append((t, h))
            arr[n] = (t, min(tf, 65535))
        return arr.tobytes()

    def save_new(self, conn: Connection) -> None:
        for start in range(0, len(self.added), 5000):
            batch = self.added[start : start + 5000]
            conn.execute(insert(terms), [{"id": t, "hash": to_signed(h)} for t, h in batch])
        self.added.clear()

    @staticmethod
    def load_arrays(conn: Connection) -> tuple[np.ndarray, np.ndarray]:
        """Like load().arrays(), without building a dict: what a serving process needs."""
        rows = conn.execute(select(terms.c.hash, terms.c.id)).all()
        hashes = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)).view(np.uint64)
        ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        order = np.argsort(hashes)
        return hashes[order], ids[order]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(hashes sorted ascending as uint64, their ids), for lookups at query time."""
        hashes = np.fromiter(self.ids.keys(), dtype=np.uint64, count=len(self.ids))
        ids = np.fromiter(self.ids.values(), dtype=np.int64, count=len(self.ids))
        order = np.argsort(hashes)
        return hashes[order], ids[order]
