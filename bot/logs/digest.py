"""The week for a docs owner, without going to look: questions with their answered and helpful rates, the top
gaps, answers a docs change overtook, and what people marked not helpful and why. Read from the log; bot.slack.digest
writes it for Slack and the terminal."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Engine, func, select

from bot.logs.gaps import Gap, gaps
from bot.logs.models import feedback, questions
from kb.clock import now

TOP_GAPS = 5
LISTED = 10  # stale answers and not-helpful answers listed; the rest are counted


@dataclass
class Digest:
    since: datetime
    until: datetime
    by_status: dict[str, int] = field(default_factory=dict)
    helpful: int = 0
    not_helpful: int = 0
    gaps: list[Gap] = field(default_factory=list)
    stale: list[dict] = field(default_factory=list)  # {id, question, paths}: newest first
    stale_count: int = 0
    unhelpful: list[dict] = field(default_factory=list)  # {id, question, reason}: newest first
    unhelpful_count: int = 0

    @property
    def asked(self) -> int:
        return sum(self.by_status.values())


def digest(engine: Engine, days: int = 7) -> Digest:
    until = now()
    since = until - timedelta(days=days)
    asked = (questions.c.source != "eval", questions.c.created_at >= since)
    d = Digest(since, until, gaps=gaps(engine, since=f"{days}d")[:TOP_GAPS])
    with engine.connect() as conn:
        d.by_status = dict(
            conn.execute(select(questions.c.status, func.count()).where(*asked).group_by(questions.c.status)).all()
        )
        votes: dict[str, int] = dict(
            conn.execute(
                select(feedback.c.value, func.count())
                .join(questions, questions.c.id == feedback.c.question_id)
                .where(*asked)
                .group_by(feedback.c.value)
            ).all()
        )
        d.helpful, d.not_helpful = votes.get("up", 0), votes.get("down", 0)
        stale = (questions.c.source != "eval", questions.c.stale_at >= since)
        d.stale_count = conn.execute(select(func.count()).where(*stale)).scalar_one()
        for r in conn.execute(
            select(questions.c.id, questions.c.question, questions.c.stale)
            .where(*stale)
            .order_by(questions.c.stale_at.desc(), questions.c.id.desc())
            .limit(LISTED)
        ):
            d.stale.append({"id": r.id, "question": r.question, "paths": sorted({s["path"] for s in r.stale or []})})
        down = (feedback.c.value == "down", feedback.c.created_at >= since, questions.c.source != "eval")
        joined = select(func.count()).select_from(feedback.join(questions, questions.c.id == feedback.c.question_id))
        d.unhelpful_count = conn.execute(joined.where(*down)).scalar_one()
        for r in conn.execute(
            select(questions.c.id, questions.c.question, feedback.c.reason)
            .join(questions, questions.c.id == feedback.c.question_id)
            .where(*down)
            .order_by(feedback.c.created_at.desc(), feedback.c.id.desc())
            .limit(LISTED)
        ):
            d.unhelpful.append({"id": r.id, "question": r.question, "reason": r.reason})
    return d
