"""What is checked against Slack before anything starts: the tokens are there and the right kind, Slack answers
(retried with backoff while a network or proxy comes up), and who the bot is in the workspace; and the Web API
client every part uses."""

from __future__ import annotations

import logging
from typing import NamedTuple

import tenacity
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.settings import Settings, secret
from kb.errors import SupportbotError

log = logging.getLogger(__name__)


class SlackConfigError(SupportbotError, ValueError):
    pass


def check_tokens(settings: Settings, http: bool) -> None:
    """Missing or malformed tokens: a message naming the setting."""
    bot = secret(settings.slack_bot_token)
    if not bot:
        raise SlackConfigError("SLACK_BOT_TOKEN is not set: put the app's Bot User OAuth Token (xoxb-...) in .env")
    if not bot.startswith("xoxb-"):
        raise SlackConfigError("SLACK_BOT_TOKEN should start with xoxb- (the Bot User OAuth Token, not a user or app token)")
    if http:
        if not secret(settings.slack_signing_secret):
            raise SlackConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs the app's Signing Secret")
    else:
        app_token = secret(settings.slack_app_token)
        if not app_token:
            raise SlackConfigError(
                "SLACK_APP_TOKEN is not set: Socket Mode needs an app-level token (xapp-...) with connections:write"
            )
        if not app_token.startswith("xapp-"):
            raise SlackConfigError("SLACK_APP_TOKEN should start with xapp- (an app-level token with connections:write)")


class SlackUnreachable(SupportbotError, ConnectionError):
    pass


class Workspace(NamedTuple):
    """Who the bot is where it runs, from auth.test: its name (for the hints) and the workspace's address (for
    the links to each question's thread that the log keeps)."""

    name: str = "supportbot"
    url: str | None = None


def wait_for_slack(settings: Settings, http: bool) -> Workspace:
    """Slack unreachable at start (a network blip, a proxy still starting): try SLACK_START_ATTEMPTS times with
    backoff, one log line per failed try. A refused token stops at once: retrying cannot fix it. In Socket Mode
    the app-level token is tried too, before anything starts."""
    client = web_client(settings, quiet=True)

    def say(state: tenacity.RetryCallState) -> None:
        log.warning(
            "Slack is unreachable at %s (attempt %d of %d): %s; retrying in %.0f s",
            settings.slack_api_url,
            state.attempt_number,
            settings.slack_start_attempts,
            _why(state.outcome.exception() if state.outcome else None),
            state.next_action.sleep if state.next_action else 0,
        )

    try:
        for attempt in tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(OSError),
            wait=tenacity.wait_exponential(multiplier=1, max=30),
            stop=tenacity.stop_after_attempt(settings.slack_start_attempts),
            before_sleep=say,
            reraise=True,
        ):
            with attempt:
                me = client.auth_test()
    except SlackApiError as e:
        raise SlackConfigError(f"Slack refused the bot token (SLACK_BOT_TOKEN): {e.response.get('error')}") from None
    except OSError as e:
        raise SlackUnreachable(
            f"cannot reach Slack at {settings.slack_api_url} after {settings.slack_start_attempts} attempts "
            f"(SLACK_START_ATTEMPTS): {_why(e)}"
        ) from None
    if not http:
        check_app_token(client, settings)
    url = me.get("url")
    return Workspace(me.get("user") or "supportbot", url if isinstance(url, str) and url.startswith("https://") else None)


def _why(e: BaseException | None) -> str:
    """urllib's "<urlopen error [Errno 111] Connection refused>" as "connection refused"."""
    reason = getattr(e, "reason", e)
    return (getattr(reason, "strerror", None) or str(reason)).lower()


def check_app_token(client: WebClient, settings: Settings) -> None:
    try:
        client.apps_connections_open(app_token=secret(settings.slack_app_token))
    except SlackApiError as e:
        raise SlackConfigError(app_token_refused(e)) from None
    except OSError as e:
        raise SlackUnreachable(f"cannot reach Slack at {settings.slack_api_url}: {_why(e)}") from None


def app_token_refused(e: SlackApiError) -> str:
    return (
        f"Slack refused the app-level token (SLACK_APP_TOKEN): {e.response.get('error')}: make one under Basic "
        "Information > App-Level Tokens with the connections:write scope, and turn Socket Mode on"
    )


def web_client(settings: Settings, quiet: bool = False) -> WebClient:
    """quiet: the start-up check's client, whose tries are ours (one line each), not slack_sdk's retries and its
    ERROR line per refused connection."""
    if quiet:
        silent = logging.getLogger("bot.slack.start.sdk")
        silent.disabled = True
        how: dict = {"logger": silent, "retry_handlers": []}
    else:
        how = {
            "retry_handlers": [
                ConnectionErrorRetryHandler(max_retry_count=2),
                RateLimitErrorRetryHandler(max_retry_count=3),
                ServerErrorRetryHandler(max_retry_count=2),
            ]
        }
    return WebClient(
        token=secret(settings.slack_bot_token),
        base_url=settings.slack_api_url,
        timeout=int(settings.slack_timeout_seconds),
        **how,
    )
