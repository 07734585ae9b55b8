"""Opening the database: an engine at the current schema, migrating an empty one by itself."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import tenacity
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

import migrations
from kb.database import create_db_engine, is_sqlite
from kb.errors import SupportbotError

_MIGRATION_LOCK = 7_391_001  # PostgreSQL advisory lock id: one migrator at a time


class SchemaOutOfDate(SupportbotError, RuntimeError):
    pass


def retrying(seconds: float) -> tenacity.Retrying:
    """Retry a database write through a passing outage (a locked SQLite file, a PostgreSQL restart) for up to
    `seconds`, backing off from 0.2 s to 2 s; then the last error is raised."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(OperationalError),
        wait=tenacity.wait_exponential(multiplier=0.2, max=2),
        stop=tenacity.stop_after_delay(seconds),
        reraise=True,
    )


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrations.__file__).parent))
    return cfg


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    with _migration_lock(engine) as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def open_database(url: str) -> Engine:
    """An engine whose schema is current; an empty database is created from the migrations."""
    engine = create_db_engine(url)
    current = current_revision(engine)
    if current is None:
        upgrade(engine)
    elif current != head_revision():
        raise SchemaOutOfDate(
            f"the database is at schema revision {current}, this supportbot needs {head_revision()}: run `supportbot db upgrade`"
        )
    return engine


@contextmanager
def _migration_lock(engine: Engine):
    """One migrator at a time: PostgreSQL's advisory lock, SQLite's write lock taken up front (a deferred
    transaction that later needs to write can fail at once with "database is locked")."""
    with engine.execution_options(sqlite_begin="IMMEDIATE").begin() as conn:
        if not is_sqlite(engine):
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
        yield conn
