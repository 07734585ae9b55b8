"""Answering one Slack message: claim it, show progress, ask, post in the thread, always say something."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlalchemy import select

from bot.logs.models import questions
from bot.runtime import Runtime
from bot.slack.access import Access
from bot.slack.claims import claim, keys_for, mark_answered
from bot.slack.render import answer_messages, plain_message, reason_message

log = logging.getLogger(__name__)

USAGE = "Ask me a question about our docs, for example: @supportbot how long is the warranty?"
TEXT_ONLY = "I can only read text, not files or images. Please type your question."
FAILED = "Sorry, something went wrong while I was answering. The bot's owner can find the details in the logs."
IGNORED_SUBTYPES = {
    "message_changed", "message_deleted", "message_replied", "channel_join", "channel_leave", "channel_topic",
    "channel_purpose", "channel_name", "bot_message", "thread_broadcast", "ekm_access_denied", "group_join",
}  # fmt: skip


@dataclass
class Slack:
    """What every listener needs."""

    runtime: Runtime
    access: Access
    max_chars: int = 2000
    answer_bots: bool = False


def mention_pattern(bot_user_id: str | None) -> re.Pattern:
    return re.compile(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>" if bot_user_id else r"(?!x)x")


def why_ignore(event: dict, bot_user_id: str | None, answer_bots: bool) -> str | None:
    """A reason to stay quiet, or None to answer."""
    subtype = event.get("subtype")
    if subtype in IGNORED_SUBTYPES and not (subtype == "bot_message" and answer_bots):
        return f"subtype {subtype}"
    if subtype not in (None, "file_share", "bot_message"):
        return f"subtype {subtype}"
    if bot_user_id and event.get("user") == bot_user_id:
        return "own message"
    if event.get("bot_id") and not answer_bots:
        return "another bot"
    if event.get("hidden"):
        return "hidden"
    return None


def bot_answered_in(slack: Slack, channel: str, thread_ts: str) -> bool:
    with slack.runtime.engine.connect() as conn:
        return conn.execute(
            select(questions.c.id).where(questions.c.channel == channel, questions.c.thread_ts == thread_ts).limit(1)
        ).first() is not None


def thread_history(client: WebClient, channel: str, root: str, current_ts: str, bot_user_id: str | None) -> list[tuple[str, str]]:
    """Earlier messages of the thread as conversation turns; the bot's own posts are the assistant's."""
    try:
        replies = client.conversations_replies(channel=channel, ts=root, limit=50).get("messages", [])
    except SlackApiError as e:
        log.warning("conversations.replies failed in %s: %s", channel, e.response.get("error"))
        return []
    mention = mention_pattern(bot_user_id)
    turns = []
    for m in replies:
        if m.get("ts") == current_ts:
            break
        role = "assistant" if (bot_user_id and m.get("user") == bot_user_id) or m.get("bot_id") else "user"
        text = mention.sub("", m.get("text") or "").strip()
        if text:
            turns.append((role, text))
    return turns


def answer_message(slack: Slack, client: WebClient, event: dict, event_id: str | None, bot_user_id: str | None, team: str | None) -> None:
    channel, ts = event["channel"], event["ts"]
    root = event.get("thread_ts") or ts
    keys = keys_for(event_id, channel, ts)
    if not claim(slack.runtime.engine, keys):
        log.info("already answered or being answered: %s", keys)
        return
    is_dm = event.get("channel_type") == "im" or channel.startswith("D")
    post = lambda message: client.chat_postMessage(  # noqa: E731
        channel=channel, thread_ts=root, unfurl_links=False, unfurl_media=False, **message
    )
    working = False
    try:
        text = mention_pattern(bot_user_id).sub("", event.get("text") or "").strip()
        if not text:
            post(plain_message(TEXT_ONLY if event.get("files") else USAGE))
            mark_answered(slack.runtime.engine, keys)
            return
        notice = None
        if len(text) > slack.max_chars:
            text = text[: slack.max_chars]
            notice = f"Your message was long, so I read only its first {slack.max_chars:,} characters."
        working = True
        _quietly(client.reactions_add, channel=channel, timestamp=ts, name="eyes")
        _quietly(client.assistant_threads_setStatus, channel_id=channel, thread_ts=root, status="is searching the docs…")
        history = thread_history(client, channel, root, ts, bot_user_id) if root != ts else []
        rule = slack.access.rule(channel, is_dm)
        origin = {"source": "slack", "team": team, "channel": channel, "user_id": event.get("user"), "thread_ts": root}
        answer = slack.runtime.ask(text, history, collections=rule.collections, origin=origin)
        for message in answer_messages(answer, notice):
            post(message)
        mark_answered(slack.runtime.engine, keys)
    except Exception:
        log.exception("answering %s/%s failed", channel, ts)
        try:
            post(reason_message(FAILED))
            mark_answered(slack.runtime.engine, keys)
        except Exception:
            log.exception("could not even post the failure reason to %s", channel)
    finally:
        if working:
            _quietly(client.reactions_remove, channel=channel, timestamp=ts, name="eyes")
            _quietly(client.assistant_threads_setStatus, channel_id=channel, thread_ts=root, status="")


def _quietly(method, **kwargs) -> None:
    """Progress signals are nice to have: their failure must not stop the answer."""
    try:
        method(**kwargs)
    except SlackApiError as e:
        log.info("%s failed: %s", getattr(method, "__name__", "slack call"), e.response.get("error"))
