"""The Bolt app: its Web API client, worker pool, listeners, and the two ways to run it."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import NamedTuple
from urllib.parse import parse_qs

import tenacity
from apscheduler.schedulers.background import BackgroundScheduler
from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.signature import SignatureVerifier

from bot.health import Health, health_app
from bot.metrics import HEARTBEATS
from bot.ports import PortUnavailable, unavailable
from bot.runtime import Runtime
from bot.scheduler import stop_children
from bot.settings import Settings, secret
from bot.slack.access import Access
from bot.slack.answering import answer_held, recover
from bot.slack.claims import release, renew
from bot.slack.context import Slack
from bot.slack.listeners import register_all
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


def load_access(settings: Settings) -> Access:
    return Access.load(settings.slack_channels_file, settings.slack_escalation_channel, settings.slack_escalation_mention)


def build_app(
    runtime: Runtime, settings: Settings, access: Access | None = None, workspace: Workspace | None = None
) -> tuple[App, Slack]:
    workspace = workspace or Workspace()
    signing = secret(settings.slack_signing_secret) or None
    workers = ThreadPoolExecutor(max_workers=settings.slack_workers, thread_name_prefix="answer")
    app = App(client=web_client(settings), signing_secret=signing, listener_executor=workers)
    slack = Slack(
        runtime,
        access or load_access(settings),
        settings.slack_max_question_chars,
        settings.slack_answer_bots,
        lease=timedelta(seconds=settings.slack_claim_lease_seconds),
        recovery_horizon=timedelta(hours=settings.answer_recovery_hours),
        db_retry_s=settings.db_retry_seconds,
        streaming=settings.slack_streaming,
        suggested_prompts=tuple(settings.slack_suggested_prompts),
        name=workspace.name,
        workspace_url=workspace.url,
    )
    slack.submit = workers.submit  # recovered and held questions are answered there too, not on the heartbeat
    register_all(app, slack)
    return app, slack


def keep_leases(slack: Slack) -> None:
    """The heartbeat: renew this process's leases, a third of a lease apart, whatever else is going on."""
    try:
        renew(slack.runtime.engine, slack.lease)
        HEARTBEATS.inc()
    except Exception:
        log.exception("renewing claims failed; retrying at the next beat")


def keep_claims(slack: Slack, client: WebClient) -> None:
    """Finish what dead processes left, and what waited for the database (the answers themselves run on the pool)."""
    try:
        answer_held(slack, client)
        recovered = recover(slack, client)
        if recovered:
            log.info("taking over %d question(s) left by a process that stopped", recovered)
    except Exception:
        log.exception("renewing or recovering claims failed; retrying at the next beat")


def _reply(start_response, status: str, text: str, headers: tuple = ()) -> list[bytes]:
    start_response(status, [("Content-Type", "text/plain"), *headers])
    return [text.encode()]


MAX_BODY_BYTES = 1024 * 1024  # Slack's events and interactions are a few KB; a message is at most 40,000 characters


def gate(events, slack: Slack, verifier: SignatureVerifier):
    """Before Bolt reads a request: 503 while stopping (Slack retries elsewhere), 401 unless Slack signed it,
    400 unless its body is what Slack sends (JSON, or a form whose payload is JSON)."""

    def wsgi(environ, start_response):
        if slack.stopping.is_set():
            return _reply(start_response, "503 Service Unavailable", "stopping: retry elsewhere", (("Retry-After", "5"),))
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return _reply(start_response, "400 Bad Request", "bad content length")
        if length > MAX_BODY_BYTES:  # refused before a byte is read: no signature makes a body this size Slack's
            return _reply(start_response, "413 Content Too Large", "request body too large")
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        headers = {
            "x-slack-signature": environ.get("HTTP_X_SLACK_SIGNATURE"),
            "x-slack-request-timestamp": environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP"),
        }
        try:
            signed = verifier.is_valid_request(body, headers)
        except ValueError:  # a timestamp that is not a number
            signed = False
        if not signed:
            return _reply(start_response, "401 Unauthorized", "invalid signature")
        if not _slack_shaped(body, environ.get("CONTENT_TYPE", "")):
            return _reply(start_response, "400 Bad Request", "not a Slack request body")
        environ["wsgi.input"] = io.BytesIO(body)
        return events(environ, start_response)

    return wsgi


