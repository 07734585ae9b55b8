"""@mentions in channels, answered in the message's thread (with the thread's history)."""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.slack.answering import answer_message
from bot.slack.context import Slack
from bot.slack.message import SlackMessage

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("app_mention")
    def on_app_mention(event, body, client, context):
        msg = SlackMessage.parse(event, body, context.bot_user_id)
        reason = msg.why_ignore(slack.answer_bots)
        if reason:
            log.debug("ignored mention %s: %s", msg.ts, reason)
            return
        answer_message(slack, client, msg)
