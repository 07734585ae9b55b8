"""Opening the database: an engine at the current schema, migrating an empty one by itself."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path

import tenacity
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import OperationalError

import migrations
from kb.database import create_db_engine, display_url, is_sqlite, sqlite_path
from kb.errors import SupportbotError

log = logging.getLogger(__name__)

_MIGRATION_LOCK = 7_391_001  # PostgreSQL advisory lock id: one migrator at a time


class SchemaOutOfDate(SupportbotError, RuntimeError):
    pass


class DatabaseUnavailable(SupportbotError, RuntimeError):
    pass


class NoDatabase(SupportbotError, FileNotFoundError):
    pass


def existing_database(url: str) -> str:
    """For commands that only read: a SQLite file that is not there is named, never silently created empty
    (an empty log would read as "no gaps")."""
    path = sqlite_path(url)
    if path is not None and not path.exists():
        raise NoDatabase(f"no database at {path} (DATABASE_URL or --db): run `supportbot sync` there first, or point --db at it")
    return url


def retrying(seconds: float) -> tenacity.Retrying:
    """Retry a database write through a passing outage (a locked SQLite file, a PostgreSQL restart) for up to
    `seconds`, backing off from 0.2 s to 2 s; then the last error is raised."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(OperationalError),
        wait=tenacity.wait_exponential(multiplier=0.2, max=2),
        stop=tenacity.stop_after_delay(seconds),
        reraise=True,
    )


def alembic_config():
    from alembic.config import Config  # Alembic loads only to migrate: reading commands stay fast

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrations.__file__).parent))
    return cfg


def head_revision() -> str:
    return migrations.HEAD


def current_revision(engine: Engine) -> str | None:
    """The revision Alembic stamped (its alembic_version table), or None for an empty database."""
    with engine.connect() as conn:
        return _revision(conn)


def _revision(conn) -> str | None:
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    with _migration_lock(engine) as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        before = _revision(conn)
        command.upgrade(cfg, revision)
        after = _revision(conn)
    if after != before:  # one line for the operator; Alembic's own line per migration stays at its INFO, unshown
        log.info("database schema %s: now at revision %s", "upgraded" if before else "created", after)


def open_database(url: str) -> Engine:
    """An engine whose schema is current; an empty database is created from the migrations."""
    engine = create_db_engine(url)
    try:
        current = current_revision(engine)
    except OperationalError as e:
        raise DatabaseUnavailable(f"cannot reach the database {display_url(url)} (DATABASE_URL): {first_line(e)}") from e
    if current is None:
        upgrade(engine)
    elif current != head_revision():
        raise SchemaOutOfDate(
            f"the database is at schema revision {current}, this supportbot needs {head_revision()}: run `supportbot db upgrade`"
        )
    return engine


@contextmanager
def _migration_lock(engine: Engine):
    """One migrator at a time: PostgreSQL's advisory lock on this schema, SQLite's write lock taken up front (a deferred
    transaction that later needs to write can fail at once with "database is locked")."""
    with engine.execution_options(sqlite_begin="IMMEDIATE").begin() as conn:
        if not is_sqlite(engine):
            conn.execute(text("SELECT pg_advisory_xact_lock(:k, hashtext(current_schema()))"), {"k": _MIGRATION_LOCK})
        yield conn


def first_line(e: Exception) -> str:
    """A database driver's error, as one line."""
    text = str(getattr(e, "orig", None) or e).strip()
    return text.splitlines()[0] if text else type(e).__name__
