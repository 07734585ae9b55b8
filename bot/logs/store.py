"""Writing the answer log. One transaction per question, committed before the answer is shown or posted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Literal, get_args

from sqlalchemy import Engine, func, insert, or_, select, true, update
from sqlalchemy.exc import IntegrityError

from bot.agent.types import Answer, logged_sources
from bot.logs.models import cited_pages, feedback, questions, searches
from kb.clock import now

Asked = Literal["cli", "slack", "eval"]
ASKED_FROM: tuple[Asked, ...] = get_args(Asked)


@dataclass(frozen=True)
class Origin:
    """Where a question came from, logged beside it so a reviewer can filter by it and find the thread."""

    source: Asked = "cli"
    team: str | None = None
    channel: str | None = None
    user_id: str | None = None
    thread_ts: str | None = None
    message_ts: str | None = None  # the question's own message (thread_ts when it started the thread)
    visibility: Literal["public", "private"] | None = None  # who could read it where it was asked; None: unknown
    permalink: str | None = None  # the question in its Slack thread, for a reviewer (none for a DM: no one could open it)


def record(engine: Engine, answer: Answer, origin: Origin, index_version: int | None = None, vector: bytes | None = None) -> int:
    """Store a question's whole trace in one transaction; vector: the question's meaning (Runtime.question_vector)."""
    sources = [asdict(s) for s in answer.sources]
    with engine.begin() as conn:
        question_id = conn.execute(
            insert(questions)
            .values(
                created_at=now(),
                source=origin.source,
                team=origin.team,
                channel=origin.channel,
                user_id=origin.user_id,
                thread_ts=origin.thread_ts,
                message_ts=origin.message_ts,
                visibility=origin.visibility,
                permalink=origin.permalink,
                question=answer.question,
                answerer=answer.answerer,
                model=answer.model,
                status=answer.status,
                answer=answer.answer,
                sources=sources,
                cited=answer.cited,
                closest=[asdict(s) for s in answer.closest],
                steps=[asdict(s) for s in answer.steps],
                problems=[p.as_dict() for p in answer.problems],
                usage=answer.usage,
                error=answer.error,
                latency_ms=answer.latency_ms,
                index_version=index_version,
                vector=vector,
            )
            .returning(questions.c.id)
        ).scalar_one()
        if answer.searches:
            conn.execute(
                insert(searches),
                [
                    {
                        "question_id": question_id,
                        "ordinal": n,
                        "query": s.query,
                        "collection": s.collection,
                        "hits": [h.as_dict() for h in s.hits],
                        "ms": s.ms,
                    }
                    for n, s in enumerate(answer.searches)
                ],
            )
        pages = cited_paths(sources, answer.cited)
        if pages:
            conn.execute(insert(cited_pages), [{"question_id": question_id, "path": path} for path in pages])
    return question_id


def cited_paths(sources: list[dict], cited: list[dict]) -> list[str]:
    """The pages an answer's citations point into, from its logged sources and citations (a citation's n is its
    source's number)."""
    by_n = {s["n"]: s["path"] for s in sources or []}
    return sorted({by_n[c["n"]] for c in cited or [] if c.get("n") in by_n})


def record_feedback(
    engine: Engine, question_id: int, value: str, user_id: str | None, team: str | None = None
) -> tuple[int, str] | None:
    """One vote per person per answer: a new vote, a change of mind (recorded as a change, not a second vote), or
    the same click again. Returns the feedback row's id and which of "new", "changed", "same" it was; None when
    there is nothing this person may vote on (no person, another workspace's answer, no such answer).

    The database keeps it one vote (a unique person per answer): of simultaneous first clicks, in any number of
    processes, one inserts and the others find its vote and update it."""
    if value not in ("up", "down"):
        raise ValueError(f"feedback is 'up' or 'down', not {value!r}")
    if user_id is None:
        return None
    with engine.connect() as conn:
        votable = conn.execute(
            select(questions.c.id).where(
                questions.c.id == question_id,
                or_(questions.c.team.is_(None), questions.c.team == team) if team is not None else true(),
            )
        ).first()
    if votable is None:
        return None
    for attempt in range(3):
        try:
            return _vote(engine, question_id, value, user_id)
        except IntegrityError:  # another click inserted this person's vote in between: read it and try again
            if attempt == 2:
                raise
    return None


def _vote(engine: Engine, question_id: int, value: str, user_id: str) -> tuple[int, str]:
    # Read, then write: SQLite must take its write lock up front, or a write committed in between (the answer's
    # own bookkeeping) fails this one at once with "database is locked" instead of waiting its turn.
    with engine.execution_options(sqlite_begin="IMMEDIATE").begin() as conn:
        row = conn.execute(
            select(feedback.c.id, feedback.c.value).where(feedback.c.question_id == question_id, feedback.c.user_id == user_id)
        ).first()
        if row is not None:
            if row.value == value:
                return row.id, "same"
            conn.execute(update(feedback).where(feedback.c.id == row.id).values(value=value, updated_at=now(), reason=None))
            return row.id, "changed"
        new_id = conn.execute(
            insert(feedback)
            .values(question_id=question_id, created_at=now(), user_id=user_id, value=value)
            .returning(feedback.c.id)
        ).scalar_one()
        return new_id, "new"


