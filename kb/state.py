"""What the index is now, read the same way by everyone who asks: its version, its size, and the served commit.

Search, health, metrics, the scheduler, the App Home, the suggested prompts and the review overview read these;
only kb.sync writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Row, func, select

from kb.models import chunks, documents, index_state, sync_runs


def index_version(conn: Connection) -> int:
    """The newest index a sync has committed (0: none yet)."""
    return conn.execute(select(index_state.c.version).where(index_state.c.id == 1)).scalar() or 0


def index_stamp(conn: Connection) -> tuple[int, str]:
    """The newest index's version and when it was committed ("" before any): version numbers start over in a
    database made again, the moment does not."""
    row = conn.execute(select(index_state.c.version, index_state.c.updated_at).where(index_state.c.id == 1)).first()
    return (row.version, row.updated_at.isoformat()) if row is not None else (0, "")


def chunk_count(conn: Connection) -> int:
    return conn.execute(select(func.count()).select_from(chunks)).scalar_one()


def synced_commit(conn: Connection, version: int | None) -> str | None:
    """The git commit the index at this version was synced from (the newest ok run that left it), if any."""
    return conn.execute(
        select(sync_runs.c.source_commit)
        .where(sync_runs.c.status == "ok", sync_runs.c.index_version == version)
        .order_by(sync_runs.c.id.desc())
        .limit(1)
    ).scalar()


def known_pages(conn: Connection, paths: list[str]) -> set[str]:
    """The ones of these paths that are pages of the index."""
    return set(conn.execute(select(documents.c.path).where(documents.c.path.in_(paths))).scalars()) if paths else set()


def pages_by_collection(conn: Connection) -> dict[str, int]:
    return dict(conn.execute(select(documents.c.collection, func.count()).group_by(documents.c.collection)).all())


def last_sync(conn: Connection) -> Row | None:
    """The newest finished sync: (finished_at, status)."""
    return conn.execute(
        select(sync_runs.c.finished_at, sync_runs.c.status)
        .where(sync_runs.c.finished_at.is_not(None))
        .order_by(sync_runs.c.id.desc())
        .limit(1)
    ).first()


def last_good_sync_at(conn: Connection) -> datetime | None:
    return conn.execute(
        select(sync_runs.c.finished_at).where(sync_runs.c.status == "ok").order_by(sync_runs.c.id.desc()).limit(1)
    ).scalar()


def largest_pages(conn: Connection, collections: Sequence[str] | None, limit: int) -> list[str]:
    """The titles of the pages with the most passages (in these collections)."""
    query = (
        select(documents.c.title)
        .join(chunks, chunks.c.document_id == documents.c.id)
        .group_by(documents.c.id, documents.c.title)
        .order_by(func.count().desc(), documents.c.title)
        .limit(limit)
    )
    if collections is not None:
        query = query.where(documents.c.collection.in_(list(collections)))
    return list(conn.execute(query).scalars())


def page_lines(conn: Connection, path: str) -> dict[int, str]:
    """The page's current lines by number, as indexed (empty when the page is gone)."""
    lines: dict[int, str] = {}
    rows = conn.execute(
        select(chunks.c.lines).join(documents, documents.c.id == chunks.c.document_id).where(documents.c.path == path)
    )
    for (chunk_lines,) in rows:
        for number, text in chunk_lines:
            lines[number] = text
    return lines


def page(conn: Connection, path: str) -> Row | None:
    """A page's title, collection and front-matter url, or None when the index has no such page."""
    return conn.execute(
        select(documents.c.title, documents.c.collection, documents.c.url).where(documents.c.path == path)
    ).first()
