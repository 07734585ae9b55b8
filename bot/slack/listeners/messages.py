"""Plain messages: every DM, and (where a channel allows it) follow-ups in threads the bot answered.

A channel message that @mentions the bot is the twin of an app_mention and is left to that
listener; the claim would stop a second answer anyway.
"""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.slack.answering import Slack, answer_message, bot_answered_in
from bot.slack.message import SlackMessage

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("message")
    def on_message(event, body, client, context):
        msg = SlackMessage.parse(event, body, context.bot_user_id)
        reason = msg.why_ignore(slack.answer_bots) or (None if msg.is_dm else why_not_follow_up(slack, msg))
        if reason:
            log.debug("ignored message %s: %s", msg.ts, reason)
            return
        answer_message(slack, client, msg)


def why_not_follow_up(slack: Slack, msg: SlackMessage) -> str | None:
    """A channel message is answered only as a follow-up in a thread the bot answered, where the channel allows it."""
    if msg.mentions_bot:
        return "its app_mention twin answers it"
    allowed = slack.access.rule(msg.channel, is_dm=False).follow_ups
    if not (msg.in_thread and allowed and bot_answered_in(slack, msg.channel, msg.root)):
        return "not addressed to the bot"
    return None
