"""The Bolt app: its worker pool, listeners, and the two ways to run it (the checks before it starts: bot.slack.startup)."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from urllib.parse import parse_qs

from apscheduler.schedulers.background import BackgroundScheduler
from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier

from bot.health import Health, health_app
from bot.logs.names import remember_channel, remember_person
from bot.metrics import HEARTBEATS
from bot.ports import PortUnavailable, unavailable
from bot.runtime import Runtime
from bot.scheduler import stop_children
from bot.settings import Settings, secret
from bot.slack.access import Access
from bot.slack.answering import answer_held, recover
from bot.slack.claims import release, renew
from bot.slack.context import Slack
from bot.slack.digest import post_if_due
from bot.slack.listeners import register_all
from bot.slack.people import People
from bot.slack.startup import SlackConfigError, Workspace, app_token_refused, web_client
from bot.slack.visibility import ChannelVisibility

log = logging.getLogger(__name__)


def load_access(settings: Settings) -> Access:
    return Access.load(settings.slack_channels_file, settings.slack_escalation_channel, settings.slack_escalation_mention)


def build_app(
    runtime: Runtime, settings: Settings, access: Access | None = None, workspace: Workspace | None = None
) -> tuple[App, Slack]:
    workspace = workspace or Workspace()
    signing = secret(settings.slack_signing_secret) or None
    workers = ThreadPoolExecutor(max_workers=settings.slack_workers, thread_name_prefix="answer")
    # Named, or Bolt names the app at every start by reading its callers' source files (inspect.stack).
    app = App(name="supportbot", client=web_client(settings), signing_secret=signing, listener_executor=workers)
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
        people=People(partial(remember_person, runtime.engine)),
        visibility=ChannelVisibility(partial(remember_channel, runtime.engine)),
    )
    slack.submit = workers.submit  # recovered and held questions are answered there too, not on the heartbeat
    register_all(app, slack)
    return app, slack


def beat_seconds(lease: timedelta) -> float:
    """How often the heartbeat renews the leases: a third of a lease, so two beats can be late before one lapses."""
    return max(0.2, lease.total_seconds() / 3)


def keep_leases(slack: Slack) -> None:
    """The heartbeat: renew this process's leases, a third of a lease apart, whatever else is going on."""
    started = time.monotonic()
    try:
        renew(slack.runtime.engine, slack.lease)
        HEARTBEATS.inc()
    except Exception:
        log.exception("renewing claims failed; retrying at the next beat")
        return
    took, beat = time.monotonic() - started, beat_seconds(slack.lease)
    if took > beat:  # the next beat was skipped meanwhile (one runs at a time)
        log.warning(
            "renewing this process's claims took %.1f s, longer than its %.1f s beat: the database is slow, and past"
            " %.0f s another process takes the claims over",
            took,
            beat,
            slack.lease.total_seconds(),
        )


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


DIGEST_CHECK_MINUTES = 5  # how often serve looks whether the weekly digest is due (posted once, at the first look)
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
        seconds=beat_seconds(slack.lease),  # its own job: a slow recovery never delays a renewal
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
    if settings.review_digest_channel:  # the docs owner's week, once a week by one process (bot.slack.digest)
        scheduler.add_job(
            post_if_due,
            "interval",
            args=[
                slack.runtime.engine,
                app.client,
                settings.review_digest_channel,
                settings.review_url,
                settings.review_timezone,
                settings.review_digest_at,
            ],
            id="digest",
            minutes=DIGEST_CHECK_MINUTES,
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
