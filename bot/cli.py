"""The `supportbot` command line."""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from sqlalchemy.exc import OperationalError, ProgrammingError

from bot.agent.types import STATUSES, Answer
from bot.logs.store import ASKED_FROM, Origin
from kb.errors import SupportbotError

if TYPE_CHECKING:  # the rest is imported by the command that uses it, so `--help` and `logs` start fast
    from bot.logs.report import Filters
    from bot.runtime import Runtime
    from kb.encode import EncodeReport
    from kb.sync import SyncReport


def db_option(f):
    return click.option("--db", "db", metavar="URL", help="Database URL (overrides DATABASE_URL).")(f)


def docs_option(f):
    return click.option(
        "--docs", "docs", metavar="DIR", type=click.Path(path_type=Path), help="Docs folder (overrides DOCS_DIR)."
    )(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """supportbot: answers your team's questions from your own docs, with sources."""


@contextmanager
def clear_errors():
    """Known failures become one clear line and an exit code, never a traceback."""
    try:
        yield
    except SupportbotError as e:  # the family's message is written for the user; busy syncs exit 3
        click.echo(f"Error: {e}", err=True)
        sys.exit(e.exit_code)
    except (OperationalError, ProgrammingError) as e:
        first = (str(e.orig).strip().splitlines() or [type(e.orig).__name__])[0]
        raise click.ClickException(f"database error: {first} (DATABASE_URL)")


def runtime_for(db: str | None, docs: Path | None = None, *, reads_only: bool = False) -> Runtime:
    """reads_only: a command that only reads the log refuses a SQLite file that is not there, and creates nothing."""
    from bot.database import existing_database
    from bot.runtime import Runtime
    from bot.settings import load_settings

    settings = load_settings(database_url=db, docs_dir=docs)
    if reads_only:
        existing_database(settings.database_url)
    return Runtime(settings)


PROGRESS_EVERY_S = 10.0  # off a terminal, how often a long sync says how far it is


def progress_bar(label: str = "Indexing", unit: str = "documents", every_s: float = PROGRESS_EVERY_S):
    """A progress callback for syncs: a bar on a terminal; elsewhere (a log file, a container, `serve`'s sync
    child) a line when the work starts, then one every every_s, so a long first sync is never silent."""
    state: dict = {}
    if not sys.stderr.isatty():

        def line(done: int, total: int) -> None:
            if "said" not in state or done == total or time.monotonic() - state["said"] >= every_s:
                state["said"] = time.monotonic()
                click.echo(f"{label}: {done:,} of {total:,} {unit}", err=True)

        return line, lambda: None

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr)
            state["bar"].__enter__()
            state["bar"].update(done - 1)
        state["bar"].update(done - state["bar"].pos)

    def close() -> None:
        if "bar" in state:
            state["bar"].__exit__(None, None, None)

    return update, close


def print_sync_report(report: SyncReport, err: bool = False) -> None:
    echo = lambda s="": click.echo(s, err=err)
    echo(
        f"Synced {report.docs_dir} in {report.seconds:.2f} s: {len(report.added)} added, {len(report.changed)} changed, "
        f"{len(report.removed)} removed, {report.unchanged} unchanged, {report.skipped} skipped. "
        f"Index version {report.index_version}, {report.chunks} chunks."
        + (f" {report.embedded} chunks re-embedded for the current model." if report.embedded else "")
        + (f" Docs at git commit {report.source_commit[:12]}." if report.source_commit else "")
        + (
            f" {report.stale_answers} logged answer(s) cite lines that changed: `supportbot logs --stale`."
            if report.stale_answers
            else ""
        )
    )
    if report.encoding is not None:
        echo(encoding_line(report.encoding))
    if report.new_problems:
        echo("Problems:")
        for p in report.new_problems:
            echo(f"  {p.action:<21} {p.path}: {p.reason}")
    known = len(report.problems) - len(report.new_problems)
    if known:
        echo(f"{known} known problem(s), the same as at the last sync (--json lists them all).")


def encoding_line(e: EncodeReport) -> str:
    state = "all passages" if not e.left else f"{e.done:,} of {e.total:,} passages ({e.left:,} left for the next pass)"
    return f"Re-ranking vectors: {state}; {e.encoded:,} encoded in {e.seconds:.1f} s."


