"""Hand-overs to a person, as the log keeps them: the hand-over post, the asker's thread, and the state
(open -> answered when a person first replies -> resolved). Both Slack sides and the review read it from here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, insert, select, update

from bot.logs.models import handovers, questions
from kb.clock import now

STATES = ("open", "answered", "resolved")


@dataclass(frozen=True)
class Handover:
    question_id: int
    post_channel: str
    post_ts: str
    asker_channel: str
    asker_thread: str
    asker_user: str | None
    state: str
    created_at: datetime
    first_reply_at: datetime | None = None
    resolved_at: datetime | None = None
    resolved_by: str | None = None
    team: str | None = None  # the question's workspace
    question: str = ""  # the question's text


def _read(conn, where) -> Handover | None:
    row = conn.execute(
        select(handovers, questions.c.team, questions.c.question)
        .join(questions, questions.c.id == handovers.c.question_id)
        .where(where)
    ).first()
    return Handover(**row._mapping) if row else None


def open_handover(
    engine: Engine, question_id: int, post: tuple[str, str], asker: tuple[str, str], asker_user: str | None
) -> None:
    """post: (the escalation channel, the hand-over post's ts); asker: (channel, thread) where the question was asked."""
    with engine.begin() as conn:
        conn.execute(
            insert(handovers).values(
                question_id=question_id,
                post_channel=post[0],
                post_ts=post[1],
                asker_channel=asker[0],
                asker_thread=asker[1],
                asker_user=asker_user,
                state="open",
                created_at=now(),
            )
        )


def handover_of(engine: Engine, question_id: int) -> Handover | None:
    with engine.connect() as conn:
        return _read(conn, handovers.c.question_id == question_id)


def handover_at_post(engine: Engine, channel: str, thread_ts: str) -> Handover | None:
    """The hand-over whose post starts this thread of the escalation channel."""
    with engine.connect() as conn:
        return _read(conn, (handovers.c.post_channel == channel) & (handovers.c.post_ts == thread_ts))


def open_handover_in(engine: Engine, channel: str, thread_ts: str) -> Handover | None:
    """The hand-over, not resolved yet, of the question asked in this thread (the newest, if several)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(handovers.c.question_id)
            .where(
                handovers.c.asker_channel == channel,
                handovers.c.asker_thread == thread_ts,
                handovers.c.state != "resolved",
            )
            .order_by(handovers.c.question_id.desc())
            .limit(1)
        ).scalar()
        return None if row is None else _read(conn, handovers.c.question_id == row)


def first_reply(engine: Engine, question_id: int) -> float | None:
    """A person replied: an open hand-over becomes answered. The seconds since the hand-over, the first time only."""
    with engine.begin() as conn:
        at = now()
        done = conn.execute(
            update(handovers)
            .where(handovers.c.question_id == question_id, handovers.c.state == "open")
            .values(state="answered", first_reply_at=at)
        )
        if done.rowcount != 1:
            return None
        created = conn.execute(select(handovers.c.created_at).where(handovers.c.question_id == question_id)).scalar_one()
    return max(0.0, (at - _aware(created, at)).total_seconds())


def resolve(engine: Engine, question_id: int, user: str | None) -> bool:
    """Mark resolved, once: False when it already was (a second click changes nothing)."""
    with engine.begin() as conn:
        done = conn.execute(
            update(handovers)
            .where(handovers.c.question_id == question_id, handovers.c.state != "resolved")
            .values(state="resolved", resolved_at=now(), resolved_by=user)
        )
    return done.rowcount == 1


def _aware(value: datetime, like: datetime) -> datetime:
    """SQLite gives back naive datetimes: read them in the zone they were written in."""
    return value if value.tzinfo else value.replace(tzinfo=like.tzinfo)
