"""Every Slack route the bot answers, registered in one place."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.context import Slack
from bot.slack.listeners import ask, escalation, feedback, home, mentions, messages


def register_all(app: App, slack: Slack) -> None:
    for listeners in (mentions, messages, ask, feedback, escalation, home):
        listeners.register(app, slack)
