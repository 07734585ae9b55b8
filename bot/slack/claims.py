"""Answering each Slack message exactly once, across retries, twins and processes.

Slack retries events it thinks were not acknowledged, redelivers over Socket Mode, and sends a
channel @mention twice (app_mention and message). Each message is claimed in the database under
its event id and under (channel, ts) in one transaction: the first claim wins, in any process.
A claim whose answer never got posted (the process died) may be taken again after a while, so a
Slack retry can still get the asker an answer.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Column, DateTime, Engine, String, Table, insert, or_, update
from sqlalchemy.exc import IntegrityError

from kb.models import metadata
from kb.sync import now

claims = Table(
    "slack_claims",
    metadata,
    Column("key", String(200), primary_key=True),  # "event:Ev123" or "msg:C123:1700000000.000100"
    Column("claimed_at", DateTime(timezone=True), nullable=False),
    Column("answered_at", DateTime(timezone=True)),
)

STALE_AFTER = timedelta(minutes=5)


def keys_for(event_id: str | None, channel: str, ts: str) -> list[str]:
    return ([f"event:{event_id}"] if event_id else []) + [f"msg:{channel}:{ts}"]


def claim(engine: Engine, keys: list[str]) -> bool:
    """True if this process now owns the message; False if it is (being) answered elsewhere."""
    try:
        with engine.begin() as conn:
            conn.execute(insert(claims), [{"key": k, "claimed_at": now()} for k in keys])
        return True
    except IntegrityError:
        pass
    cutoff = now() - STALE_AFTER
    with engine.begin() as conn:  # take over a claim whose answer never got posted
        taken = conn.execute(
            update(claims)
            .where(claims.c.key == keys[-1], claims.c.answered_at.is_(None), claims.c.claimed_at < cutoff)
            .values(claimed_at=now())
        ).rowcount
    return taken == 1


def mark_answered(engine: Engine, keys: list[str]) -> None:
    with engine.begin() as conn:
        conn.execute(update(claims).where(or_(*(claims.c.key == k for k in keys))).values(answered_at=now()))
