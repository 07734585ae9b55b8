"""Team answers: what a person answered in a hand-over, kept as knowledge.

Each reply a person gives in a hand-over thread is a candidate. A docs owner publishes it (as written, or edited)
or dismisses it. A published one is a page of the collection `team-answers` at every sync (kb.sync's `extra`),
from the database, so it survives re-syncs and a docs-from-git reset; its title says what it is ("Answer from Bob,
support, 2026-12-01"), and after its review-by date (TEAM_ANSWER_DAYS) it says "may be out of date".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import yaml
from sqlalchemy import Engine, insert, select, update

from bot.logs.gaps import gaps, mark_gap
from bot.logs.models import team_answers
from kb.clock import now
from kb.errors import SupportbotError
from kb.links import safe_url
from kb.scan import SourceFile

COLLECTION = "team-answers"
STATES = ("candidate", "published", "dismissed")


class TeamAnswerError(SupportbotError, LookupError):
    pass


@dataclass(frozen=True)
class TeamAnswer:
    id: int
    question_id: int | None
    question: str
    reply: str
    answered_by: str | None
    answered_by_name: str | None
    answered_at: datetime
    permalink: str | None
    state: str
    text: str | None
    reviewed_at: datetime | None
    review_by: datetime | None

    @property
    def label(self) -> str:
        return f"Answer from {self.answered_by_name or self.answered_by or 'a person'}, support, {self.answered_at:%Y-%m-%d}"

    def due(self, at: datetime) -> bool:
        """Published, and past its review-by date."""
        if self.state != "published" or self.review_by is None:
            return False
        review_by = self.review_by if self.review_by.tzinfo else self.review_by.replace(tzinfo=at.tzinfo)
        return at >= review_by

    @property
    def path(self) -> str:
        return f"{COLLECTION}/{self.id}.md"

    def page(self, at: datetime) -> str:
        """The published answer as a Markdown page: the question as its heading, the answer as its text."""
        meta: dict = {"title": self.label + (" (may be out of date)" if self.due(at) else "")}
        if self.permalink and safe_url(self.permalink):
            meta["url"] = self.permalink
        question = " ".join(self.question.split())
        front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False).strip()
        return f"---\n{front}\n---\n\n# {question}\n\n{(self.text or self.reply).strip()}\n"

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "question_id": self.question_id,
            "question": self.question,
            "reply": self.reply,
            "answered_by": self.answered_by,
            "answered_by_name": self.answered_by_name,
            "answered_at": self.answered_at.isoformat(),
            "permalink": self.permalink,
            "state": self.state,
            "text": self.text,
            "reviewed_at": self.reviewed_at.isoformat() if self.reviewed_at else None,
            "review_by": self.review_by.isoformat() if self.review_by else None,
            "path": self.path if self.state == "published" else None,
        }


def add_candidate(
    engine: Engine,
    question_id: int,
    question: str,
    reply: str,
    by: tuple[str | None, str | None],
    permalink: str | None,
) -> int:
    """by: (the person's user ID, their name)."""
    with engine.begin() as conn:
        return conn.execute(
            insert(team_answers)
            .values(
                question_id=question_id,
                question=question,
                reply=reply,
                answered_by=by[0],
                answered_by_name=by[1],
                answered_at=now(),
                permalink=permalink,
                state="candidate",
            )
            .returning(team_answers.c.id)
        ).scalar_one()


def list_answers(engine: Engine, state: str | None = None) -> list[TeamAnswer]:
    q = select(team_answers).order_by(team_answers.c.id.desc())
    if state:
        q = q.where(team_answers.c.state == state)
    with engine.connect() as conn:
        return [TeamAnswer(**row) for row in conn.execute(q).mappings()]


def due_answers(engine: Engine) -> list[TeamAnswer]:
    """Published answers past their review-by date: `gaps` lists them, the bot cites them as "may be out of date"."""
    at = now()
    return [a for a in list_answers(engine, "published") if a.due(at)]


def team_answer(engine: Engine, answer_id: int) -> TeamAnswer:
    with engine.connect() as conn:
        row = conn.execute(select(team_answers).where(team_answers.c.id == answer_id)).mappings().first()
    if row is None:
        raise TeamAnswerError(f"no team answer {answer_id}: `supportbot answers list` shows them")
    return TeamAnswer(**row)


def publish(engine: Engine, answer_id: int, days: int, text: str | None = None) -> TeamAnswer:
    """Publish (again, with an edit): the next sync indexes it; the gap its question was leaves the gaps list."""
    found = team_answer(engine, answer_id)
    text = (text if text is not None else found.text or found.reply).strip()
    if not text:
        raise TeamAnswerError("a team answer needs text: the reply, or the file given with --text")
    at = now()
    with engine.begin() as conn:
        conn.execute(
            update(team_answers)
            .where(team_answers.c.id == answer_id)
            .values(state="published", text=text, reviewed_at=at, review_by=at + timedelta(days=days))
        )
    if found.question_id is not None:  # its gap leaves the list: the question, and the others asked the same way
        group = next((g for g in gaps(engine) if found.question_id in g.ids), None)
        mark_gap(engine, group.ids if group else [found.question_id], "covered", note="a team answer was published")
    return team_answer(engine, answer_id)


def dismiss(engine: Engine, answer_id: int) -> TeamAnswer:
    team_answer(engine, answer_id)
    with engine.begin() as conn:
        conn.execute(update(team_answers).where(team_answers.c.id == answer_id).values(state="dismissed", reviewed_at=now()))
    return team_answer(engine, answer_id)


def published_pages(engine: Engine) -> list[SourceFile]:
    """Every published team answer as a page for the sync to index beside the docs folder's."""
    at = now()
    return [SourceFile.of(a.path, COLLECTION, a.page(at).encode()) for a in list_answers(engine, "published")]


def file_name(answer: TeamAnswer) -> str:
    """A page's file name for `answers export`: its ID and the question's first words."""
    words = re.findall(r"[a-z0-9]+", answer.question.lower())[:8]
    return f"{answer.id}-{'-'.join(words) or 'answer'}.md"
