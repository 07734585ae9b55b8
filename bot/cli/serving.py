"""Long-running commands: the Slack app and the review page."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import click

from bot.cli.options import clear_errors, db_option, docs_option, runtime_for

if TYPE_CHECKING:
    from bot.runtime import Runtime
    from bot.settings import Settings


def check_claude(rt: Runtime) -> None:
    """With a key set, `serve` checks key and model once at start: a typo is found now, not at the first question."""
    if rt.agent.claude is None:
        return
    from bot.agent.claude import check_model

    warning = check_model(*rt.agent.claude)
    if warning:
        logging.getLogger(__name__).warning(warning)


@click.command("serve")
@click.option("--http", "http", is_flag=True, help="Receive events over HTTP at /slack/events instead of Socket Mode.")
@click.option(
    "--port",
    default=3000,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="HTTP mode: the port for /slack/events, /healthz, /readyz and /metrics.",
)
@click.option(
    "--host", default="0.0.0.0", show_default=True, help="The address to listen on (HTTP mode, and HEALTH_PORT in Socket Mode)."
)
@docs_option
@db_option
def serve_cmd(http: bool, port: int, host: str, docs: Path | None, db: str | None) -> None:
    """Run the Slack app (and the scheduled re-sync) until stopped."""
    from bot.logging_setup import configure_logging
    from bot.settings import load_settings
    from bot.slack.startup import check_tokens

    with clear_errors():
        # Settings and tokens first, before the app's own modules load: a missing or wrong token is named in about
        # half a second instead of two.
        settings = load_settings(database_url=db, docs_dir=docs)
        configure_logging(settings.log_level, settings.log_format)
        check_tokens(settings, http)
        _serve(settings, http, host, port)


def _serve(settings: Settings, http: bool, host: str, port: int) -> None:
    """Everything else that can be checked is, before any network call and before anything starts; then serve."""
    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackApiError

    from bot.ports import check_port
    from bot.runtime import Runtime
    from bot.scheduler import start_scheduler
    from bot.slack.app import build_app, load_access, serve
    from bot.slack.startup import wait_for_slack

    access = load_access(settings)
    if http:
        check_port(host, port)
    elif settings.health_port:
        check_port(host, settings.health_port, "HEALTH_PORT")
    rt = Runtime(settings)
    check_claude(rt)
    workspace = wait_for_slack(settings, http)
    try:
        app, slack = build_app(rt, settings, access, workspace)
    except (BoltError, SlackApiError) as e:
        raise click.ClickException(f"Slack refused the bot token (SLACK_BOT_TOKEN): {e}")
    serve(app, slack, start_scheduler(rt), settings, http, host, port)


@click.command("review")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), help="The port to serve the page on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Any address but loopback needs REVIEW_TOKEN.")
@db_option
def review_cmd(port: int, host: str, db: str | None) -> None:
    """Serve the read-only review page: questions, traces, gaps and syncs."""
    from bot.ports import check_port
    from bot.review.app import check_binding, create_app, serve

    with clear_errors():
        rt = runtime_for(db, reads_only=True)
        s = rt.settings
        token = s.review_token.get_secret_value() if s.review_token else None
        check_binding(host, token)
        check_port(host, port)
        slack = None
        if s.slack_bot_token:  # with the bot's token, the page can tell a stale answer's asker in their thread
            from bot.slack.startup import web_client

            slack = web_client(s)
        app = create_app(rt.engine, token, s.review_eval_file, s.team_answer_days, s.review_timezone, slack, rt.links())
        click.echo(f"Review page on http://{host}:{port}/", err=True)
        serve(app, host, port, token)
