"""What a search returns: the hits (chunks, with how they ranked and matched) and the pages they are on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from sqlalchemy import Engine, select

from kb.documents import Line
from kb.models import chunks, documents

if TYPE_CHECKING:  # a type only: the log's readers import this module, and the command line starts fast
    from kb.coverage import Coverage

# Where a reader reads a page: (path, the document's own URL, the chunk's lines, its anchor) -> a URL or None.
# No lines: the page itself.
Linker = Callable[..., "str | None"]


@dataclass(frozen=True)
class HitRecord:
    """A hit as it is logged and reviewed: where it is, how it ranked and how it matched, without its text.
    One record from the search to the answer's log, its export, the trace and the review page."""

    chunk_id: int
    path: str
    collection: str
    title: str
    heading: str
    url: str | None
    score: float  # the chunk's BM25 score
    bm25_rank: int | None = None  # 1-based rank of the chunk by BM25, None when BM25 did not find it
    dense_rank: int | None = None  # likewise by dense similarity (hybrid mode)
    meaning_rank: int | None = None  # its page's rank by the sentence encoder among the re-ranked pages
    cosine: float | None = None  # the sentence encoder's cosine of the chunk with the query (None: no vector yet)
    strength: str = "strong"  # how strongly it matches: strong, partial or weak (kb.coverage.strength)

    def as_dict(self) -> dict:
        return {
            "chunk_id": self.chunk_id,
            "path": self.path,
            "collection": self.collection,
            "title": self.title,
            "heading": self.heading,
            "url": self.url,
            "score": round(self.score, 4),
            "bm25_rank": self.bm25_rank,
            "dense_rank": self.dense_rank,
            "meaning_rank": self.meaning_rank,
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "strength": self.strength,
        }

    @classmethod
    def from_dict(cls, d: dict) -> HitRecord:
        """A logged hit; one logged by an older version lacks the later fields."""
        return cls(
            d["chunk_id"],
            d["path"],
            d.get("collection", ""),
            d.get("title", ""),
            d.get("heading", ""),
            d.get("url"),
            d.get("score", 0.0),
            d.get("bm25_rank"),
            d.get("dense_rank"),
            d.get("meaning_rank"),
            d.get("cosine"),
            d.get("strength", "strong"),
        )


@dataclass(frozen=True)
class Hit(HitRecord):
    """A hit as the search returns it: the record, with the chunk's lines and how much of the question it covers."""

    lines: tuple[Line, ...] = ()
    coverage: float = 0.0  # weighted share of the question's words the chunk holds
    missing: tuple[str, ...] = ()  # focus words of the question the chunk lacks

    @property
    def record(self) -> HitRecord:
        return HitRecord(**{f.name: getattr(self, f.name) for f in fields(HitRecord)})

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


@dataclass(frozen=True)
class Page:
    path: str
    title: str
    url: str | None
    collection: str


@dataclass
class Ranked:
    """A chunk as the search ranked it, before its row is read."""

    row: int
    bm25_rank: int | None
    dense_rank: int | None
    meaning_rank: int | None = None
    cover: Coverage = field(default=None)  # type: ignore[assignment]
    strength: str = "strong"
    cosine: float | None = None


def read_hits(engine: Engine, scored: list[tuple[int, float, Ranked]], link: Linker) -> list[Hit]:
    """Fetch the rows for (chunk id, BM25 score, how it ranked), keeping their order; chunks gone since the index
    was loaded are dropped."""
    if not scored:
        return []
    ids = [chunk_id for chunk_id, _, _ in scored]
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                chunks.c.id,
                chunks.c.heading,
                chunks.c.anchor,
                chunks.c.lines,
                documents.c.path,
                documents.c.collection,
                documents.c.title,
                documents.c.url,
            )
            .join(documents, documents.c.id == chunks.c.document_id)
            .where(chunks.c.id.in_(ids))
        ).all()
    by_id = {r.id: r for r in rows}
    out = []
    for chunk_id, score, c in scored:
        r = by_id.get(chunk_id)
        if r is None:
            continue
        out.append(
            Hit(
                chunk_id=r.id,
                path=r.path,
                collection=r.collection,
                title=r.title,
                heading=r.heading,
                url=link(r.path, r.url, r.lines, r.anchor),
                score=score,
                lines=tuple(Line(n, t) for n, t in r.lines),
                bm25_rank=c.bm25_rank,
                dense_rank=c.dense_rank,
                coverage=round(c.cover.share, 4) if c.cover else 0.0,
                missing=c.cover.missing_focus if c.cover else (),
                strength=c.strength,
                meaning_rank=c.meaning_rank,
                cosine=c.cosine,
            )
        )
    return out


def read_pages(engine: Engine, paths: Sequence[str], link: Linker) -> list[Page]:
    """The pages at these paths, in the order given (missing ones left out)."""
    if not paths:
        return []
    with engine.connect() as conn:
        rows = conn.execute(
            select(documents.c.path, documents.c.title, documents.c.url, documents.c.collection).where(
                documents.c.path.in_(list(paths))
            )
        ).all()
    by_path = {r.path: r for r in rows}
    return [Page(r.path, r.title, link(r.path, r.url), r.collection) for r in (by_path.get(p) for p in paths) if r is not None]
