"""The review page's views, one top-level function a route, reading the log through bot.logs.

The app (bot.review.app) holds what they share in its config: the log's engine, the token's CSRF value and the
eval file; the views take them from the app serving the request.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from urllib.parse import urlencode

from flask import Blueprint, abort, current_app, redirect, render_template, request
from sqlalchemy import Engine

from bot.agent.types import STATUSES
from bot.logs.gaps import GAP_STATES, gaps, mark_gap
from bot.logs.names import names_of
from bot.logs.overview import overview
from bot.logs.report import Filters, list_questions, parse_age, question_trace, real_problems, sync_history
from bot.logs.stale import count_stale, stale_by_page
from bot.logs.store import ASKED_FROM, cited_paths
from bot.logs.team_answers import STATES, TeamAnswerError, dismiss, list_answers, publish
from bot.logs.trace import handover_state
from bot.review import charts
from bot.slack.stale_notice import NotTold, tell_asker
from kb.clock import now
from kb.state import known_pages, page, page_lines

review = Blueprint("review", __name__)

MAX_ID = 2**63 - 1
PAGE = 50  # questions a page
GAP_WINDOWS = ("7d", "30d", "90d", "all")
MAX_EVAL_PAGES = 20  # right pages (or facts) an eval case may name
MAX_ANSWER_CHARS = 20_000  # a team answer's text, as a docs owner edits it
MAX_NOTE_CHARS = 2_000  # why a gap won't be documented
MAX_OWNER_CHARS = 128  # who will write it (log_covered.owner)


def _engine() -> Engine:
    return current_app.config["LOG_ENGINE"]


def _eval_file() -> Path | None:
    return current_app.config["EVAL_FILE"]


def _check_write() -> None:
    """A change needs the token and the CSRF field of a form this page served."""
    csrf = current_app.config["CSRF"]
    if not csrf or not hmac.compare_digest((request.form.get("csrf") or "").encode(), csrf.encode()):
        abort(403)


def duration(seconds: float) -> str:
    """A wait as people say it: 40 s, 12 min, 3.5 h, 2 days."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


