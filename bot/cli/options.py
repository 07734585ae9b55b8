"""What every command shares: the options, the runtime, and known failures as one line."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from sqlalchemy.exc import OperationalError, ProgrammingError

from kb.errors import SupportbotError

if TYPE_CHECKING:  # the rest is imported by the command that uses it, so `--help` and `logs` start fast
    from bot.runtime import Runtime


def db_option(f):
    return click.option("--db", "db", metavar="URL", help="Database URL (overrides DATABASE_URL).")(f)


def docs_option(f):
    return click.option(
        "--docs", "docs", metavar="DIR", type=click.Path(path_type=Path), help="Docs folder (overrides DOCS_DIR)."
    )(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(f)


@contextmanager
def clear_errors():
    """Known failures become one clear line and an exit code, never a traceback."""
    try:
        yield
    except SupportbotError as e:  # the family's message is written for the user; busy syncs exit 3
        click.echo(f"Error: {e}", err=True)
        sys.exit(e.exit_code)
    except (OperationalError, ProgrammingError) as e:
        first = (str(e.orig).strip().splitlines() or [type(e.orig).__name__])[0]
        raise click.ClickException(f"database error: {first} (DATABASE_URL)")


def runtime_for(db: str | None, docs: Path | None = None, *, reads_only: bool = False) -> Runtime:
    """reads_only: a command that only reads the log refuses a SQLite file that is not there, and creates nothing."""
    from bot.database import existing_database
    from bot.runtime import Runtime
    from bot.settings import load_settings

    settings = load_settings(database_url=db, docs_dir=docs)
    if reads_only:
        existing_database(settings.database_url)
    return Runtime(settings)


def answerer_option(f):
    return click.option(
        "--answerer",
        type=click.Choice(["local", "claude"]),
        help="Who answers (default: claude with ANTHROPIC_API_KEY, else local).",
    )(f)


def needs_key(rt: Runtime, answerer: str | None) -> None:
    from bot.settings import ConfigError

    if answerer == "claude" and not rt.settings.anthropic_api_key:
        raise ConfigError("--answerer claude needs ANTHROPIC_API_KEY (in the environment or .env)")


def share_option(name: str, help: str):
    """An eval threshold: a share from 0 to 1, off (0) unless given."""
    return click.option(name, type=click.FloatRange(0, 1), default=0.0, show_default=True, help=help)
