"""Reading the log: logs (show, export, prune) and gaps."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from bot.agent.types import STATUSES
from bot.cli.options import clear_errors, db_option, json_option, runtime_for
from bot.logs.gaps import GAP_STATES
from bot.logs.store import ASKED_FROM

if TYPE_CHECKING:
    from bot.logs.report import Filters


def log_filters(f):
    options = [
        click.option("--status", type=click.Choice(STATUSES), help="Only questions that ended this way."),
        click.option("--feedback", "feedback_", type=click.Choice(["up", "down"]), help="Only questions with this feedback."),
        click.option("--problems", is_flag=True, help="Only answers with citation or other problems."),
        click.option("--stale", is_flag=True, help="Only answers whose cited lines a later docs change altered or removed."),
        click.option("--escalated", is_flag=True, help='Only questions someone handed to a person ("Ask a person").'),
        click.option("--channel", metavar="ID", help="Only questions asked in this Slack channel (its ID)."),
        click.option(
            "--source", type=click.Choice(ASKED_FROM), help="Only questions asked from here (eval runs are logged as eval)."
        ),
        click.option("--since", metavar="AGE", help="e.g. 7d, 12h, 2w"),
        click.option("--search", metavar="TEXT", help="Words in the question or the answer."),
        click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 100_000), help="At most this many rows."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def checked_age(text: str | None, hint: str) -> None:
    """An age option ('7d') the user can fix: a bad or absurd one is one line, never a traceback."""
    from bot.logs.report import parse_age

    if text:
        try:
            parse_age(text)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint=hint)


def make_filters(status, feedback_, problems, stale, escalated, channel, source, since, search, limit) -> Filters:
    from bot.logs.report import Filters

    checked_age(since, "--since")
    return Filters(status, feedback_, problems, channel, since, search, limit, source, stale, escalated=escalated)


@click.group("logs", invoke_without_command=True)
@log_filters
@db_option
@click.pass_context
def logs_group(ctx, status, feedback_, problems, stale, escalated, channel, source, since, search, limit, db) -> None:
    """List logged questions, newest first (subcommands: show, export, prune)."""
    from bot.logs.report import list_questions

    ctx.obj = {"db": db}
    if ctx.invoked_subcommand is not None:
        return
    filters = make_filters(status, feedback_, problems, stale, escalated, channel, source, since, search, limit)
    with clear_errors():
        rows = list_questions(runtime_for(db, reads_only=True).engine, filters)
    if not rows:
        click.echo("No questions match.")
        return
    for r in rows:
        when = r["created_at"].strftime("%Y-%m-%d %H:%M")
        where = r["channel"] or r["source"]
        flags = (
            ("!" if r["problems"] else " ")
            + {"down": "-", "up": "+"}.get(r["feedback"], " ")
            + ("~" if r["stale_at"] else " ")
            + ("^" if r["escalated_at"] else " ")
        )
        click.echo(f"{r['id']:>6}  {when}  {where:<12.12}  {r['status']:<16} {flags}  {' '.join(r['question'].split())[:80]}")


@logs_group.command("show")
@click.argument("question_id", type=int)
@db_option
@click.pass_context
def logs_show(ctx, question_id: int, db: str | None) -> None:
    """One question's full trace: searches and hits, answer, citations, problems, feedback."""
    from bot.logs.report import question_trace
    from bot.logs.trace import render_trace

    with clear_errors():
        trace = question_trace(runtime_for(db or ctx.obj.get("db"), reads_only=True).engine, question_id)
    if trace is None:
        raise click.ClickException(f"no logged question {question_id}")
    click.echo(render_trace(trace))


@logs_group.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv"]),
    default="jsonl",
    show_default=True,
    help="One JSON object a line, or CSV with a header row.",
)
@log_filters
@db_option
@click.pass_context
def logs_export(ctx, fmt, status, feedback_, problems, stale, escalated, channel, source, since, search, limit, db) -> None:
    """Print every matching question with its trace as JSON lines or CSV (--limit to stop early), streamed."""
    from bot.logs.report import export

    filters = make_filters(status, feedback_, problems, stale, escalated, channel, source, since, search, limit)
    everything = ctx.get_parameter_source("limit") == click.core.ParameterSource.DEFAULT
    with clear_errors():
        for piece in export(
            runtime_for(db or ctx.obj.get("db"), reads_only=True).engine, filters, fmt, None if everything else limit
        ):
            sys.stdout.write(piece)
    sys.stdout.flush()


