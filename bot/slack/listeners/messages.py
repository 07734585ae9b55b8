"""Plain messages: replies in a hand-over's threads are relayed to the other side (bot.slack.handover); then every DM,
and replies in threads the bot answered - answered where the channel allows follow-ups without a mention, otherwise
told once per thread (privately) that a mention is what asks.

A channel message that @mentions the bot is the twin of an app_mention and is left to that
listener; the claim would stop a second answer anyway.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.logs.store import answered_in_thread
from bot.slack.answering import FOLLOW_UP, answer_message
from bot.slack.claims import claim, mark_answered
from bot.slack.context import Slack
from bot.slack.handover import relay
from bot.slack.message import SlackMessage
from bot.slack.render import plain_message

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("message")
    def on_message(event, body, client, context):
        msg = SlackMessage.parse(event, body, context.bot_user_id)
        if relay(slack, client, msg):
            return
        reason = msg.why_ignore(slack.answer_bots) or (None if msg.is_dm else why_not_follow_up(slack, msg))
        if reason == HINT:
            hint_once(slack, client, msg)
        if reason:
            log.debug("ignored message %s: %s", msg.ts, reason)
            return
        answer_message(slack, client, msg)


HINT = "a reply without a mention, where follow-ups need one"


def why_not_follow_up(slack: Slack, msg: SlackMessage) -> str | None:
    """A channel message is answered only as a follow-up in a thread the bot answered, where the channel allows it."""
    if msg.mentions_bot:
        return "its app_mention twin answers it"
    if not (msg.in_thread and answered_in_thread(slack.runtime.engine, msg.channel, msg.root)):
        return "not addressed to the bot"
    if not slack.access.rule(msg.channel, is_dm=False).follow_ups:
        return HINT
    return None


def hint_once(slack: Slack, client: WebClient, msg: SlackMessage) -> None:
    """The first reply without a mention in a thread the bot answered: tell its author, and only them, how to ask."""
    key = [f"hint:{msg.channel}:{msg.root}"]
    if not msg.user or not claim(slack.runtime.engine, key):
        return
    try:
        client.chat_postEphemeral(
            channel=msg.channel, user=msg.user, thread_ts=msg.root, **plain_message(FOLLOW_UP.format(name=slack.name))
        )
    except SlackApiError as e:
        log.info("could not hint a follow-up in %s: %s", msg.channel, e.response.get("error"))
    mark_answered(slack.runtime.engine, key)
