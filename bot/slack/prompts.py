"""Suggested prompts for the agent view: what the team configured, else what people asked and the bot answered
well, else the docs' own page titles. So the first thing a new user sees is a question this bot can answer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import Engine, func, select

from bot.logs.models import feedback, questions
from bot.slack.mrkdwn import one_line
from kb.clock import now
from kb.models import chunks, documents

MAX_PROMPTS = 4  # Slack shows up to four
TITLE_CHARS = 75
RECENT = timedelta(days=90)
MIN_ASKERS = 3  # a question becomes a prompt only in words several people chose to share
PROMPTS_TITLE = "Ask me about our docs"


def as_prompts(messages: Sequence[str]) -> list[dict]:
    """Slack's prompt objects: a short title on the button, the whole message sent when it is clicked."""
    out = []
    for message in list(dict.fromkeys(" ".join(m.split()) for m in messages if m.strip()))[:MAX_PROMPTS]:
        out.append({"title": one_line(message, TITLE_CHARS), "message": message})
    return out


def asked_and_answered(engine: Engine, collections: Sequence[str] | None, limit: int = MAX_PROMPTS) -> list[str]:
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


def page_topics(engine: Engine, collections: Sequence[str] | None, limit: int = MAX_PROMPTS) -> list[str]:
    """Questions about the docs' largest pages, for a bot no one has asked yet."""
    query = (
        select(documents.c.title)
        .join(chunks, chunks.c.document_id == documents.c.id)
        .group_by(documents.c.id, documents.c.title)
        .order_by(func.count().desc(), documents.c.title)
        .limit(limit)
    )
    if collections is not None:
        query = query.where(documents.c.collection.in_(list(collections)))
    with engine.connect() as conn:
        return [f"What do the docs say about {row.title}?" for row in conn.execute(query)]


def suggested_prompts(engine: Engine, configured: Sequence[str], collections: Sequence[str] | None) -> list[dict]:
    if configured:
        return as_prompts(configured)
    return as_prompts([*asked_and_answered(engine, collections), *page_topics(engine, collections)])
