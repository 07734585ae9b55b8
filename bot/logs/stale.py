"""Answers a docs change has overtaken: after a sync, the answers citing a changed or removed page are checked
line by line, and those whose cited lines are no longer in the page are flagged stale, with the old line and
what the page says there now. Only the pages the sync changed are looked at."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import Engine, and_, func, select, update

from bot.logs.models import cited_pages, questions
from kb.clock import now
from kb.models import chunks, documents
from kb.state import page_lines


def flag_stale(engine: Engine, paths: list[str]) -> int:
    """Flag the answers whose cited lines on these pages changed or vanished; how many were flagged."""
    if not paths:
        return 0
    flagged = 0
    with engine.execution_options(sqlite_begin="IMMEDIATE").begin() as conn:  # reads, then writes: lock up front
        current = {path: page_lines(conn, path) for path in paths}
        texts = {path: {" ".join(t.split()) for t in lines.values()} for path, lines in current.items()}
        citing = select(cited_pages.c.question_id).where(cited_pages.c.path.in_(paths))
        affected = conn.execute(
            select(questions.c.id, questions.c.sources, questions.c.cited).where(
                questions.c.id.in_(citing), questions.c.stale_at.is_(None)
            )
        ).all()
        for qid, sources, cited in affected:
            by_n = {s["n"]: s["path"] for s in sources or []}
            changed: list[dict] = []
            seen: set[tuple[str, int]] = set()  # a line two citations quote is one change
            for c in cited or []:
                path = by_n.get(c.get("n"))
                if path not in current:
                    continue
                for number, text in c.get("lines") or []:
                    if (path, number) not in seen and " ".join(text.split()) not in texts[path]:  # moved: fine
                        seen.add((path, number))
                        changed.append({"path": path, "line": number, "old": text, "new": current[path].get(number)})
            if changed:
                conn.execute(update(questions).where(questions.c.id == qid).values(stale_at=now(), stale=changed))
                flagged += 1
    return flagged


def stale_by_page(engine: Engine, limit: int = 500) -> dict[str, list[dict]]:
    """The stale answers, newest first, grouped by the page whose change overtook them; `tellable`: asked in a Slack
    thread the bot can write in."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                questions.c.id,
                questions.c.created_at,
                questions.c.question,
                questions.c.stale_at,
                questions.c.stale,
                questions.c.told_at,
                questions.c.told_by,
                TELLABLE.label("tellable"),
            )
            .where(questions.c.stale_at.is_not(None))
            .order_by(questions.c.stale_at.desc(), questions.c.id.desc())
            .limit(limit)
        ).mappings()
        pages: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            for path in sorted({s["path"] for s in r["stale"] or []}):
                pages[path].append({**r, "lines": [s for s in r["stale"] if s["path"] == path]})
    return dict(pages)


# An answer in a Slack thread: its asker can be told there (a private /ask answer has no thread to write in).
TELLABLE = and_(questions.c.source == "slack", questions.c.channel.is_not(None), questions.c.thread_ts.is_not(None))


def take_telling(engine: Engine, question_id: int, by: str) -> dict | None:
    """The one right to tell this stale answer's asker that the docs changed: the row (channel, thread_ts, stale),
    or None when it is not stale, not in a Slack thread, or its asker was told already (by anyone, in any
    process: the update is the claim)."""
    with engine.begin() as conn:
        taken = conn.execute(
            update(questions)
            .where(questions.c.id == question_id, questions.c.stale_at.is_not(None), questions.c.told_at.is_(None), TELLABLE)
            .values(told_at=now(), told_by=by)
        ).rowcount
        if not taken:
            return None
        row = conn.execute(
            select(questions.c.channel, questions.c.thread_ts, questions.c.stale).where(questions.c.id == question_id)
        ).one()
    return dict(row._mapping)


def give_back_telling(engine: Engine, question_id: int) -> None:
    """The message did not reach Slack: the asker was not told, and the owner may try again."""
    with engine.begin() as conn:
        conn.execute(update(questions).where(questions.c.id == question_id).values(told_at=None, told_by=None))


def new_passages(conn, changes: list[dict]) -> list[dict]:
    """Each changed line with what its page says there now: the page's title and url override, and the anchor of
    the passage holding the new line (for its link). A line now gone keeps new=None."""
    out = []
    for change in changes:
        doc = conn.execute(
            select(documents.c.id, documents.c.title, documents.c.url).where(documents.c.path == change["path"])
        ).first()
        anchor = ""
        if doc is not None and change.get("new") is not None:  # the passage whose lines span the new line
            anchor = (
                conn.execute(
                    select(chunks.c.anchor)
                    .where(
                        chunks.c.document_id == doc.id, chunks.c.start_line <= change["line"], chunks.c.end_line >= change["line"]
                    )
                    .order_by(chunks.c.ordinal)
                    .limit(1)
                ).scalar()
                or ""
            )
        out.append(change | {"title": doc.title if doc else change["path"], "url": doc.url if doc else None, "anchor": anchor})
    return out


def count_stale(engine: Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(questions).where(questions.c.stale_at.is_not(None))).scalar_one()
