"""The gaps list: what the docs team should write next. Unanswered, unhelpful or escalated questions, grouped when
they ask the same thing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, insert, or_, select, update

from bot.logs.models import covered, feedback, questions
from bot.logs.report import feedback_summary, parse_age
from kb.tokens import content_words, page_words


@dataclass
class Gap:
    questions: list[dict] = field(default_factory=list)  # newest first
    words: set[str] = field(default_factory=set)
    pages: dict[str, int] = field(default_factory=dict)  # closest page path -> how often it came up
    page_words: dict[str, set[str]] = field(default_factory=dict)  # a closest page's content words (title and path)
    cited: set[str] = field(default_factory=set)  # pages an unhelpful answer cited
    feedback: list[str] = field(default_factory=list)  # what people wrote when they marked an answer not helpful
    owner: str | None = None  # who will write it (the newest a docs owner named)
    note: str | None = None  # why it won't be documented, or what covers it

    def take(self, row: dict) -> None:
        """A question joins the gap; the newest owner and note named stay."""
        self.questions.append(row)
        self.owner = self.owner or row.get("owner")
        self.note = self.note or row.get("note")

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
    one's (a question holding every topic's words is not the same question as each of them). Written once, in
    _Words.first_alike."""
    index = _Words()
    index.add(0, b)
    return index.first_alike(a) == 0


# Two questions whose sentence-encoder vectors are at least this close ask the same thing, whatever their words.
# bench/gap_grouping.py, 37 pairs of paraphrases and 3,528 pairs of different questions on three real sets: words
# alone group 2 pairs and merge 24; words or cosine >= 0.6 group 15 and merge 31 (0.55: 24 and 43; 0.65: 12 and 27).
SAME_QUESTION = 0.6


class _Meaning:
    """The questions' vectors and each group's first one, compared a block of questions at a time: one matrix
    product per block instead of one per question, so 5,000 questions group in a fraction of a second."""

    BLOCK = 256

    def __init__(self, vectors, has) -> None:
        import numpy as np

        self.np = np
        self.vectors, self.has = vectors, has
        self.leaders = np.zeros_like(vectors)  # the first vector of each group that has one, in order
        self.group_of: list[int] = []  # the group each leader leads
        # (block start, its similarities to the leaders before it, how many leaders there were then)
        self._block: tuple[int, Any, int] = (-1, None, 0)

    @classmethod
    def of(cls, packed: list[bytes | None]) -> _Meaning | None:
        """None when no question has a vector (no encoder, or a log from before vectors were kept)."""
        if not any(packed):
            return None
        import numpy as np

        from kb.embedding import unpack_many

        dims = {len(b) - 4 for b in packed if b}
        if len(dims) != 1:  # vectors of two encoders: not comparable
            return None
        return cls(unpack_many(packed, dims.pop()), np.array([b is not None for b in packed]))

    def same_as(self, i: int) -> int | None:
        """The group whose first question means what question i means, if any."""
        if not self.has[i]:
            return None
        start = i - i % self.BLOCK
        if self._block[0] != start:  # leaders before this block, against the whole block at once
            known = len(self.group_of)
            self._block = (start, self.vectors[start : start + self.BLOCK] @ self.leaders[:known].T, known)
        _, before, known = self._block
        sims = self.np.concatenate([before[i - start], self.leaders[known : len(self.group_of)] @ self.vectors[i]])
        if not len(sims):
            return None
        best = int(self.np.argmax(sims))
        return self.group_of[best] if sims[best] >= SAME_QUESTION else None

    def lead(self, i: int, group: int) -> None:
        if self.has[i]:
            self.leaders[len(self.group_of)] = self.vectors[i]
            self.group_of.append(group)


GAPS_WINDOW = 5000  # the newest unanswered questions grouped: what the docs should say next, read in well under a second
GAP_STATES = ("open", "covered", "wont_document")  # open gaps (an owner or not); what a docs owner closed, and how


def gaps(engine: Engine, since: str | None = None, window: int = GAPS_WINDOW, state: str = "open") -> list[Gap]:
    """Unanswered, 'not helpful' or escalated questions (the newest `window` of them) in this state, grouped when they
    ask the same thing: in the same words (_Words, the groups holding each word as a bitset), else in the same
    meaning (_Meaning, the questions' sentence-encoder vectors)."""
    fb = feedback_summary()
    in_state = covered.c.state.is_(None) | (covered.c.state == "open") if state == "open" else covered.c.state == state
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
            covered.c.owner,
            covered.c.note,
            questions.c.vector,
        )
        .outerjoin(fb, fb.c.question_id == questions.c.id)
        .outerjoin(covered, covered.c.question_id == questions.c.id)
        .where(
            or_(questions.c.status.in_(("abstained", "budget_exhausted")), fb.c.downs > 0, questions.c.escalated_at.is_not(None)),
            questions.c.source != "eval",
            in_state,
        )
        .order_by(questions.c.created_at.desc(), questions.c.id.desc())
        .limit(window)
    )
    if since:
        q = q.where(questions.c.created_at >= datetime.now(UTC) - parse_age(since))
    groups: list[Gap] = []
    index = _Words()
    with engine.connect() as conn:
        result = conn.execute(q)
        keys = list(result.keys())
        rows = [dict(zip(keys, r, strict=True)) for r in result]  # plain rows: 5,000 mappings cost a fifth of the time
        reasons = _reasons(conn, [r["id"] for r in rows if r["downs"]])
    meaning = _Meaning.of([r.pop("vector") for r in rows])
    for i, row in enumerate(rows):
        words = content_words(row["question"])
        found = index.first_alike(words)
        if found is None and meaning is not None:
            found = meaning.same_as(i)
        if found is None:
            found = len(groups)
            groups.append(Gap())
            if meaning is not None:
                meaning.lead(i, found)
        group = groups[found]
        group.take(row)
        group.feedback += reasons.get(row["id"], [])
        index.add(found, words)
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