@main.command("sync")
@docs_option
@db_option
@json_option
@click.option("--no-encode", "no_encode", is_flag=True, help="Index only; leave the re-ranking vectors to `supportbot encode`.")
@click.option(
    "--progress-every",
    "every_s",
    type=click.FloatRange(min=0.1),
    default=PROGRESS_EVERY_S,
    show_default=True,
    help="Off a terminal, seconds between progress lines on stderr (with --json too: `serve` reads them).",
)
def sync_cmd(docs: Path | None, db: str | None, as_json: bool, no_encode: bool, every_s: float) -> None:
    """Index the docs folder incrementally (only changed documents are re-read), then compute the re-ranking
    vectors it lacks (the index serves without them meanwhile)."""
    with clear_errors():
        rt = runtime_for(db, docs)
        update, close = progress_bar(every_s=every_s) if not as_json or not sys.stderr.isatty() else (None, lambda: None)
        try:
            report = rt.sync(docs, progress=update, encode=False)
        finally:
            close()
        if not no_encode:
            update, close = progress_bar("Encoding", "passages") if not as_json else (None, lambda: None)
            try:
                report.encoding = rt.encode(progress=update)
            finally:
                close()
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
    else:
        print_sync_report(report)


@main.command("encode")
@db_option
@json_option
@click.option("--seconds", type=click.FloatRange(min=1), default=None, help="Stop after about this long; the next run goes on.")
def encode_cmd(db: str | None, as_json: bool, seconds: float | None) -> None:
    """Compute the sentence encoder's vectors the index lacks, which re-rank the top pages (SEARCH_MODE=rerank).
    `sync` does it after indexing; `serve` runs it in a child process after each scheduled sync."""
    with clear_errors():
        rt = runtime_for(db)
        update, close = progress_bar("Encoding", "passages") if not as_json else (None, lambda: None)
        try:
            report = rt.encode(seconds, progress=update)
        finally:
            close()
    if as_json:
        click.echo(json.dumps(report.as_dict() if report else None))
    elif report is None:
        click.echo("No re-ranking here: SEARCH_MODE is not rerank, or the encoder could not load.")
    else:
        click.echo(encoding_line(report))


@main.command("search")
@click.argument("query")
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 100), help="How many hits.")
@click.option("--collection", "collection", metavar="NAME", help="Search one collection only.")
@docs_option
@db_option
@json_option
def search_cmd(query: str, k: int, collection: str | None, docs: Path | None, db: str | None, as_json: bool) -> None:
    """Search the index with BM25 and show the best passages."""
    with clear_errors():
        rt = runtime_for(db, docs)
        rt.ensure_index(docs, announce=None if as_json else lambda r: print_sync_report(r, err=True))
        hits = rt.searcher.search(query, k=k, collections=[collection] if collection else None)
    if as_json:
        click.echo(json.dumps({"query": query, "hits": [h.as_dict() for h in hits]}, indent=2))
        return
    if not hits:
        click.echo(f"No passage scores above the evidence threshold for {query!r}. Try the docs' own words.")
        return
    for n, h in enumerate(hits, 1):
        click.echo(f"{n}. {h.heading}  ({h.path}, {h.collection})  score {h.score:.2f}")
        if h.url:
            click.echo(f"   {h.url}")
        snippet = " ".join(h.text.split())
        click.echo(f"   {snippet[:200]}{'…' if len(snippet) > 200 else ''}")


def answerer_option(f):
    return click.option(
        "--answerer",
        type=click.Choice(["local", "claude"]),
        help="Who answers (default: claude with ANTHROPIC_API_KEY, else local).",
    )(f)


def check_claude(rt: Runtime) -> None:
    """With a key set, `serve` checks key and model once at start: a typo is found now, not at the first question."""
    import logging

    if rt.agent.claude is None:
        return
    from bot.agent.claude import check_model

    warning = check_model(*rt.agent.claude)
    if warning:
        logging.getLogger("bot.cli").warning(warning)


def needs_key(rt: Runtime, answerer: str | None) -> None:
    from bot.settings import ConfigError

    if answerer == "claude" and not rt.settings.anthropic_api_key:
        raise ConfigError("--answerer claude needs ANTHROPIC_API_KEY (in the environment or .env)")


def print_answer(a: Answer, trace: bool) -> None:
    if trace:
        for step in a.steps:
            if step.thought:
                click.echo(f"Thought: {step.thought}")
            click.echo(f"Action: {step.tool} {json.dumps(step.input)}")
            click.echo(f"Observation: {step.observation}")
        click.echo()
    click.echo(a.answer)
    if a.sources:
        click.echo("\nSources:")
        for src in a.sources:
            click.echo(f"  [{src.n}] {src.title} - {src.url or src.path}")
    if a.closest:
        click.echo("\nClosest pages to look at:")
        for src in a.closest:
            click.echo(f"  - {src.title} - {src.url or src.path}")
    if a.problems and trace:
        click.echo("\nProblems:")
        for p in a.problems:
            click.echo(f"  - {json.dumps(p.as_dict())}")
    label = a.answerer + (f" ({a.model})" if a.model else "")
    click.echo(f"\n[{a.status}, {label}, {a.latency_ms:.0f} ms]", err=True)


