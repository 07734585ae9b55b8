"""Syncs one at a time, and a record of each run: its report.

The sync lock is taken by the sync transaction's first statement (SQLite: BEGIN IMMEDIATE; PostgreSQL: a
transaction-scoped advisory lock), so it is released by commit, rollback or the death of the process, and two syncs,
even in two processes sharing one PostgreSQL, never run at once. Each run is a row of kb_sync_runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, insert, text, update
from sqlalchemy.exc import OperationalError

from kb.clock import now
from kb.database import is_sqlite
from kb.encode import EncodeReport
from kb.errors import SupportbotError
from kb.models import sync_runs
from kb.scan import DocProblem

SYNC_LOCK_ID = 7_391_002  # PostgreSQL advisory lock id


class SyncBusy(SupportbotError, RuntimeError):
    """Another sync holds the lock."""

    exit_code = 3  # `supportbot sync` exits with it, so a parent process can tell "busy" from "failed"


@dataclass
class SyncReport:
    run_id: int | None
    status: str
    docs_dir: str
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    embedded: int = 0
    vectors_kept: int = 0  # re-ranking vectors of replaced chunks given to chunks that read the same (kb.encode)
    problems: list[DocProblem] = field(default_factory=list)
    chunks: int = 0
    index_version: int = 0
    seconds: float = 0.0
    source_commit: str | None = None
    stale_answers: int = 0  # logged answers this sync overtook: counted by the answer log's owner (bot), not here
    encoding: EncodeReport | None = None  # the encoder's vectors filled in after the index committed (kb.encode)

    @property
    def skipped(self) -> int:
        return len({p.path for p in self.problems if p.action in ("skipped", "kept previous version")})

    @property
    def new_problems(self) -> list[DocProblem]:
        return [p for p in self.problems if p.new]

    @property
    def changed_anything(self) -> bool:
        return bool(self.added or self.changed or self.removed or self.embedded)

    def as_dict(self) -> dict:
        return {
            "run_id": self.run_id,
            "status": self.status,
            "docs_dir": self.docs_dir,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "embedded": self.embedded,
            "vectors_kept": self.vectors_kept,
            "skipped": self.skipped,
            "chunks": self.chunks,
            "index_version": self.index_version,
            "seconds": round(self.seconds, 3),
            "problems": [p.as_dict() for p in self.problems],
            "source_commit": self.source_commit,
            "stale_answers": self.stale_answers,
            "encoding": self.encoding.as_dict() if self.encoding else None,
        }


def record_failed_run(engine: Engine, docs_dir: str, error: str) -> None:
    """A sync that failed before it could start (its docs could not be fetched), in the history beside the rest."""
    with engine.begin() as conn:
        conn.execute(
            insert(sync_runs).values(
                started_at=now(), finished_at=now(), status="failed", docs_dir=docs_dir, problems=[], error=error
            )
        )


def sync_lock_held(engine: Engine) -> bool:
    """Whether a sync is running right now (in any process sharing the database)."""
    try:
        with sync_transaction(engine, lock_timeout_s=0.05):
            return False
    except SyncBusy:
        return True


def start_run(engine: Engine, report: SyncReport, lock_timeout_s: float) -> int:
    try:
        with _short_wait(engine, lock_timeout_s) as conn, conn.begin():
            return conn.execute(
                insert(sync_runs)
                .values(started_at=now(), status="running", docs_dir=report.docs_dir, problems=[])
                .returning(sync_runs.c.id)
            ).scalar_one()
    except OperationalError as e:
        if _is_lock_timeout(e):
            raise SyncBusy(BUSY_MESSAGE) from e
        raise


def finish_run(conn: Connection, report: SyncReport, error: str | None = None) -> None:
    conn.execute(
        update(sync_runs)
        .where(sync_runs.c.id == report.run_id)
        .values(
            finished_at=now(),
            status=report.status,
            added=len(report.added),
            changed=len(report.changed),
            removed=len(report.removed),
            unchanged=report.unchanged,
            skipped=report.skipped,
            chunks=report.chunks,
            index_version=report.index_version if report.status == "ok" else None,
            problems=[p.as_dict() for p in report.problems],
            error=error,
            source_commit=report.source_commit,
        )
    )


BUSY_MESSAGE = "another sync is running; try again when it finishes"


def _is_lock_timeout(e: OperationalError) -> bool:
    return "database is locked" in str(e) or getattr(e.orig, "sqlstate", None) == "55P03"


@contextmanager
def _short_wait(engine: Engine, seconds: float) -> Iterator[Connection]:
    """A connection that waits at most `seconds` for SQLite's write lock: held longer means another sync."""
    conn = engine.connect()
    driver: Any = conn.connection.driver_connection if is_sqlite(engine) else None  # sqlite3's own connection
    usual = None
    try:
        if driver is not None:
            usual = driver.execute("PRAGMA busy_timeout").fetchone()[0]
            driver.execute(f"PRAGMA busy_timeout={int(seconds * 1000)}")
        yield conn
    finally:
        if driver is not None and usual is not None and not conn.invalidated:  # back to the engine's own timeout
            driver.execute(f"PRAGMA busy_timeout={int(usual)}")
        conn.close()


@contextmanager
def sync_transaction(engine: Engine, lock_timeout_s: float = 2.0) -> Iterator[Connection]:
    """The sync transaction, holding the sync lock from its first statement.

    SQLite: BEGIN IMMEDIATE takes the database's write lock. PostgreSQL: a
    transaction-scoped advisory lock on this schema (two bots that share a database in two schemas do not wait for
    each other's syncs). Either is released by commit, rollback or
    the death of the process, so a killed sync never leaves a stale lock.
    Waits up to lock_timeout_s, then raises SyncBusy.
    """
    with _short_wait(engine, lock_timeout_s) as conn:
        try:
            if is_sqlite(engine):
                tx = conn.execution_options(sqlite_begin="IMMEDIATE").begin()
            else:
                tx = conn.begin()
                conn.execute(text(f"SET LOCAL lock_timeout = '{int(lock_timeout_s * 1000)}ms'"))
                conn.execute(text("SELECT pg_advisory_xact_lock(:k, hashtext(current_schema()))"), {"k": SYNC_LOCK_ID})
                conn.execute(text("SET LOCAL lock_timeout = 0"))
        except OperationalError as e:
            if _is_lock_timeout(e):
                raise SyncBusy(BUSY_MESSAGE) from e
            raise
        with tx:
            yield conn