def _page_id(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() and int(value) <= MAX_ID else None


@review.get("/")
def overview_page():
    o = overview(_engine())
    return render_template(
        "overview.html",
        o=o,
        per_day_chart=charts.stacked_bars(o.days, o.per_day, "Questions per day by status"),
        rates_chart=charts.lines(
            o.weeks, {"abstained": o.abstention_rate, "helpful": o.helpful_rate}, "Abstention and helpful rates per week"
        ),
        stale_count=count_stale(_engine()),
        pct=lambda x: "–" if x is None else f"{x:.0%}",
        ms=lambda x: "–" if x is None else f"{x:,.0f} ms",
        duration=duration,
    )


@review.get("/questions")
def question_list():
    a = request.args
    since = a.get("since") or None
    error = None
    if since:
        try:
            parse_age(since)
        except ValueError as e:
            error, since = str(e), None
    status = a.get("status") if a.get("status") in STATUSES else None
    fb = a.get("feedback") if a.get("feedback") in ("up", "down") else None
    source = a.get("source") if a.get("source") in (*ASKED_FROM, "all") else ""
    filters = Filters(
        status,
        fb,
        a.get("problems") == "1",
        a.get("channel") or None,
        since,
        a.get("search") or None,
        PAGE + 1,  # one more than shown: is there an older page?
        source if source in ASKED_FROM else None,
        stale=a.get("stale") == "1",
        escalated=a.get("escalated") == "1",
        hide_eval=source == "",
        before=_page_id(a.get("before")),
        after=_page_id(a.get("after")),
    )
    rows = list_questions(_engine(), filters)
    more = len(rows) > PAGE
    rows = (rows[1:] if filters.after is not None else rows[:-1]) if more else rows
    kept = {k: v for k, v in a.items() if k not in ("before", "after", "token") and v}
    older = newer = None
    if rows and (more or filters.after is not None):
        older = "/questions?" + urlencode({**kept, "before": rows[-1]["id"]})
    if rows and (filters.before is not None or (filters.after is not None and more)):
        newer = "/questions?" + urlencode({**kept, "after": rows[0]["id"]})
    return render_template(
        "list.html",
        rows=rows,
        f=filters,
        source=source,
        statuses=STATUSES,
        sources=ASKED_FROM,
        error=error,
        older=older,
        newer=newer,
    )


@review.get("/stale")
def stale_list():
    return render_template("stale.html", pages=stale_by_page(_engine()))


@review.post("/questions/<int:question_id>/tell")
def tell_the_asker(question_id: int):
    """Post in the answer's thread that a page it cited changed, with what it says now, in the owner's name."""
    _check_write()
    slack = current_app.config["SLACK"]
    owner = (request.form.get("owner") or "").strip()[:MAX_OWNER_CHARS]
    if slack is None or question_id > MAX_ID:
        abort(404)
    if not owner:
        return render_template(
            "message.html", title="Tell the asker", message="Give your name: the asker reads who told them."
        ), 422
    try:
        tell_asker(_engine(), slack, question_id, owner, current_app.config["LINKS"])
    except NotTold as e:
        return render_template("message.html", title="Tell the asker", message=str(e)), 409
    return redirect("/stale", code=303)


@review.get("/docs/<path:path>")
def doc_page(path: str):
    """A page as the index holds it, read-only, the cited lines marked (?lines=9-12): where a source links when the
    docs have no site and no web view (REVIEW_URL)."""
    with _engine().connect() as conn:
        found = page(conn, path)
        lines = page_lines(conn, path) if found is not None else {}
    if found is None:
        abort(404)
    first, _, last = (request.args.get("lines") or "").partition("-")
    marked = range(int(first), int(last or first) + 1) if first.isdigit() and (last or first).isdigit() else range(0)
    return render_template("doc.html", path=path, page=found, lines=sorted(lines.items()), marked=marked)


@review.get("/q/<int:question_id>")  # the address earlier versions linked to
@review.get("/questions/<int:question_id>")
def question_detail(question_id: int):
    if question_id > MAX_ID:  # no row has it, and the database cannot even compare it
        abort(404)
    trace = question_trace(_engine(), question_id)
    if trace is None:
        abort(404)
    trace["problems"] = real_problems(trace["problems"])
    cited = cited_paths(trace.get("sources") or [], trace.get("cited") or [])
    handover = trace.get("handover") or {}
    ids = [trace.get("user_id"), trace.get("escalated_by"), handover.get("resolved_by")]
    names = names_of(_engine(), [*ids, *(f.get("user_id") for f in trace["feedback"])])
    return render_template(
        "detail.html", t=trace, cited=cited, handover_state=handover_state, who=lambda uid: names.get(uid or "", uid)
    )


@review.get("/gaps")
def gap_list():
    since = request.args.get("since") if request.args.get("since") in GAP_WINDOWS else "30d"
    state = request.args.get("state") if request.args.get("state") in GAP_STATES else "open"
    groups = gaps(_engine(), None if since == "all" else since, state=state)[:50]
    return render_template("gaps.html", groups=groups, since=since, windows=GAP_WINDOWS, state=state, states=GAP_STATES)


@review.post("/gaps/mark")
def gap_mark():
    """Covered, won't document (it needs a note: the next owner will ask why), or still open with an owner."""
    _check_write()
    ids = [int(i) for i in (request.form.get("ids") or "").split(",") if i.strip().isdigit() and int(i) <= MAX_ID]
    state = request.form.get("state")
    note = (request.form.get("note") or "").strip()[:MAX_NOTE_CHARS] or None
    owner = (request.form.get("owner") or "").strip()[:MAX_OWNER_CHARS] or None
    if state not in GAP_STATES or not ids:
        abort(400)
    if state == "wont_document" and not note:
        message = "Say why it won't be documented: the note is what the next person to see this question will read."
        return render_template("message.html", title="Gaps", message=message), 422
    mark_gap(_engine(), ids, state, note=note, owner=owner)
    return redirect("/gaps", code=303)


@review.post("/questions/<int:question_id>/eval")
def add_to_eval(question_id: int):
    _check_write()
    trace = question_trace(_engine(), question_id) if question_id <= MAX_ID else None
    eval_file = _eval_file()
    if trace is None or eval_file is None:
        abort(404)
    from bot.review.eval_file import EvalFileError, append_case

    case, refused = eval_case(_engine(), trace, request.form)
    if case is None:
        return render_template("message.html", title="Eval set", message=refused), 422
    try:
        added = append_case(eval_file, case)
    except EvalFileError as e:
        return render_template("message.html", title="Eval set", message=str(e)), 409
    message = f"Added to {eval_file}." if added else f"Already in {eval_file}."
    return render_template("message.html", title="Eval set", message=message)


@review.get("/answers")
def team_answer_list():
    state = request.args.get("state") if request.args.get("state") in STATES else "candidate"
    found = list_answers(_engine(), state)
    return render_template("answers.html", answers=found, state=state, states=STATES, at=now())


@review.post("/answers/<int:answer_id>/publish")
def team_answer_publish(answer_id: int):
    _check_write()
    text = (request.form.get("text") or "").strip()
    if answer_id > MAX_ID or not text or len(text) > MAX_ANSWER_CHARS:
        abort(400)
    try:
        publish(_engine(), answer_id, current_app.config["TEAM_ANSWER_DAYS"], text)
    except TeamAnswerError:
        abort(404)
    return redirect("/answers?state=published", code=303)


@review.post("/answers/<int:answer_id>/dismiss")
def team_answer_dismiss(answer_id: int):
    _check_write()
    if answer_id > MAX_ID:
        abort(404)
    try:
        dismiss(_engine(), answer_id)
    except TeamAnswerError:
        abort(404)
    return redirect("/answers", code=303)


@review.get("/syncs")
def sync_list():
    return render_template("syncs.html", runs=sync_history(_engine()))


NOT_HELPFUL = "This answer was marked not helpful, so its citations are not taken as right: choose the right pages first."


def eval_case(engine: Engine, trace: dict, form) -> tuple[dict | None, str]:
    """The eval case the owner chose: the question, the right pages (the cited ones they kept, and any they typed)
    and the facts a right answer holds. A bare request takes the cited pages, unless someone marked the answer not
    helpful: its citations may be the very mistake. (None, why) when there is nothing right to record."""
    if form.get("chosen"):
        typed = [p.strip() for p in (form.get("more_pages") or "").replace("\n", ",").split(",") if p.strip()]
        pages = list(dict.fromkeys([*form.getlist("pages"), *typed]))[:MAX_EVAL_PAGES]
    elif any(f.get("value") == "down" for f in trace.get("feedback") or []):
        return None, NOT_HELPFUL
    else:
        pages = cited_paths(trace.get("sources") or [], trace.get("cited") or [])
    if not pages:
        return None, "Choose at least one right page: a question with no right page is one the docs must not answer."
    with engine.connect() as conn:
        known = known_pages(conn, pages)
    unknown = [p for p in pages if p not in known]
    if unknown:
        return None, f"Not pages of the index: {', '.join(unknown)}. Use the paths the sources show."
    case: dict = {"question": trace["question"], "sources": pages}
    facts = [f.strip() for f in (form.get("facts") or "").split(";") if f.strip()][:MAX_EVAL_PAGES]
    if facts:
        case["facts"] = facts
    return case, ""
