"""The gaps list: what the docs team should write next. Unanswered, unhelpful or escalated questions, grouped when
they ask the same thing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import Engine, exists, func, insert, or_, select

from bot.logs.models import covered, questions
from bot.logs.report import feedback_summary, parse_age
from kb.tokens import content_words, page_words


@dataclass
class Gap:
    questions: list[dict] = field(default_factory=list)  # newest first
    words: set[str] = field(default_factory=set)
    pages: dict[str, int] = field(default_factory=dict)  # closest page path -> how often it came up
    page_words: dict[str, set[str]] = field(default_factory=dict)  # a closest page's content words (title and path)
    cited: set[str] = field(default_factory=set)  # pages an unhelpful answer cited

    @property
    def count(self) -> int:
        return len(self.questions)

    @property
    def latest(self) -> dict:
        return self.questions[0]

    @property
    def first_asked(self) -> datetime:
        return self.questions[-1]["created_at"]

    @property
    def last_asked(self) -> datetime:
        return self.latest["created_at"]

    @property
    def ids(self) -> list[int]:
        return [q["id"] for q in self.questions]

    @property
    def reasons(self) -> dict[str, int]:
        """Why each question is a gap: the bot found no answer, someone marked its answer not helpful, or the asker
        asked a person."""
        out: dict[str, int] = {}
        for q in self.questions:
            reason = "no answer" if q["status"] != "answered" else "not helpful" if q.get("downs") else None
            for r in filter(None, (reason, "escalated" if q.get("escalated_at") else None)):
                out[r] = out.get(r, 0) + 1
        return out

    @property
    def channels(self) -> list[str]:
        return sorted({q["channel"] for q in self.questions if q.get("channel")})

    def closest_pages(self, n: int = 3) -> list[str]:
        """The pages an unhelpful answer cited, and those an abstention came closest with where they share a word
        with the questions: when the docs simply don't cover a topic, the nearest pages are noise."""
        related = [p for p in self.pages if p in self.cited or self.page_words.get(p, set()) & self.words]
        return sorted(related, key=lambda p: (-self.pages[p], p))[:n]


def _similar(a: set[str], b: set[str]) -> bool:
    """The same question in other words: most of the smaller one's words are shared, and a fair part of the larger
    one's (a question holding every topic's words is not the same question as each of them)."""
    if not a or not b:
        return False
    shared = len(a & b)
    small, large = min(len(a), len(b)), max(len(a), len(b))
    return (shared >= 2 and shared / small >= 0.5 and shared / large >= 0.25) or (shared == 1 and large <= 2)


GAPS_WINDOW = 5000  # the newest unanswered questions grouped: what the docs should say next, read in well under a second


def gaps(engine: Engine, since: str | None = None, window: int = GAPS_WINDOW) -> list[Gap]:
    """Unanswered or 'not helpful' questions (the newest `window` of them), grouped when they ask the same
    thing. Each question is compared only with the groups that share a word with it (an inverted index)."""
    fb = feedback_summary()
    q = (
        select(
            questions.c.id,
            questions.c.created_at,
            questions.c.question,
            questions.c.status,
            questions.c.closest,
            questions.c.sources,
            questions.c.channel,
            questions.c.escalated_at,
            func.coalesce(fb.c.downs, 0).label("downs"),
        )
        .outerjoin(fb, fb.c.question_id == questions.c.id)
        .where(
            or_(questions.c.status.in_(("abstained", "budget_exhausted")), fb.c.downs > 0, questions.c.escalated_at.is_not(None)),
            questions.c.source != "eval",
            ~exists().where(covered.c.question_id == questions.c.id),
        )
        .order_by(questions.c.created_at.desc(), questions.c.id.desc())
        .limit(window)
    )
    if since:
        q = q.where(questions.c.created_at >= datetime.now(UTC) - parse_age(since))
    groups: list[Gap] = []
    holding: dict[str, list[int]] = {}  # word -> the groups whose words hold it, oldest first
    with engine.connect() as conn:
        for row in conn.execute(q).mappings():
            words = content_words(row["question"])
            candidates = sorted({g for w in words for g in holding.get(w, ())})
            found = next((g for g in candidates if _similar(words, groups[g].words)), None)
            if found is None:
                found = len(groups)
                groups.append(Gap())
            group = groups[found]
            group.questions.append(dict(row))
            for w in words - group.words:
                holding.setdefault(w, []).append(found)
            group.words |= words
            for page in row["sources"] or []:  # what an unhelpful answer cited: related by definition
                group.pages[page["path"]] = group.pages.get(page["path"], 0) + 1
                group.cited.add(page["path"])
            for page in row["closest"] or []:  # what an abstention came closest with: related only if it shares a word
                path = page["path"]
                group.pages[path] = group.pages.get(path, 0) + 1
                if path not in group.page_words:
                    group.page_words[path] = page_words(page.get("title", ""), path)
    return sorted(groups, key=lambda g: (-g.count, -g.latest["id"]))


def mark_covered(engine: Engine, question_ids: list[int]) -> int:
    """Mark a gap's questions as covered by the docs now: they leave the gaps list; the same question asked
    after this is a new gap."""
    with engine.execution_options(sqlite_begin="IMMEDIATE").begin() as conn:  # reads, then writes: lock up front
        fresh = conn.execute(  # logged questions among these, not marked yet
            select(questions.c.id).where(
                questions.c.id.in_(question_ids), ~exists().where(covered.c.question_id == questions.c.id)
            )
        ).scalars()
        rows = [{"question_id": i, "marked_at": datetime.now(UTC)} for i in fresh]
        if rows:
            conn.execute(insert(covered), rows)
    return len(rows)
