"""What the index is now, read the same way by everyone who asks: its version, its size, and the served commit.

Search, health, metrics, the App Home and the review overview read these; only kb.sync writes them.
"""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from kb.models import chunks, documents, index_state, sync_runs


def index_version(conn: Connection) -> int:
    """The newest index a sync has committed (0: none yet)."""
    return conn.execute(select(index_state.c.version).where(index_state.c.id == 1)).scalar() or 0


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
