"""Answers a docs change has overtaken: after a sync, the answers citing a changed or removed page are checked
line by line, and those whose cited lines are no longer in the page are flagged stale, with the old line and
what the page says there now. Only the pages the sync changed are looked at."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import Engine, func, select, update

from bot.logs.models import cited_pages, questions
from kb.clock import now
from kb.models import chunks, documents


def page_lines(conn, path: str) -> dict[int, str]:
    """The page's current lines by number (empty when the page is gone)."""
    lines: dict[int, str] = {}
    rows = conn.execute(
        select(chunks.c.lines).join(documents, documents.c.id == chunks.c.document_id).where(documents.c.path == path)
    )
    for (chunk_lines,) in rows:
        for number, text in chunk_lines:
            lines[number] = text
    return lines


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
    """The stale answers, newest first, grouped by the page whose change overtook them."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(questions.c.id, questions.c.created_at, questions.c.question, questions.c.stale_at, questions.c.stale)
            .where(questions.c.stale_at.is_not(None))
            .order_by(questions.c.stale_at.desc(), questions.c.id.desc())
            .limit(limit)
        ).mappings()
        pages: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            for path in sorted({s["path"] for s in r["stale"] or []}):
                pages[path].append({**r, "lines": [s for s in r["stale"] if s["path"] == path]})
    return dict(pages)


def count_stale(engine: Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(questions).where(questions.c.stale_at.is_not(None))).scalar_one()
