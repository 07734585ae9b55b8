"""Database schema commands."""

from __future__ import annotations

import click

from bot.cli.options import clear_errors, db_option


@click.group("db")
def db_group() -> None:
    """Database schema commands."""


@db_group.command("upgrade")
@db_option
def db_upgrade(db: str | None) -> None:
    """Apply every migration the database has not had yet."""
    from bot.database import current_revision, upgrade
    from bot.settings import load_settings
    from kb.database import create_db_engine, display_url

    with clear_errors():
        settings = load_settings(database_url=db)
        engine = create_db_engine(settings.database_url)
        before = current_revision(engine)
        upgrade(engine)
        after = current_revision(engine)
    where = display_url(settings.database_url)
    click.echo(f"{where}: schema {before or 'empty'} -> {after}" if before != after else f"{where}: schema already at {after}")


@db_group.command("current")
@db_option
def db_current(db: str | None) -> None:
    """Show the database's schema revision and the newest one."""
    from bot.database import current_revision, existing_database, head_revision
    from bot.settings import load_settings
    from kb.database import create_db_engine

    with clear_errors():
        url = existing_database(load_settings(database_url=db).database_url)
        rev = current_revision(create_db_engine(url))
    click.echo(f"current: {rev or 'empty'}\nhead:    {head_revision()}")
