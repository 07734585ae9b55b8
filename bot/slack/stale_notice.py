"""Telling an asker, in their answer's thread, that a page the answer cited has changed: what the docs say now,
with its source, and which docs owner asked for it to be said. Once per answer, whoever clicks and wherever."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from bot.agent.types import Source
from bot.logs.stale import give_back_telling, new_passages, take_telling
from bot.slack.mrkdwn import escape, one_line
from bot.slack.render import source_link
from kb.errors import SupportbotError
from kb.links import Links

MAX_LINES = 5  # changed lines quoted: the rest is on the page the links open
LINE_CHARS = 300


class NotTold(SupportbotError, RuntimeError):
    """The asker could not be told: the message is what the docs owner reads."""


def notice_text(owner: str, passages: list[dict], links: Links) -> str:
    """The message: each changed line as the docs say it now (or that it is gone), numbered to its source."""
    out = [
        f"*The docs have changed since this answer.* {escape(one_line(owner, 80))}, who looks after them, asked me to let you know:"
    ]
    sources = []
    for n, p in enumerate(passages[:MAX_LINES], 1):
        url = links(p["path"], p["url"], [(p["line"], p["new"] or p["old"])], p["anchor"])
        sources.append(source_link(Source(n, p["title"], p["path"], url, "")))
        if p["new"] is None:
            out.append(f"> ~{escape(one_line(p['old'], LINE_CHARS))}~ is no longer in the docs [{n}]")
        else:
            out.append(f"> {escape(one_line(p['new'], LINE_CHARS))} [{n}]")
    if len(passages) > MAX_LINES:
        out.append(f"…and {len(passages) - MAX_LINES} more changed line(s).")
    return "\n".join([*out, "", *sources])


def tell_asker(engine: Engine, client: WebClient, question_id: int, owner: str, links: Links) -> None:
    """Post the notice in the answer's thread, once: a second click anywhere is refused, and a post Slack did not
    take leaves it to be tried again."""
    row = take_telling(engine, question_id, owner)
    if row is None:
        raise NotTold("Its asker was told already, or it is not a stale answer in a Slack thread.")
    try:
        with engine.connect() as conn:
            passages = new_passages(conn, row["stale"] or [])
        client.chat_postMessage(
            channel=row["channel"], thread_ts=row["thread_ts"], text=notice_text(owner, passages, links), unfurl_links=False
        )
    except (SlackApiError, OSError, SQLAlchemyError) as e:
        give_back_telling(engine, question_id)
        why = e.response.get("error") if isinstance(e, SlackApiError) else type(e).__name__
        raise NotTold(f"Slack did not take the message ({why}): nothing was posted, and you can try again.") from e
