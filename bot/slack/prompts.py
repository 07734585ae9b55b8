"""Suggested prompts for the agent view: what the team configured, else what people asked and the bot answered
well, else the docs' own page titles. So the first thing a new user sees is a question this bot can answer."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine

from bot.logs.store import asked_and_answered
from bot.slack.mrkdwn import one_line
from kb.state import largest_pages

MAX_PROMPTS = 4  # Slack shows up to four
TITLE_CHARS = 75
PROMPTS_TITLE = "Ask me about our docs"


def as_prompts(messages: Sequence[str]) -> list[dict]:
    """Slack's prompt objects: a short title on the button, the whole message sent when it is clicked."""
    out = []
    for message in list(dict.fromkeys(" ".join(m.split()) for m in messages if m.strip()))[:MAX_PROMPTS]:
        out.append({"title": one_line(message, TITLE_CHARS), "message": message})
    return out


def page_topics(engine: Engine, collections: Sequence[str] | None, limit: int = MAX_PROMPTS) -> list[str]:
    """Questions about the docs' largest pages, for a bot no one has asked yet."""
    with engine.connect() as conn:
        return [f"What do the docs say about {title}?" for title in largest_pages(conn, collections, limit)]


def suggested_prompts(engine: Engine, configured: Sequence[str], collections: Sequence[str] | None) -> list[dict]:
    if configured:
        return as_prompts(configured)
    return as_prompts([*asked_and_answered(engine, collections, MAX_PROMPTS), *page_topics(engine, collections)])
