"""Engines configured the way this project relies on them.

SQLite gets WAL (readers keep serving while a sync writes), enforced foreign
keys, a generous busy timeout (the URL's ?timeout=seconds overrides it), and transactions that SQLAlchemy really begins,
so that a sync can take the write lock up front with BEGIN IMMEDIATE.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

SQLITE_BUSY_TIMEOUT_MS = 30_000


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def create_db_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    busy_ms = int(float(parsed.query.get("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)) * 1000)  # ?timeout=seconds, as pysqlite
    engine = create_engine(parsed.difference_update_query(["timeout"]), connect_args={"timeout": busy_ms / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # pragma: no cover - exercised by every SQLite test
        dbapi_conn.isolation_level = None  # let the "begin" hook below issue BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={busy_ms}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # pragma: no cover - exercised by every SQLite test
        mode = conn.get_execution_options().get("sqlite_begin", "")
        conn.exec_driver_sql(f"BEGIN {mode}".strip())

    return engine
