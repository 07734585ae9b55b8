"""The values that flow out of the agent: one Answer, rendered by Slack, the CLI and the logs alike."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from kb.hits import HitRecord

Status = Literal["answered", "abstained", "error", "budget_exhausted"]
STATUSES: tuple[Status, ...] = get_args(Status)

# What can go wrong with an answer, as logged in its problems (one definition for the log, eval and review).
CitationProblem = Literal[
    "cites_unretrieved",
    "source_mismatch",
    "bad_block_range",
    "cited_text_mismatch",
    "number_not_in_passage",
    "unsourced_number",
    "uncited_claim",
    "unknown_link",
]
ProblemKind = Literal[
    CitationProblem,
    "abstained",
    "refusal",
    "turn_budget_exhausted",
    "max_tokens",
    "empty",
    "model_fallback",
    "closest_pages_failed",
]
CITATION_PROBLEMS: frozenset[str] = frozenset(get_args(CitationProblem))


@dataclass(frozen=True)
class Problem:
    """Something a reviewer should see about an answer: its kind and the evidence (the sentence, numbers, note)."""

    kind: ProblemKind
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, kind: ProblemKind, **detail: Any) -> Problem:
        return cls(kind, detail)

    @property
    def is_citation_problem(self) -> bool:
        return self.kind in CITATION_PROBLEMS

    def as_dict(self) -> dict:
        return {"kind": self.kind, **self.detail}


@dataclass(frozen=True)
class Limits:
    """How far one question may go."""

    max_searches: int = 4
    max_turns: int = 6
    fallback: bool = True  # when the model fails, answer with the docs' matching lines and say so


@dataclass(frozen=True)
class Source:
    n: int
    title: str  # the page title with its heading: "Returns and refunds > Refund window"
    path: str
    url: str | None
    collection: str


def logged_sources(logged: list[dict] | None) -> list[Source]:
    """Sources as the answer log keeps them (dicts), back as Sources; keys a later version added are left out."""
    fields = Source.__dataclass_fields__
    return [Source(**{k: v for k, v in s.items() if k in fields}) for s in logged or []]


@dataclass(frozen=True)
class SearchRecord:
    query: str
    collection: str | None
    hits: list[HitRecord]
    ms: float = 0.0


@dataclass(frozen=True)
class Step:
    tool: str
    input: dict
    observation: str
    thought: str = ""


@dataclass(frozen=True)
class Citation:
    """A claim's pointer into the passages: which search result, which lines (blocks)."""

    search_result_index: int
    start_block_index: int
    end_block_index: int
    cited_text: str
    source: str = ""


@dataclass(frozen=True)
class Segment:
    """A piece of the model's answer and the passages it cites (none for connecting text)."""

    text: str
    citations: tuple[Citation, ...] = ()


@dataclass
class Answer:
    question: str
    status: Status
    answer: str
    answerer: str
    model: str | None = None
    sources: list[Source] = field(default_factory=list)
    searches: list[SearchRecord] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    latency_ms: float = 0.0
    error: str | None = None  # the logged reason (never shown raw to the asker)
    model_failure: str | None = None  # why the model could not be used: a ModelFailure's reason (busy, key, ...)
    closest: list[Source] = field(default_factory=list)  # pages to look at when abstaining
    cited: list[dict] = field(default_factory=list)  # [{"n", "chunk_id", "lines": [[no, text]]}] for review
    log_id: int | None = None  # its row in log_questions, once recorded

    def as_dict(self) -> dict:
        out = {
            "question": self.question,
            "status": self.status,
            "answer": self.answer,
            "answerer": self.answerer,
            "model": self.model,
            "sources": [asdict(s) for s in self.sources],
            "searches": [
                {"query": s.query, "collection": s.collection, "hits": [h.as_dict() for h in s.hits]} for s in self.searches
            ],
            "steps": [asdict(s) for s in self.steps],
            "problems": [p.as_dict() for p in self.problems],
            "usage": self.usage,
            "latency_ms": round(self.latency_ms, 1),
        }
        if self.closest:
            out["closest"] = [asdict(s) for s in self.closest]
        if self.error:
            out["error"] = self.error
        if self.log_id is not None:
            out["log_id"] = self.log_id
        return out


class ModelFailure(Exception):
    """The model could not be used: a short reason for the asker, and the detail for the logs. Defined here, not
    beside the client, so that code which only handles it never loads the Anthropic SDK."""

    REASONS = ("busy", "key", "error", "timeout", "unreachable", "malformed", "too_long")  # a metric's bounded labels

    def __init__(self, user_message: str, detail: str, docs_may_answer: bool = True, reason: str = "error") -> None:
        super().__init__(detail)
        self.user_message = user_message
        self.detail = detail
        self.docs_may_answer = docs_may_answer  # False when the question itself is the problem (too long)
        self.reason = reason if reason in self.REASONS else "error"
