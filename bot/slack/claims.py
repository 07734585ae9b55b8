"""Answering each Slack message exactly once, across retries, twins, processes and crashes.

Slack retries events it thinks were not acknowledged, redelivers over Socket Mode, and sends a
channel @mention twice (app_mention and message). Each message is claimed in the database under
its event id and under (channel, ts) in one transaction: the first claim wins, in any process.

A claim is also a small durable job: it stores what answering needs, its owner process and a lease
that the owner renews while it works. Slack never redelivers an event it saw acknowledged, so when
the owner dies (kill -9, a crash, a lost host) its claims' leases run out and any process - another
one, or the same bot restarted - takes them over and answers, or apologises when they are too old.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Engine, Index, String, Table, and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from kb.clock import now
from kb.models import metadata

claims = Table(
    "slack_claims",
    metadata,
    Column("key", String(200), primary_key=True),  # "event:Ev123" or "msg:C123:1700000000.000100"
    Column("claimed_at", DateTime(timezone=True), nullable=False),
    Column("answered_at", DateTime(timezone=True)),
    Column("owner", String(120)),  # the process answering it
    Column("lease_until", DateTime(timezone=True)),  # the owner renews it; past it, anyone may take over
    Column("job", JSON(none_as_null=True)),  # on the msg: key, what answering needs (a Job)
    Index("ix_slack_claims_open", "answered_at", "lease_until"),
)

OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"  # this process
LEGACY_STALE = timedelta(minutes=5)  # a claim made before leases existed


@dataclass(frozen=True)
class Job:
    """One message to answer, as stored with its claim: enough to answer it from any process."""

    channel: str
    ts: str
    root: str  # the thread to answer in
    text: str  # the question, the bot's mention removed
    user: str | None
    team: str | None
    is_dm: bool
    has_files: bool
    bot_user_id: str | None
    channel_type: str | None = None  # as the event said ("channel", "group", "im", "mpim"); an app_mention says none
    stream_ts: str | None = None  # the answer message a process started streaming: whoever finishes the job replaces it

    @property
    def keys(self) -> list[str]:
        return [f"msg:{self.channel}:{self.ts}"]


def keys_for(event_id: str | None, channel: str, ts: str) -> list[str]:
    return ([f"event:{event_id}"] if event_id else []) + [f"msg:{channel}:{ts}"]


def claim(engine: Engine, keys: list[str], job: Job | None = None, lease: timedelta = timedelta(seconds=30)) -> bool:
    """True if this process now owns the message; False if it is (being) answered elsewhere."""
    t = now()
    rows: list[dict[str, Any]] = [
        {"key": k, "claimed_at": t, "owner": OWNER, "lease_until": t + lease, "job": None} for k in keys
    ]
    if job is not None:
        rows[-1]["job"] = asdict(job)
    try:
        with engine.begin() as conn:
            conn.execute(insert(claims), rows)
        return True
    except IntegrityError:
        pass
    return take_over(engine, keys[-1], lease)


def take_over(engine: Engine, key: str, lease: timedelta) -> bool:
    """Take a claim whose owner stopped renewing it and whose answer was never posted."""
    t = now()
    expired = or_(claims.c.lease_until < t, and_(claims.c.lease_until.is_(None), claims.c.claimed_at < t - LEGACY_STALE))
    with engine.begin() as conn:
        taken = conn.execute(
            update(claims)
            .where(claims.c.key == key, claims.c.answered_at.is_(None), expired)
            .values(owner=OWNER, lease_until=t + lease)
        ).rowcount
    return taken == 1


def reclaim(engine: Engine, key: str, lease: timedelta) -> bool:
    """Take back a claim this process held while the database was away: still ours and unanswered, or its lease ran
    out and no other process took it over meanwhile."""
    t = now()
    with engine.begin() as conn:
        taken = conn.execute(
            update(claims)
            .where(claims.c.key == key, claims.c.answered_at.is_(None), or_(claims.c.owner == OWNER, claims.c.lease_until < t))
            .values(owner=OWNER, lease_until=t + lease)
        ).rowcount
    return taken == 1


def note_stream(engine: Engine, job: Job) -> None:
    """Store with the claim the message an answer is streaming into, so a process that takes the job over replaces
    that half-written message instead of posting a second answer beside it."""
    with engine.begin() as conn:
        conn.execute(update(claims).where(claims.c.key == job.keys[0]).values(job=asdict(job)))


def renew(engine: Engine, lease: timedelta) -> int:
    """Extend the leases of this process's unanswered claims: it is alive and still working on them."""
    with engine.begin() as conn:
        return conn.execute(
            update(claims).where(claims.c.owner == OWNER, claims.c.answered_at.is_(None)).values(lease_until=now() + lease)
        ).rowcount


def release(engine: Engine) -> int:
    """End this process's leases now (it is stopping): another process, or the next start, takes them over."""
    with engine.begin() as conn:
        return conn.execute(
            update(claims).where(claims.c.owner == OWNER, claims.c.answered_at.is_(None)).values(lease_until=now())
        ).rowcount


def orphans(engine: Engine, limit: int = 50) -> list[tuple[str, Job, datetime]]:
    """Unanswered claims whose lease ran out and that carry a job: (key, job, claimed_at), oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(claims.c.key, claims.c.job, claims.c.claimed_at)
            .where(claims.c.answered_at.is_(None), claims.c.lease_until < now(), claims.c.job.is_not(None))
            .order_by(claims.c.claimed_at)
            .limit(limit)
        ).all()
    return [(key, Job(**job), claimed_at) for key, job, claimed_at in rows if isinstance(job, dict)]


def mark_answered(engine: Engine, keys: list[str]) -> None:
    with engine.begin() as conn:
        conn.execute(update(claims).where(or_(*(claims.c.key == k for k in keys))).values(answered_at=now()))


def forget(engine: Engine, keys: list[str]) -> None:
    """Drop claims whose work could not be done and may be tried again at once (a share Slack refused)."""
    with engine.begin() as conn:
        conn.execute(delete(claims).where(claims.c.key.in_(keys), claims.c.answered_at.is_(None)))