@main.command("ask")
@click.argument("question")
@docs_option
@db_option
@answerer_option
@click.option("--collection", "collection", metavar="NAME", help="Answer from one collection only.")
@click.option("--trace", is_flag=True, help="Show each step as Thought / Action / Observation.")
@json_option
def ask_cmd(question, docs, db, answerer, collection, trace, as_json) -> None:
    """Answer a question from the docs, with numbered sources."""
    with clear_errors():
        rt = runtime_for(db, docs)
        needs_key(rt, answerer)
        rt.ensure_index(docs, announce=None if as_json else lambda r: print_sync_report(r, err=True))
        a = rt.ask(question, answerer=answerer, collections=[collection] if collection else None, origin=Origin("cli"))
    if as_json:
        click.echo(json.dumps(a.as_dict(), indent=2))
    else:
        print_answer(a, trace)
    if a.status == "error":
        sys.exit(1)


def share_option(name: str, help: str):
    """An eval threshold: a share from 0 to 1, off (0) unless given."""
    return click.option(name, type=click.FloatRange(0, 1), default=0.0, show_default=True, help=help)


@main.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@docs_option
@db_option
@answerer_option
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 50), help="Recall counts the top k hits.")
@share_option("--min-recall", "Fail (exit 2) below this recall@k of the answerer's searches.")
@share_option("--min-page-recall", "Fail below this page recall@k of one search with the question.")
@share_option("--min-mrr", "Fail below this MRR of the first right page.")
@share_option("--min-pass-rate", "Fail below this share of answerable questions answered right.")
@share_option("--min-abstention", "Fail below this share of uncovered questions abstained on.")
@click.option("--max-citation-problems", type=click.IntRange(0), default=None, help="Fail above this many citation problems.")
@json_option
def eval_cmd(
    file,
    docs,
    db,
    answerer,
    k,
    min_recall,
    min_page_recall,
    min_mrr,
    min_pass_rate,
    min_abstention,
    max_citation_problems,
    as_json,
):
    """Run a question set and score retrieval, answers, abstentions and citations."""
    from bot.evaluation import MRR_DEPTH, evaluate, found_pages, load_cases

    with clear_errors():
        cases = load_cases(file)
        rt = runtime_for(db, docs)
        needs_key(rt, answerer)
        rt.ensure_index(docs, announce=None if as_json else lambda r: print_sync_report(r, err=True))
        report = evaluate(
            cases,
            lambda q: rt.ask(q, answerer=answerer, origin=Origin("eval")),
            k=k,
            rank_pages=lambda q: found_pages(rt.searcher.search(q, k=MRR_DEPTH, min_score=0)),
        )
    summary = report.summary()
    if as_json:
        click.echo(
            json.dumps(
                {
                    "summary": summary,
                    "questions": [
                        {
                            "question": o.case.question,
                            "passed": o.passed,
                            "why": o.why,
                            "status": o.answer.status,
                            "found": [list(g) for g in o.found],
                            "page_rank": o.page_rank,
                        }
                        for o in report.outcomes
                    ],
                },
                indent=2,
            )
        )
    else:
        for o in report.outcomes:
            click.echo(f"{'PASS' if o.passed else 'FAIL'}  {o.case.question[:70]:<70}  {o.why}")
        click.echo()
        for key, value in summary.items():
            click.echo(f"{key:<22} {value}")
    failed = []
    if report.recall < min_recall:
        failed.append(f"recall@{k} {report.recall:.3f} < {min_recall}")
    if report.page_recall < min_page_recall:
        failed.append(f"page recall@{k} {report.page_recall:.3f} < {min_page_recall}")
    if report.mrr < min_mrr:
        failed.append(f"MRR {report.mrr:.3f} < {min_mrr}")
    if report.pass_rate < min_pass_rate:
        failed.append(f"answer pass rate {report.pass_rate:.3f} < {min_pass_rate}")
    if report.abstention_accuracy < min_abstention:
        failed.append(f"abstention accuracy {report.abstention_accuracy:.3f} < {min_abstention}")
    if max_citation_problems is not None and report.citation_problems > max_citation_problems:
        failed.append(f"citation problems {report.citation_problems} > {max_citation_problems}")
    if failed:
        click.echo("Below threshold: " + "; ".join(failed), err=True)
        sys.exit(2)


