"""Reading the answer log: filtered lists, one question's trace, exports and pruning (the gaps list: bot.logs.gaps).

The command line and the review page both call these, so they always agree.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, and_, case, delete, exists, func, or_, select

from bot.logs.models import cited_pages, covered, feedback, handovers, questions, searches
from kb.hits import HitRecord
from kb.models import chunks, sync_runs

_AGE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
MAX_AGE = timedelta(days=36_525)  # 100 years: older than any log, and far from datetime's limits
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_age(text: str) -> timedelta:
    """'7d', '12h', '90d', '2w' -> a timedelta."""
    m = _AGE.match(text or "")
    if not m:
        raise ValueError(f"not an age: {text!r} (use a number and one of s, m, h, d, w, e.g. 7d)")
    try:
        age = timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
    except OverflowError:
        age = MAX_AGE + timedelta(days=1)
    if age > MAX_AGE:
        raise ValueError(f"an age of at most 100 years, please (got {text!r:.30})")
    return age


@dataclass
class Filters:
    status: str | None = None
    feedback: str | None = None  # "up" | "down"
    problems: bool = False
    channel: str | None = None
    since: str | None = None  # "7d"
    search: str | None = None
    limit: int = 50
    source: str | None = None  # cli | slack | eval
    stale: bool = False  # only answers a later docs change made stale
    escalated: bool = False  # only questions someone handed to a person
    hide_eval: bool = False  # leave out eval runs (the review page's default)
    before: int | None = None  # keyset paging: rows older than this id
    after: int | None = None  # ... or newer than this id (the page before)


def feedback_summary():
    ups = func.sum(case((feedback.c.value == "up", 1), else_=0))
    downs = func.sum(case((feedback.c.value == "down", 1), else_=0))
    return select(feedback.c.question_id, ups.label("ups"), downs.label("downs")).group_by(feedback.c.question_id).subquery()


def _conditions(f: Filters) -> list:
    """The filters as WHERE conditions on log_questions (all but `problems`, which is checked in Python)."""
    conditions = []
    if f.status:
        conditions.append(questions.c.status == f.status)
    if f.feedback == "down":
        conditions.append(exists().where(feedback.c.question_id == questions.c.id, feedback.c.value == "down"))
    elif f.feedback == "up":
        conditions.append(exists().where(feedback.c.question_id == questions.c.id, feedback.c.value == "up"))
    if f.channel:
        conditions.append(questions.c.channel == f.channel)
    if f.source:
        conditions.append(questions.c.source == f.source)
    if f.stale:
        conditions.append(questions.c.stale_at.is_not(None))
    if f.escalated:
        conditions.append(questions.c.escalated_at.is_not(None))
    if f.hide_eval:
        conditions.append(questions.c.source != "eval")
    if f.since:
        conditions.append(questions.c.created_at >= datetime.now(UTC) - parse_age(f.since))
    if f.search:
        like = f"%{f.search.lower()}%"
        conditions.append(or_(func.lower(questions.c.question).like(like), func.lower(questions.c.answer).like(like)))
    return conditions


def list_questions(engine: Engine, f: Filters) -> list[dict]:
    fb = feedback_summary()
    q = select(
        questions.c.id,
        questions.c.created_at,
        questions.c.source,
        questions.c.channel,
        questions.c.user_id,
        questions.c.status,
        questions.c.question,
        questions.c.answerer,
        questions.c.latency_ms,
        questions.c.problems,
        questions.c.stale_at,
        questions.c.escalated_at,
        func.coalesce(fb.c.ups, 0).label("ups"),
        func.coalesce(fb.c.downs, 0).label("downs"),
    ).outerjoin(fb, fb.c.question_id == questions.c.id)
    conditions = _conditions(f)
    if f.before is not None:
        conditions.append(questions.c.id < f.before)
    if f.after is not None:
        conditions.append(questions.c.id > f.after)
    if conditions:
        q = q.where(and_(*conditions))
    # Newest first by id (ids grow with time): a page is a keyset range, as fast at page 1,000 as at page 1.
    q = q.order_by(questions.c.id.asc() if f.after is not None else questions.c.id.desc())
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(q if f.problems else q.limit(f.limit))]
    if f.after is not None:
        rows.reverse()
    for r in rows:
        r["feedback"] = _feedback_label(r["ups"], r["downs"])
        r["problems"] = real_problems(r["problems"])
    if f.problems:  # JSON emptiness is spelled differently per database: filter here
        rows = [r for r in rows if r["problems"]]
        rows = rows[-f.limit :] if f.after is not None else rows[: f.limit]
    return rows


def real_problems(problems: list[dict] | None) -> list[dict]:
    """Problems worth a reviewer's time; an abstention's note explains, it is not a fault."""
    return [p for p in problems or [] if p.get("kind") != "abstained"]


def _feedback_label(ups: int, downs: int) -> str:
    return "down" if downs else "up" if ups else ""


def question_trace(engine: Engine, question_id: int) -> dict | None:
    with engine.connect() as conn:
        row = conn.execute(select(questions).where(questions.c.id == question_id)).mappings().first()
        if row is None:
            return None
        trace = dict(row)
        trace.pop("vector", None)  # for grouping gaps, not for reading
        trace["searches"] = [
            {**s, "hits": [HitRecord.from_dict(h) for h in s["hits"]]}
            for s in conn.execute(
                select(searches).where(searches.c.question_id == question_id).order_by(searches.c.ordinal)
            ).mappings()
        ]
        trace["feedback"] = [
            dict(fb)
            for fb in conn.execute(
                select(feedback).where(feedback.c.question_id == question_id).order_by(feedback.c.id)
            ).mappings()
        ]
        handover = conn.execute(select(handovers).where(handovers.c.question_id == question_id)).mappings().first()
        trace["handover"] = dict(handover) if handover else None
        trace["passages"] = _cited_passages(conn, trace)
    return trace


def _cited_passages(conn, trace: dict) -> dict[int, dict]:
    """Each cited chunk's whole passage as the index has it now, its cited lines marked, by source number.
    A chunk re-indexed since (its page changed) is gone: the review shows the cited lines alone."""
    ids = {c["chunk_id"] for c in trace.get("cited") or [] if c.get("chunk_id")}
    if not ids:
        return {}
    found = {r.id: r for r in conn.execute(select(chunks.c.id, chunks.c.heading, chunks.c.lines).where(chunks.c.id.in_(ids)))}
    passages: dict[int, dict] = {}
    for c in trace["cited"]:
        row = found.get(c.get("chunk_id"))
        cited = {number for number, _ in c.get("lines") or []}
        if row is None or not cited <= {number for number, _ in row.lines}:
            continue
        entry = passages.setdefault(c["n"], {"heading": row.heading, "lines": [], "cited": set()})
        if not entry["lines"]:
            entry["lines"] = [(number, text) for number, text in row.lines]
        entry["cited"] |= cited
    return passages


EXPORT_FIELDS = [
    "id",
    "created_at",
    "source",
    "channel",
    "user_id",
    "thread_ts",
    "permalink",
    "question",
    "answerer",
    "model",
    "status",
    "answer",
    "sources",
    "problems",
    "usage",
    "error",
    "latency_ms",
    "stale",
    "escalated",
    "feedback",
    "searches",
]


EXPORT_BATCH = 1000


def export_records(engine: Engine, f: Filters, limit: int | None = None) -> Iterator[dict]:
    """Every matching question with its searches and feedback, newest first, read a batch at a time (keyset
    pagination on id, three queries a batch), so memory stays flat however many rows match."""
    conditions = _conditions(f)
    columns = [questions.c[k] for k in EXPORT_FIELDS if k not in ("feedback", "searches", "stale", "escalated")]
    columns += [questions.c.stale_at, questions.c.escalated_at]
    last_id, sent = None, 0
    with engine.connect() as conn:
        while limit is None or sent < limit:
            q = select(*columns).where(*conditions, *([questions.c.id < last_id] if last_id is not None else []))
            batch = [dict(r._mapping) for r in conn.execute(q.order_by(questions.c.id.desc()).limit(EXPORT_BATCH))]
            if not batch:
                return
            last_id = batch[-1]["id"]
            ids = [r["id"] for r in batch]
            found: dict[int, list] = {i: [] for i in ids}
            for s in conn.execute(
                select(searches).where(searches.c.question_id.in_(ids)).order_by(searches.c.ordinal)
            ).mappings():
                found[s["question_id"]].append({"query": s["query"], "collection": s["collection"], "hits": s["hits"]})
            votes: dict[int, list] = {i: [] for i in ids}
            for x in conn.execute(select(feedback).where(feedback.c.question_id.in_(ids)).order_by(feedback.c.id)).mappings():
                votes[x["question_id"]].append(
                    {"value": x["value"], "user_id": x["user_id"], "at": x["created_at"].isoformat(), "reason": x["reason"]}
                )
            for r in batch:
                if f.problems and not real_problems(r["problems"]):
                    continue
                r["created_at"] = r["created_at"].isoformat()
                r["stale"] = r.pop("stale_at") is not None
                r["escalated"] = r.pop("escalated_at") is not None
                r["searches"], r["feedback"] = found[r["id"]], votes[r["id"]]
                yield {k: r.get(k) for k in EXPORT_FIELDS}
                sent += 1
                if limit is not None and sent >= limit:
                    return


def export(engine: Engine, f: Filters, fmt: str, limit: int | None = None) -> Iterator[str]:
    """The export as text pieces (JSON lines, or CSV with its header first), ready to write as they come."""
    if fmt == "jsonl":
        for r in export_records(engine, f, limit):
            yield json.dumps(r, ensure_ascii=False) + "\n"
        return
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS)
    writer.writeheader()
    for n, r in enumerate(export_records(engine, f, limit), 1):
        writer.writerow({k: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v for k, v in r.items()})
        if n % EXPORT_BATCH == 0:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    yield out.getvalue()


def prune(engine: Engine, older_than: timedelta) -> int:
    """Delete questions (with their searches and feedback) older than the given age."""
    cutoff = datetime.now(UTC) - older_than
    with engine.begin() as conn:
        old = select(questions.c.id).where(questions.c.created_at < cutoff)
        conn.execute(delete(searches).where(searches.c.question_id.in_(old)))
        conn.execute(delete(feedback).where(feedback.c.question_id.in_(old)))
        conn.execute(delete(cited_pages).where(cited_pages.c.question_id.in_(old)))
        conn.execute(delete(covered).where(covered.c.question_id.in_(old)))
        conn.execute(delete(handovers).where(handovers.c.question_id.in_(old)))
        return conn.execute(delete(questions).where(questions.c.created_at < cutoff)).rowcount


def sync_history(engine: Engine, limit: int = 50) -> list[dict]:
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(sync_runs).order_by(sync_runs.c.id.desc()).limit(limit)).mappings()]
