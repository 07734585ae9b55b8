"""The week at a glance for a docs owner: volume by status, abstention and helpful rates, latency, what needs
attention, and the index. Counted in the database (GROUP BY day), so it stays fast on a large log; eval runs
are left out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import Engine, Text, case, func, select

from bot.agent.types import STATUSES
from bot.logs.gaps import Gap, gaps
from bot.logs.models import feedback, handovers, questions, team_answers
from bot.logs.report import sync_history
from kb.clock import now
from kb.state import chunk_count, index_version

LATENCY_SAMPLE = 10_000  # median and p95 of the newest answers in the window, at most this many
GAPS_SAMPLE = 1_000  # top gaps among the newest unanswered questions (the Gaps page reads 5,000)


@dataclass
class Overview:
    days: list[str]  # the last `days` dates, oldest first
    per_day: dict[str, list[int]]  # status -> questions that day
    weeks: list[str]  # the weeks' first days, oldest first
    abstention_rate: list[float | None]
    helpful_rate: list[float | None]  # up / (up + down) of the week's rated answers
    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    helpful: int = 0
    not_helpful: int = 0
    fallbacks: int = 0  # answered from the docs' lines because the model failed (status answered, not an error)
    p50_ms: float | None = None
    p95_ms: float | None = None
    recent_not_helpful: list[dict] = field(default_factory=list)
    top_gaps: list[Gap] = field(default_factory=list)
    last_sync: dict | None = None
    chunks: int = 0
    index_version: int | None = None
    people: HandoverFigures = field(default_factory=lambda: HandoverFigures())

    def share(self, status: str) -> float | None:
        return self.by_status.get(status, 0) / self.total if self.total else None

    @property
    def helpful_share(self) -> float | None:
        rated = self.helpful + self.not_helpful
        return self.helpful / rated if rated else None


@dataclass
class HandoverFigures:
    """What people did with the questions the bot handed them, in the window."""

    escalations: int = 0  # questions handed to a person ("Ask a person")
    per_week: list[int] = field(default_factory=list)  # escalations a week, oldest first (the weeks of the chart)
    handovers: int = 0  # of them, conversations (from a thread)
    replied: int = 0  # ... a person replied in
    resolved: int = 0
    median_first_reply_s: float | None = None
    team_answers_waiting: int = 0  # candidates for a docs owner (any age)


def _day(value) -> str:
    return str(value)[:10]  # SQLite gives 'YYYY-MM-DD', PostgreSQL a date


def overview(engine: Engine, days: int = 30, weeks: int = 8) -> Overview:
    today = now().date()
    span = max(days, weeks * 7)
    first = today - timedelta(days=span - 1)
    since = now() - timedelta(days=span)
    asked = (questions.c.source != "eval", questions.c.created_at >= since)
    day = func.date(questions.c.created_at)
    with engine.connect() as conn:
        counts: dict[str, dict[str, int]] = {}
        for d, status, n in conn.execute(
            select(day, questions.c.status, func.count()).where(*asked).group_by(day, questions.c.status)
        ):
            counts.setdefault(_day(d), {})[status] = n
        votes: dict[str, tuple[int, int]] = {}
        up = func.sum(case((feedback.c.value == "up", 1), else_=0))
        down = func.sum(case((feedback.c.value == "down", 1), else_=0))
        for d, u, dn in conn.execute(
            select(day, up, down).join(feedback, feedback.c.question_id == questions.c.id).where(*asked).group_by(day)
        ):
            votes[_day(d)] = (int(u or 0), int(dn or 0))
        recent = (questions.c.source != "eval", questions.c.created_at >= now() - timedelta(days=days))
        latencies = sorted(
            conn.execute(
                select(questions.c.latency_ms).where(*recent).order_by(questions.c.id.desc()).limit(LATENCY_SAMPLE)
            ).scalars()
        )
        fallbacks = conn.execute(
            select(func.count()).where(  # a fallback answer carries the model's error: only those rows are read
                questions.c.error.is_not(None),
                *recent,
                questions.c.problems.cast(Text).like('%"model_fallback"%'),
            )
        ).scalar()
        p50 = latencies[len(latencies) // 2] if latencies else None
        p95 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))] if latencies else None
        unhelpful = conn.execute(
            select(questions.c.id, questions.c.question, feedback.c.created_at)
            .join(feedback, feedback.c.question_id == questions.c.id)
            .where(feedback.c.value == "down", questions.c.source != "eval")
            .order_by(feedback.c.id.desc())
            .limit(5)
        ).mappings()
        recent_not_helpful = [dict(r) for r in unhelpful]
        n_chunks = chunk_count(conn)
        version = index_version(conn)
        people, escalated = _people(conn, now() - timedelta(days=days), since)

    labels = [(first + timedelta(days=i)).isoformat() for i in range(span)]
    shown = labels[-days:]
    result = Overview(
        days=[d[5:] for d in shown],
        per_day={s: [counts.get(d, {}).get(s, 0) for d in shown] for s in STATUSES},
        weeks=[],
        abstention_rate=[],
        helpful_rate=[],
        p50_ms=p50,
        p95_ms=p95,
        fallbacks=int(fallbacks or 0),
        recent_not_helpful=recent_not_helpful,
        top_gaps=gaps(engine, since=f"{days}d", window=GAPS_SAMPLE)[:5],
        last_sync=next(iter(sync_history(engine, 1)), None),
        chunks=n_chunks,
        index_version=version,
        people=people,
    )
    for d in shown:
        for s, n in counts.get(d, {}).items():
            result.by_status[s] = result.by_status.get(s, 0) + n
        u, dn = votes.get(d, (0, 0))
        result.helpful += u
        result.not_helpful += dn
    result.total = sum(result.by_status.values())
    for w in range(weeks):
        week = labels[len(labels) - (weeks - w) * 7 :][:7]
        people.per_week.append(sum(escalated[d] for d in week))
        asked_n = sum(sum(counts.get(d, {}).values()) for d in week)
        abstained = sum(counts.get(d, {}).get("abstained", 0) for d in week)
        u = sum(votes.get(d, (0, 0))[0] for d in week)
        dn = sum(votes.get(d, (0, 0))[1] for d in week)
        result.weeks.append(date.fromisoformat(week[0]).strftime("%b %d"))
        result.abstention_rate.append(abstained / asked_n if asked_n else None)
        result.helpful_rate.append(u / (u + dn) if u + dn else None)
    return result


def _people(conn, window_start: datetime, since: datetime) -> tuple[HandoverFigures, Counter[str]]:
    """What people did in the window, and the questions handed to a person each day since `since` (for the weeks)."""
    escalated = Counter(
        _day(d)
        for d in conn.execute(
            select(func.date(questions.c.escalated_at)).where(
                questions.c.escalated_at.is_not(None), questions.c.escalated_at >= since
            )
        ).scalars()
    )
    rows = conn.execute(
        select(handovers.c.state, handovers.c.created_at, handovers.c.first_reply_at).where(
            handovers.c.created_at >= window_start
        )
    ).all()
    waits = sorted((r.first_reply_at - r.created_at).total_seconds() for r in rows if r.first_reply_at is not None)
    waiting = conn.execute(select(func.count()).select_from(team_answers).where(team_answers.c.state == "candidate")).scalar()
    window = window_start.date().isoformat()
    people = HandoverFigures(
        escalations=sum(n for d, n in escalated.items() if d >= window),
        handovers=len(rows),
        replied=sum(1 for r in rows if r.first_reply_at is not None),
        resolved=sum(1 for r in rows if r.state == "resolved"),
        median_first_reply_s=waits[len(waits) // 2] if waits else None,
        team_answers_waiting=int(waiting or 0),
    )
    return people, escalated