@main.command("serve")
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
    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackApiError

    from bot.logging_setup import configure_logging
    from bot.ports import check_port
    from bot.runtime import Runtime
    from bot.scheduler import start_scheduler
    from bot.settings import load_settings
    from bot.slack.app import build_app, check_tokens, load_access, serve, wait_for_slack

    with clear_errors():
        # Everything that can be checked here is, before any network call and before anything starts.
        settings = load_settings(database_url=db, docs_dir=docs)
        configure_logging(settings.log_level, settings.log_format)
        check_tokens(settings, http)
        access = load_access(settings)
        if http:
            check_port(host, port)
        elif settings.health_port:
            check_port(host, settings.health_port, "HEALTH_PORT")
        rt = Runtime(settings)
        check_claude(rt)
        name = wait_for_slack(settings, http)
        try:
            app, slack = build_app(rt, settings, access, name)
        except (BoltError, SlackApiError) as e:
            raise click.ClickException(f"Slack refused the bot token (SLACK_BOT_TOKEN): {e}")
        serve(app, slack, start_scheduler(rt), settings, http, host, port)


def log_filters(f):
    options = [
        click.option("--status", type=click.Choice(STATUSES), help="Only questions that ended this way."),
        click.option("--feedback", "feedback_", type=click.Choice(["up", "down"]), help="Only questions with this feedback."),
        click.option("--problems", is_flag=True, help="Only answers with citation or other problems."),
        click.option("--stale", is_flag=True, help="Only answers whose cited lines a later docs change altered or removed."),
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


def make_filters(status, feedback_, problems, stale, channel, source, since, search, limit) -> Filters:
    from bot.logs.report import Filters

    checked_age(since, "--since")
    return Filters(status, feedback_, problems, channel, since, search, limit, source, stale)


@main.group("logs", invoke_without_command=True)
@log_filters
@db_option
@click.pass_context
def logs_group(ctx, status, feedback_, problems, stale, channel, source, since, search, limit, db) -> None:
    """List logged questions, newest first (subcommands: show, export, prune)."""
    from bot.logs.report import list_questions

    ctx.obj = {"db": db}
    if ctx.invoked_subcommand is not None:
        return
    filters = make_filters(status, feedback_, problems, stale, channel, source, since, search, limit)
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
def logs_export(ctx, fmt, status, feedback_, problems, stale, channel, source, since, search, limit, db) -> None:
    """Print every matching question with its trace as JSON lines or CSV (--limit to stop early), streamed."""
    from bot.logs.report import export

    filters = make_filters(status, feedback_, problems, stale, channel, source, since, search, limit)
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


@main.command("gaps")
@click.option("--since", metavar="AGE", help="e.g. 30d")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000), help="Show at most this many gaps.")
@db_option
@json_option
def gaps_cmd(since: str | None, limit: int, db: str | None, as_json: bool) -> None:
    """What the docs don't answer yet: unanswered or 'not helpful' questions, grouped, most asked first."""
    from bot.logs.report import gaps

    checked_age(since, "--since")
    with clear_errors():
        groups = gaps(runtime_for(db, reads_only=True).engine, since)[:limit]
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
                    }
                    for g in groups
                ],
                indent=2,
            )
        )
        return
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


@main.command("review")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), help="The port to serve the page on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Any address but loopback needs REVIEW_TOKEN.")
@db_option
def review_cmd(port: int, host: str, db: str | None) -> None:
    """Serve the read-only review page: questions, traces, gaps and syncs."""
    from bot.ports import check_port
    from bot.review.app import check_binding, serve

    with clear_errors():
        rt = runtime_for(db, reads_only=True)
        token = rt.settings.review_token.get_secret_value() if rt.settings.review_token else None
        check_binding(host, token)
        check_port(host, port)
        click.echo(f"Review page on http://{host}:{port}/", err=True)
        serve(rt.engine, host, port, token, rt.settings.review_eval_file)


@main.group("db")
def db_group() -> None:
    """Database schema commands."""


@db_group.command("upgrade")
@db_option
def db_upgrade(db: str | None) -> None:
    """Apply every migration the database has not had yet."""
    from bot.database import current_revision, upgrade
    from bot.settings import load_settings
    from kb.database import create_db_engine, display_url

    with clear_errors():
        settings = load_settings(database_url=db)
        engine = create_db_engine(settings.database_url)
        before = current_revision(engine)
        upgrade(engine)
        after = current_revision(engine)
    where = display_url(settings.database_url)
    click.echo(f"{where}: schema {before or 'empty'} -> {after}" if before != after else f"{where}: schema already at {after}")


@db_group.command("current")
@db_option
def db_current(db: str | None) -> None:
    """Show the database's schema revision and the newest one."""
    from bot.database import current_revision, existing_database, head_revision
    from bot.settings import load_settings
    from kb.database import create_db_engine

    with clear_errors():
        url = existing_database(load_settings(database_url=db).database_url)
        rev = current_revision(create_db_engine(url))
    click.echo(f"current: {rev or 'empty'}\nhead:    {head_revision()}")


if __name__ == "__main__":  # pragma: no cover
    main()
