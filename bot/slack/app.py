"""The Bolt app: its Web API client, worker pool, listeners, and the two ways to run it."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.runtime import Runtime
from bot.settings import Settings
from bot.slack.access import Access
from bot.slack.answering import Slack
from bot.slack.listeners import feedback, mentions, messages

log = logging.getLogger(__name__)


class SlackConfigError(ValueError):
    pass


def check_tokens(settings: Settings, http: bool) -> None:
    """Missing or malformed tokens: a message naming the setting."""
    bot = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else ""
    if not bot:
        raise SlackConfigError("SLACK_BOT_TOKEN is not set: put the app's Bot User OAuth Token (xoxb-...) in .env")
    if not bot.startswith("xoxb-"):
        raise SlackConfigError("SLACK_BOT_TOKEN should start with xoxb- (the Bot User OAuth Token, not a user or app token)")
    if http:
        if not settings.slack_signing_secret or not settings.slack_signing_secret.get_secret_value():
            raise SlackConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs the app's Signing Secret")
    else:
        app_token = settings.slack_app_token.get_secret_value() if settings.slack_app_token else ""
        if not app_token:
            raise SlackConfigError("SLACK_APP_TOKEN is not set: Socket Mode needs an app-level token (xapp-...) with connections:write")
        if not app_token.startswith("xapp-"):
            raise SlackConfigError("SLACK_APP_TOKEN should start with xapp- (an app-level token with connections:write)")


def web_client(settings: Settings) -> WebClient:
    return WebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=settings.slack_api_url,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2),
            RateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrorRetryHandler(max_retry_count=2),
        ],
    )


def build_app(runtime: Runtime, settings: Settings) -> App:
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    app = App(
        client=web_client(settings),
        signing_secret=secret,
        listener_executor=ThreadPoolExecutor(max_workers=settings.slack_workers, thread_name_prefix="answer"),
    )
    slack = Slack(runtime, Access.load(settings.slack_channels_file), settings.slack_max_question_chars, settings.slack_answer_bots)
    for listeners in (mentions, messages, feedback):
        listeners.register(app, slack)
    return app


def serve_http(app: App, host: str, port: int, threads: int) -> None:
    """Events and interactivity at /slack/events, on waitress (a multi-threaded WSGI server)."""
    import waitress
    from slack_bolt.adapter.wsgi import SlackRequestHandler

    log.info("listening on http://%s:%d/slack/events", host, port)
    waitress.serve(SlackRequestHandler(app), host=host, port=port, threads=threads, ident="supportbot")


def serve_socket_mode(app: App, settings: Settings) -> None:
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    SocketModeHandler(app, settings.slack_app_token.get_secret_value()).start()
