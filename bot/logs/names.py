"""People's and channels' names as the bot learned them from Slack, so the review page says who and where (the IDs
stay in tooltips and the export). The bot writes a name when it first meets a person or channel in a process; the
review page only reads."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from sqlalchemy import Column, Engine, Table, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from bot.logs.models import channels, people
from kb.clock import now

log = logging.getLogger(__name__)


def _remember(engine: Engine, table: Table, key: Column, id_: str, name: str) -> None:
    """Keep a name; a database that cannot take it now is logged and passed over: a name is a nicety, never the
    reason an answer or a hand-over fails."""
    values = {"name": name[:255], "seen_at": now()}
    try:
        with engine.begin() as conn:
            if conn.execute(update(table).where(key == id_).values(**values)).rowcount:
                return
        with engine.begin() as conn:
            conn.execute(insert(table).values({key.name: id_, **values}))
    except IntegrityError:  # another process wrote it meanwhile: its name is as good
        pass
    except SQLAlchemyError as e:
        log.info("could not keep the name of %s: %s", id_, type(e).__name__)


def remember_person(engine: Engine, user_id: str, name: str) -> None:
    _remember(engine, people, people.c.user_id, user_id, name)


def remember_channel(engine: Engine, channel_id: str, name: str) -> None:
    _remember(engine, channels, channels.c.channel_id, channel_id, name)


def names_of(engine: Engine, user_ids: Iterable[str | None]) -> dict[str, str]:
    wanted = sorted({u for u in user_ids if u})
    if not wanted:
        return {}
    with engine.connect() as conn:
        return dict(conn.execute(select(people.c.user_id, people.c.name).where(people.c.user_id.in_(wanted))).all())


def channel_names(engine: Engine) -> dict[str, str]:
    """Every channel's name known: as many as channels the bot was asked in, so one small read a page."""
    with engine.connect() as conn:
        return dict(conn.execute(select(channels.c.channel_id, channels.c.name)).all())
