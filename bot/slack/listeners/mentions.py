"""@mentions in channels, answered in the message's thread (with the thread's history)."""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.slack.answering import Slack, answer_message, why_ignore

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("app_mention")
    def on_app_mention(event, body, client, context):
        reason = why_ignore(event, context.bot_user_id, slack.answer_bots)
        if reason:
            log.debug("ignored mention %s: %s", event.get("ts"), reason)
            return
        answer_message(slack, client, event, body.get("event_id"), context.bot_user_id, body.get("team_id"))
