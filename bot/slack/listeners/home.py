"""The App Home: its home tab published whenever someone opens it; its messages tab (Slack's agent view)
greets with suggested prompts."""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.slack.context import Slack
from bot.slack.home import home_facts, home_view
from bot.slack.prompts import PROMPTS_TITLE, suggested_prompts

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("app_home_opened")
    def on_home_opened(event, client):
        if event.get("tab") == "messages" and event.get("channel"):
            suggest(event["channel"], client)
            return
        if event.get("tab") != "home" or not event.get("user"):
            log.debug("app_home_opened on the %s tab: nothing to publish", event.get("tab"))
            return
        view = home_view(home_facts(slack.runtime.engine, event["user"]), slack.access.rule("", is_dm=True))
        try:
            client.views_publish(user_id=event["user"], view=view)
        except SlackApiError as e:
            log.warning("views.publish failed for %s: %s", event["user"], e.response.get("error"))

    def suggest(channel: str, client) -> None:
        rule = slack.access.rule(channel, is_dm=True)
        prompts = suggested_prompts(slack.runtime.engine, slack.suggested_prompts, rule.collections)
        if not prompts:
            log.debug("no prompts to suggest in %s: nothing asked or indexed yet", channel)
            return
        try:
            client.assistant_threads_setSuggestedPrompts(channel_id=channel, title=PROMPTS_TITLE, prompts=prompts)
        except SlackApiError as e:
            log.warning("assistant.threads.setSuggestedPrompts failed in %s: %s", channel, e.response.get("error"))