def record_reason(engine: Engine, feedback_id: int, user_id: str | None, reason: str) -> bool:
    """The reason a person gave for "not helpful", on their own vote only."""
    with engine.begin() as conn:
        done = conn.execute(
            update(feedback)
            .where(feedback.c.id == feedback_id, feedback.c.user_id == user_id, feedback.c.value == "down")
            .values(reason=reason.strip()[:1000] or None)
        )
        return done.rowcount == 1


def escalate(engine: Engine, question_id: int, user_id: str | None, team: str | None, channel: str | None) -> dict | None:
    """Record that a person was asked about this question: the row, the first time; None when it was already
    escalated, does not exist, belongs to another workspace, or the click came from neither its asker nor the
    conversation it was asked in (a forged button value: a DM's question must not reach the support channel)."""
    with engine.begin() as conn:
        done = conn.execute(
            update(questions)
            .where(
                questions.c.id == question_id,
                questions.c.escalated_at.is_(None),
                or_(questions.c.team.is_(None), questions.c.team == team),
                or_(questions.c.user_id == user_id, questions.c.channel == channel)
                if user_id
                else questions.c.channel == channel,
            )
            .values(escalated_at=now(), escalated_by=user_id)
        )
        if done.rowcount != 1:
            return None
        return dict(conn.execute(select(questions).where(questions.c.id == question_id)).mappings().one())


def unescalate(engine: Engine, question_id: int) -> None:
    """The hand-over could not be posted: the question is open to "Ask a person" again."""
    with engine.begin() as conn:
        conn.execute(update(questions).where(questions.c.id == question_id).values(escalated_at=None, escalated_by=None))


def logged_answer(engine: Engine, question_id: int, user_id: str | None, team: str | None) -> Answer | None:
    """The answer this person was given, as logged (to show it again, say in channel); None for someone else's
    question, another workspace's, or one that is not there."""
    with engine.connect() as conn:
        row = conn.execute(
            select(questions).where(questions.c.id == question_id, questions.c.user_id == user_id, questions.c.team == team)
        ).first()
    if row is None or user_id is None:
        return None
    return Answer(
        question=row.question,
        status=row.status,
        answer=row.answer,
        answerer=row.answerer,
        model=row.model,
        sources=logged_sources(row.sources),
        closest=logged_sources(row.closest),
        log_id=row.id,
    )


def answered_in_thread(engine: Engine, channel: str, thread_ts: str) -> bool:
    """Did the bot answer a question in this thread? (Asked of every thread reply in the channels it is in.)"""
    with engine.connect() as conn:
        found = conn.execute(
            select(questions.c.id).where(questions.c.channel == channel, questions.c.thread_ts == thread_ts).limit(1)
        ).first()
    return found is not None


def questions_of(engine: Engine, user_id: str, limit: int = 5) -> list[tuple[str, str, datetime]]:
    """A person's newest questions in Slack: (question, status, when)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(questions.c.question, questions.c.status, questions.c.created_at)
            .where(questions.c.user_id == user_id, questions.c.source == "slack")
            .order_by(questions.c.id.desc())
            .limit(limit)
        )
        return [tuple(row) for row in rows]


RECENT = timedelta(days=90)  # suggested prompts come from questions asked this lately
MIN_ASKERS = 3  # a question becomes a prompt only in words several people chose to share


def asked_and_answered(engine: Engine, collections: Sequence[str] | None, limit: int) -> list[str]:
    """Questions that at least MIN_ASKERS people asked in public channels lately, each starting a thread, that the
    bot answered from these collections and no one marked unhelpful. A DM, a private channel, /ask or a thread
    follow-up never becomes someone else's prompt, and neither does one person's wording (names, numbers, details)."""
    unhelpful = select(feedback.c.question_id).where(feedback.c.value == "down")
    said = func.lower(func.trim(questions.c.question))
    query = (
        select(func.max(questions.c.id).label("last"))
        .where(
            questions.c.source == "slack",
            questions.c.visibility == "public",
            questions.c.message_ts == questions.c.thread_ts,
            questions.c.status == "answered",
            questions.c.created_at >= now() - RECENT,
            questions.c.id.not_in(unhelpful),
            func.length(questions.c.question) <= 200,
        )
        .group_by(said)
        .having(func.count(questions.c.user_id.distinct()) >= MIN_ASKERS)
        .order_by(func.count().desc(), said)
        .limit(limit * 5)
    )
    with engine.connect() as conn:
        last = [row.last for row in conn.execute(query)]
        rows = {
            row.id: row
            for row in conn.execute(
                select(questions.c.id, questions.c.question, questions.c.sources).where(questions.c.id.in_(last))
            )
        }
    allowed = None if collections is None else set(collections)
    return [rows[i].question for i in last if allowed is None or {s.get("collection") for s in rows[i].sources or []} <= allowed][
        :limit
    ]
