"""The App Home tab, published whenever someone opens it."""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.slack.answering import Slack
from bot.slack.home import home_facts, home_view

log = logging.getLogger(__name__)


def register(app: App, slack: Slack) -> None:
    @app.event("app_home_opened")
    def on_home_opened(event, client):
        if event.get("tab") != "home" or not event.get("user"):
            log.debug("app_home_opened on the %s tab: nothing to publish", event.get("tab"))
            return
        view = home_view(home_facts(slack.runtime.engine, event["user"]), slack.access.rule("", is_dm=True))
        try:
            client.views_publish(user_id=event["user"], view=view)
        except SlackApiError as e:
            log.warning("views.publish failed for %s: %s", event["user"], e.response.get("error"))
