"""Helpful / not helpful buttons under an answer: recorded against its log row, thanked privately."""

from __future__ import annotations

import re

from slack_bolt import App

from bot.logs.store import record_feedback
from bot.slack.answering import Slack


def register(app: App, slack: Slack) -> None:
    @app.action(re.compile(r"^feedback_(up|down)$"))
    def on_feedback(ack, body, action, client, logger):
        ack()
        value = "up" if action["action_id"] == "feedback_up" else "down"
        user = (body.get("user") or {}).get("id")
        try:
            record_feedback(slack.runtime.engine, int(action.get("value") or 0), value, user_id=user)
        except Exception:
            logger.exception("could not record feedback %s on %s", value, action.get("value"))
            return
        channel = (body.get("channel") or {}).get("id")
        message = body.get("message") or {}
        if channel and user:
            client.chat_postEphemeral(
                channel=channel,
                user=user,
                thread_ts=message.get("thread_ts") or message.get("ts"),
                text="Thanks for the feedback!" if value == "up" else "Thanks: this helps us fix the docs.",
            )
