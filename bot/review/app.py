"""The review page: a read-only, server-rendered view of the answer log, the gaps and the syncs.

It works with JavaScript off. Bound to a loopback address it is open; bound to any other address it
refuses to start without REVIEW_TOKEN, and then every request must carry that token (as ?token=,
after which a cookie keeps it, or as an Authorization: Bearer header).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from flask import Flask, abort, current_app, g, redirect, render_template, request
from markdown_it import MarkdownIt
from markupsafe import Markup
from sqlalchemy import Engine

from bot.logs.names import channel_names
from bot.review.views import review
from bot.settings import TEAM_ANSWER_DAYS
from kb.errors import SupportbotError
from kb.links import Links

if TYPE_CHECKING:
    from slack_sdk import WebClient

COOKIE = "supportbot_review"


class _AnswerMarkdown(MarkdownIt):
    """Markdown as an answer is written, with only http(s), mailto and in-page links kept."""

    def validateLink(self, url: str) -> bool:  # markdown-it's own name for it
        return url.strip().lower().startswith(("http://", "https://", "mailto:", "#"))


_MARKDOWN = _AnswerMarkdown("commonmark", {"html": False}).enable("table")
NO_LINKS = Links()  # no site and no source view: a source is its path


class ReviewConfigError(SupportbotError, ValueError):
    pass


def where(channel: str) -> str:
    """A channel as a reader knows it: its name as Slack gave it, a direct message said to be one (the ID stays in
    a tooltip). The names are read once a request."""
    if channel.startswith("D"):
        return "direct message"
    if "channel_names" not in g:
        g.channel_names = channel_names(current_app.config["LOG_ENGINE"])
    name = g.channel_names.get(channel)
    return f"#{name}" if name else channel


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    if not is_loopback(host) and not token:
        raise ReviewConfigError(f"the review page is bound to {host}, beyond this machine: set REVIEW_TOKEN to protect it")


MAX_PARAM = 500  # characters in a filter: a search is words, not a document


def create_app(
    engine: Engine,
    token: str | None = None,
    eval_file: Path | None = None,
    team_answer_days: int = TEAM_ANSWER_DAYS,
    timezone: str = "UTC",
    slack: WebClient | None = None,
    links: Links = NO_LINKS,
) -> Flask:
    """With a token the page can also change things (mark a gap covered, add a question to the eval set),
    by POST with a CSRF field derived from the token; without one it is read-only.
    slack: a client with the bot's token, to tell a stale answer's asker (none: the page does not offer it).
    links: where a reader reads a page, as the bot links its sources."""
    app = Flask(__name__)
    csrf = hmac.new(token.encode(), b"supportbot-review-csrf", hashlib.sha256).hexdigest() if token else None
    app.config.update(
        LOG_ENGINE=engine, EVAL_FILE=eval_file, CSRF=csrf, TEAM_ANSWER_DAYS=team_answer_days, SLACK=slack, LINKS=links
    )

    zone = ZoneInfo(timezone)

    @app.context_processor
    def writing():
        return {"csrf": csrf, "writable": bool(token), "timezone": timezone, "where": where, "tells": slack is not None}

    @app.template_filter("markdown")
    def markdown(text: str | None) -> Markup:
        """An answer as its reader saw it (lists, bold, tables, links), from Markdown with any HTML in it shown as
        text and only http(s) and mailto links kept: the answer is data."""
        return Markup(_MARKDOWN.render(text or ""))

    @app.template_filter("at")
    def at(value: datetime | None, fmt: str) -> str:
        """A time from the log (naive ones are UTC, as SQLite keeps them) in REVIEW_TIMEZONE."""
        if value is None:
            return ""
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(zone).strftime(fmt)

    @app.before_request
    def bounded_input():
        if any(len(v) > MAX_PARAM for v in request.args.values()):
            abort(400)

    @app.before_request
    def require_token():
        if not token:
            return None
        given = (
            request.args.get("token")
            or request.cookies.get(COOKIE)
            or request.headers.get("Authorization", "").removeprefix("Bearer ")
        )
        if not given or not hmac.compare_digest(given.encode(), token.encode()):
            abort(401)
        if request.args.get("token"):  # keep it in a cookie, out of the address bar
            args = {k: v for k, v in request.args.items() if k != "token"}
            response = redirect(request.path + ("?" + urlencode(args) if args else ""))
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
            return response
        return None

    @app.after_request
    def lock_down(response):
        """Nothing on these pages runs or loads from elsewhere: a doc or a question is only ever text."""
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.errorhandler(401)
    def unauthorized(_):
        return render_template(
            "message.html", title="Token needed", message="This review page needs its token: open it with ?token=…"
        ), 401

    @app.errorhandler(400)
    def bad_request(_):
        return render_template(
            "message.html", title="Bad request", message=f"A filter is too long (over {MAX_PARAM} characters)."
        ), 400

    @app.errorhandler(403)
    def forbidden(_):
        return render_template(
            "message.html", title="Read-only", message="Changes need REVIEW_TOKEN and a form from this page."
        ), 403

    @app.errorhandler(404)
    def not_found(_):
        return render_template("message.html", title="Not found", message="There is no such page or question."), 404

    app.register_blueprint(review)
    return app


def serve(app: Flask, host: str, port: int, token: str | None) -> None:
    import waitress

    from bot.ports import PortUnavailable, unavailable

    check_binding(host, token)
    try:
        waitress.serve(app, host=host, port=port, threads=4, ident="supportbot-review")
    except OSError as e:  # taken between the check at start and now
        raise PortUnavailable(unavailable(host, port, e)) from None