def _slack_shaped(body: bytes, content_type: str) -> bool:
    try:
        text = body.decode("utf-8")
        if content_type.startswith("application/json"):
            envelope = json.loads(text)
            if not isinstance(envelope, dict):
                return False
            return envelope.get("type") != "event_callback" or isinstance(envelope.get("event"), dict)
        form = parse_qs(text, strict_parsing=bool(text))
        return "payload" not in form or isinstance(json.loads(form["payload"][0]), dict)
    except (UnicodeDecodeError, ValueError):
        return False


def serve(app: App, slack: Slack, scheduler: BackgroundScheduler, settings: Settings, http: bool, host: str, port: int) -> None:
    """Serve until SIGTERM or SIGINT, then stop gracefully: take no new questions (HTTP answers 503 so Slack
    retries elsewhere; Socket Mode disconnects), finish the answers in flight within SHUTDOWN_GRACE_SECONDS,
    and release the rest to another process or the next start."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    scheduler.add_job(
        keep_leases,
        "interval",
        args=[slack],
        id="leases",
        seconds=max(0.2, slack.lease.total_seconds() / 3),  # its own job: a slow recovery never delays a renewal
        max_instances=1,
        coalesce=True,
        next_run_time=datetime.now(UTC),
    )
    scheduler.add_job(
        keep_claims,
        "interval",
        args=[slack, app.client],
        id="claims",
        seconds=max(1.0, slack.lease.total_seconds() / 3),
        max_instances=1,
        coalesce=True,
        next_run_time=datetime.now(UTC),
    )
    threading.Thread(target=slack.runtime.searcher.refresh, name="load-index", daemon=True).start()  # ready sooner
    health = Health(slack.runtime, slack.stopping)
    if http:
        from slack_bolt.adapter.wsgi import SlackRequestHandler

        verifier = SignatureVerifier(secret(settings.slack_signing_secret))
        server = _http_server(health_app(health, gate(SlackRequestHandler(app), slack, verifier)), host, port, settings)
        log.info("listening on http://%s:%d/slack/events (and /healthz, /readyz, /metrics)", host, port)
        close_intake, close = (lambda: None), server.close
    else:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        handler = SocketModeHandler(app, secret(settings.slack_app_token))
        try:
            handler.connect()  # its client keeps the connection (and reconnects) in its own threads
        except SlackApiError as e:  # refused between the check at start and now
            scheduler.shutdown(wait=False)
            stop_children()
            raise SlackConfigError(app_token_refused(e)) from None
        log.info("connected to Slack over Socket Mode")
        close_intake, close = handler.close, (lambda: None)
        if settings.health_port:
            server = _http_server(health_app(health), host, settings.health_port, settings)
            log.info("health and metrics on http://%s:%d/healthz, /readyz, /metrics", host, settings.health_port)
            close = server.close
    while not stop.wait(0.5):
        pass
    slack.stopping.set()
    close_intake()
    log.info("stopping: no new questions; waiting up to %.0f s for the answers in flight", settings.shutdown_grace_seconds)
    finished = slack.in_flight.wait_idle(settings.shutdown_grace_seconds)
    scheduler.shutdown(wait=False)
    stop_children()
    released = release(slack.runtime.engine)
    close()
    if not finished:
        log.warning("stopped with answers still in flight: %d claim(s) released for another process", released)
        logging.shutdown()
        os._exit(0)  # the unfinished answers' threads would hold the exit; their claims are released
    log.info("stopped cleanly")


def _http_server(wsgi, host: str, port: int, settings: Settings):
    import waitress

    try:
        server = waitress.create_server(
            wsgi,
            host=host,
            port=port,
            threads=max(8, settings.slack_workers),
            ident="supportbot",
            max_request_body_size=MAX_BODY_BYTES,  # waitress answers 413 from the Content-Length, before reading the body
        )
    except OSError as e:  # taken between the check at start and now
        raise PortUnavailable(unavailable(host, port, e)) from None
    threading.Thread(target=server.run, name="http", daemon=True).start()
    return server