@logs_group.command("prune")
@click.option("--older-than", "older_than", required=True, metavar="AGE", help="e.g. 90d")
@db_option
@click.pass_context
def logs_prune(ctx, older_than: str, db: str | None) -> None:
    """Delete logged questions older than AGE (LOG_RETENTION_DAYS does this daily under serve)."""
    from bot.logs.report import parse_age, prune

    try:
        age = parse_age(older_than)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--older-than")
    with clear_errors():
        n = prune(runtime_for(db or ctx.obj.get("db"), reads_only=True).engine, age)
    click.echo(f"Deleted {n} question{'s' if n != 1 else ''} older than {older_than}.")


@click.command("gaps")
@click.option("--since", metavar="AGE", help="e.g. 30d")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000), help="Show at most this many gaps.")
@click.option(
    "--state",
    type=click.Choice(GAP_STATES),
    default="open",
    show_default=True,
    help="Open gaps, or those a docs owner marked covered or won't document (on the review page).",
)
@db_option
@json_option
def gaps_cmd(since: str | None, limit: int, state: str, db: str | None, as_json: bool) -> None:
    """What the docs don't answer yet: unanswered or 'not helpful' questions, grouped, most asked first."""
    from bot.logs.gaps import gaps
    from bot.logs.team_answers import due_answers

    checked_age(since, "--since")
    with clear_errors():
        engine = runtime_for(db, reads_only=True).engine
        groups = gaps(engine, since, state=state)[:limit]
        due = due_answers(engine)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "count": g.count,
                        "latest": g.latest["question"],
                        "latest_id": g.latest["id"],
                        "first_asked": g.first_asked.isoformat(),
                        "last_asked": g.last_asked.isoformat(),
                        "reasons": g.reasons,
                        "channels": g.channels,
                        "questions": [q["question"] for q in g.questions],
                        "question_ids": g.ids,
                        "closest_pages": g.closest_pages(),
                        "not_helpful_reasons": g.feedback,
                        "owner": g.owner,
                        "note": g.note,
                    }
                    for g in groups
                ],
                indent=2,
            )
        )
        return
    for a in due:  # knowledge that may have gone stale is a gap of its own
        click.echo(
            f"  due   team answer #{a.id}, {a.label}: {' '.join(a.question.split())[:70]} (`supportbot answers show {a.id}`)"
        )
    if not groups:
        click.echo("No gaps: every logged question was answered and nobody marked an answer unhelpful.")
        return
    for g in groups:
        click.echo(f"{g.count:>4}x  {g.latest['question']}  (latest #{g.latest['id']})")
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(g.reasons.items()))
        where = f" in {', '.join(g.channels)}" if g.channels else ""
        click.echo(f"        {why}; asked {g.first_asked:%Y-%m-%d} to {g.last_asked:%Y-%m-%d}{where}")
        others = [q["question"] for q in g.questions[1:4]]
        for o in others:
            click.echo(f"        also: {o}")
        if g.closest_pages():
            click.echo(f"        closest pages: {', '.join(g.closest_pages())}")
        for reason in g.feedback[:3]:
            click.echo(f"        not helpful: {' '.join(reason.split())[:100]}")
        if g.owner or g.note:
            click.echo(f"        {'; '.join(filter(None, (g.owner and f'owner: {g.owner}', g.note and f'note: {g.note}')))}")


@click.command("digest")
@click.option("--since", metavar="AGE", default="7d", show_default=True, help="The span the digest covers, e.g. 7d, 14d.")
@click.option("--post", is_flag=True, help="Post it to REVIEW_DIGEST_CHANNEL with the bot's token instead of printing it.")
@db_option
def digest_cmd(since: str, post: bool, db: str | None) -> None:
    """The docs owner's week: questions with answered and helpful rates, top gaps, new stale answers and what was
    marked not helpful, each linked to the review page (REVIEW_URL). `serve` posts it weekly when
    REVIEW_DIGEST_CHANNEL is set."""
    from bot.logs.report import parse_age

    checked_age(since, "--since")
    days = max(1, round(parse_age(since).total_seconds() / 86400))
    with clear_errors():
        rt = runtime_for(db, reads_only=True)
        s = rt.settings
        if not post:
            from bot.logs.digest import digest
            from bot.slack.digest import PLAIN, write

            click.echo(write(digest(rt.engine, days), s.review_url, PLAIN, s.review_timezone))
            return
        if not s.review_digest_channel or not s.slack_bot_token:
            raise click.ClickException("--post needs REVIEW_DIGEST_CHANNEL (where to post) and SLACK_BOT_TOKEN (the bot's token)")
        from bot.slack.digest import post as post_digest
        from bot.slack.startup import web_client

        post_digest(rt.engine, web_client(s), s.review_digest_channel, s.review_url, s.review_timezone, days)
        click.echo(f"Posted the digest to {s.review_digest_channel}.", err=True)
