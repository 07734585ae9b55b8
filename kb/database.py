"""Engines configured the way this project relies on them.

SQLite gets WAL (readers keep serving while a sync writes), enforced foreign
keys, a generous busy timeout (the URL's ?timeout=seconds overrides it), and transactions that SQLAlchemy really begins,
so that a sync can take the write lock up front with BEGIN IMMEDIATE.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import tenacity
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from kb.errors import SupportbotError

SQLITE_BUSY_TIMEOUT_MS = 30_000
SCHEMES = "sqlite:///path/to/supportbot.db or postgresql+psycopg://user@host:5432/dbname"


class DatabaseConfigError(SupportbotError, ValueError):
    pass


def parse_database_url(url: str) -> URL:
    """The URL, if it names a database supportbot can use; otherwise a message saying which ones it can."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseConfigError(f"DATABASE_URL is not a database URL; use {SCHEMES}") from None
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend in ("postgres", "postgresql") and parsed.drivername in ("postgres", "postgresql"):
        return parsed.set(drivername="postgresql+psycopg")  # the driver installed with supportbot
    if (backend == "sqlite" and driver == "pysqlite") or parsed.drivername == "postgresql+psycopg":
        return parsed
    raise DatabaseConfigError(f"DATABASE_URL uses {parsed.drivername}://, which supportbot does not support; use {SCHEMES}")


def display_url(url: str | URL) -> str:
    """The URL for a message: the password hidden."""
    return (url if isinstance(url, URL) else make_url(url)).render_as_string(hide_password=True)


def sqlite_path(url: str) -> Path | None:
    """The file a SQLite URL names (None for other databases and for :memory:)."""
    parsed = parse_database_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database).expanduser().resolve()


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _while_locked(seconds: float) -> tenacity.Retrying:
    """Switching a new SQLite file to WAL takes its lock, and SQLite answers "database is locked" at once rather than
    wait through the busy timeout while another process holds it: three syncs started together on a new file, one
    failed (25 of 600 opens, three processes at a barrier). Retried for as long as the busy timeout would wait."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception(lambda e: isinstance(e, sqlite3.OperationalError) and "locked" in str(e)),
        wait=tenacity.wait_exponential(multiplier=0.02, max=0.5),
        stop=tenacity.stop_after_delay(seconds),
        reraise=True,
    )


def create_db_engine(url: str) -> Engine:
    parsed = parse_database_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    timeout = parsed.query.get("timeout", str(SQLITE_BUSY_TIMEOUT_MS / 1000))
    busy_ms = int(float(timeout if isinstance(timeout, str) else timeout[-1]) * 1000)  # ?timeout=seconds, as pysqlite
    engine = create_engine(parsed.difference_update_query(["timeout"]), connect_args={"timeout": busy_ms / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # pragma: no cover - exercised by every SQLite test
        dbapi_conn.isolation_level = None  # let the "begin" hook below issue BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={busy_ms}")
        for attempt in _while_locked(busy_ms / 1000):
            with attempt:
                cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # pragma: no cover - exercised by every SQLite test
        mode = conn.get_execution_options().get("sqlite_begin", "")
        conn.exec_driver_sql(f"BEGIN {mode}".strip())

    return engine