class _Words:
    """Which groups hold which words, as bitsets (bit g: group g), so the groups a question is like are found with
    a few integer operations instead of a walk over every group that shares a word with it."""

    def __init__(self) -> None:
        self.bits: dict[str, int] = {}  # word -> the groups holding it
        self.sizes: list[int] = []  # group -> how many words it holds
        self.small: dict[int, int] = {}  # limit -> the groups holding at most that many words (sizes only grow)

    def add(self, group: int, words: set[str]) -> None:
        """The group (a new one is the next number) now holds these words too."""
        if group == len(self.sizes):
            self.sizes.append(0)
            for mask_limit in self.small:
                self.small[mask_limit] |= 1 << group
        for w in words:
            if not (self.bits.get(w, 0) >> group) & 1:
                self.bits[w] = self.bits.get(w, 0) | (1 << group)
                self.sizes[group] += 1
        for mask_limit, mask in self.small.items():
            if self.sizes[group] > mask_limit and (mask >> group) & 1:
                self.small[mask_limit] = mask & ~(1 << group)

    def _at_most(self, limit: int) -> int:
        if limit not in self.small:
            self.small[limit] = sum(1 << g for g, size in enumerate(self.sizes) if size <= limit)
        return self.small[limit]

    def first_alike(self, words: set[str]) -> int | None:
        """The oldest group these words are like (_similar). With k of the question's n words shared with a group
        of s words: k >= 2, k at least half the smaller of n and s and a quarter of the larger; or k = 1 and both
        at most 2. Found as masks: the groups sharing at least t words, and those of at most so many words."""
        held = [self.bits[w] for w in words if w in self.bits]
        n = len(words)
        if not held:
            return None
        at_least = [-1] + [0] * len(held)  # t -> the groups sharing at least t of the words (-1: every group)
        for m in held:
            for t in range(len(held), 0, -1):
                at_least[t] |= at_least[t - 1] & m
        alike = 0
        for t in range(2, len(held) + 1):
            if 2 * t >= n:  # s >= n: k >= n/2, s <= 4k
                alike |= at_least[t] & self._at_most(4 * t) & ~self._at_most(n - 1)
            if 4 * t >= n:  # s < n: k >= n/4, s <= 2k
                alike |= at_least[t] & self._at_most(min(2 * t, n - 1))
        if n <= 2:  # one word shared of two that small
            alike |= at_least[1] & ~(at_least[2] if len(held) >= 2 else 0) & self._at_most(2)
        return (alike & -alike).bit_length() - 1 if alike else None


def _reasons(conn, question_ids: list[int]) -> dict[int, list[str]]:
    """What people wrote when they marked these answers not helpful, oldest first."""
    out: dict[int, list[str]] = {}
    for start in range(0, len(question_ids), 500):  # bounded IN lists
        for qid, reason in conn.execute(
            select(feedback.c.question_id, feedback.c.reason)
            .where(feedback.c.question_id.in_(question_ids[start : start + 500]), feedback.c.value == "down")
            .where(feedback.c.reason.is_not(None), feedback.c.reason != "")
            .order_by(feedback.c.id)
        ):
            out.setdefault(qid, []).append(reason)
    return out


def mark_gap(engine: Engine, question_ids: list[int], state: str, note: str | None = None, owner: str | None = None) -> int:
    """A docs owner's decision about a gap's questions: covered or won't document (with a note) takes them off the
    gaps list, and the same question asked after this is a new gap; open keeps them there, with an owner. A note or
    owner not given keeps the one set before. Returns how many logged questions it marked."""
    if state not in GAP_STATES:
        raise ValueError(f"a gap is {', '.join(GAP_STATES)}, not {state!r}")
    with engine.execution_options(sqlite_begin="IMMEDIATE").begin() as conn:  # reads, then writes: lock up front
        logged = set(conn.execute(select(questions.c.id).where(questions.c.id.in_(question_ids))).scalars())
        marked = set(conn.execute(select(covered.c.question_id).where(covered.c.question_id.in_(logged))).scalars())
        values = {"state": state, "marked_at": datetime.now(UTC)}
        values |= {k: v for k, v in (("note", note), ("owner", owner)) if v is not None}
        if marked:
            conn.execute(update(covered).where(covered.c.question_id.in_(marked)).values(**values))
        if logged - marked:
            conn.execute(insert(covered), [{"question_id": i, **values} for i in sorted(logged - marked)])
    return len(logged)
