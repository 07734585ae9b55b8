"""People's names as the bot learned them from Slack, so the review page says who (the IDs stay in tooltips and
the export). The bot writes a name when it first meets a person in a process; the review page only reads."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from bot.logs.models import people
from kb.clock import now


def remember_person(engine: Engine, user_id: str, name: str) -> None:
    values = {"name": name[:255], "seen_at": now()}
    with engine.begin() as conn:
        if conn.execute(update(people).where(people.c.user_id == user_id).values(**values)).rowcount:
            return
    try:
        with engine.begin() as conn:
            conn.execute(insert(people).values(user_id=user_id, **values))
    except IntegrityError:  # another process wrote it meanwhile: its name is as good
        pass


def names_of(engine: Engine, user_ids: Iterable[str | None]) -> dict[str, str]:
    wanted = sorted({u for u in user_ids if u})
    if not wanted:
        return {}
    with engine.connect() as conn:
        return dict(conn.execute(select(people.c.user_id, people.c.name).where(people.c.user_id.in_(wanted))).all())
