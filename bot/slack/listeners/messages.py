"""Plain messages: every DM, and (where a channel allows it) follow-ups in threads the bot answered.

A channel message that @mentions the bot is the twin of an app_mention and is left to that
listener; the claim would stop a second answer anyway.
"""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.slack.answering import Slack, answer_message, bot_answered_in, is_dm, mention_pattern, why_ignore

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("message")
    def on_message(event, body, client, context):
        reason = why_ignore(event, context.bot_user_id, slack.answer_bots)
        if reason:
            log.debug("ignored message %s: %s", event.get("ts"), reason)
            return
        channel = event.get("channel", "")
        if not is_dm(event):
            if mention_pattern(context.bot_user_id).search(event.get("text") or ""):
                log.debug("ignored message %s: its app_mention twin answers it", event.get("ts"))
                return
            thread = event.get("thread_ts")
            rule = slack.access.rule(channel, is_dm=False)
            if not (thread and thread != event.get("ts") and rule.follow_ups and bot_answered_in(slack, channel, thread)):
                log.debug("ignored message %s: not addressed to the bot", event.get("ts"))
                return
        answer_message(slack, client, event, body.get("event_id"), context.bot_user_id, body.get("team_id"))
