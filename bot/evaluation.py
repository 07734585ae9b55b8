"""Running a question set through the agent and scoring it.

A question file (YAML or JSON) is a list of {question, sources, facts}: `sources` are the
pages that must be found and cited (empty: the bot must abstain), `facts` strings the
answer must contain. A source may be a list of pages, any one of which will do (real
docs often say the same thing on several pages).

Besides the answers, one search with the question's own words is scored page by page:
page recall@k (every source among the top k pages) and MRR (1 / rank of the first right
page among the top 20), the figures retrieval changes are judged by.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bot.agent.types import Answer
from kb.errors import SupportbotError


class QuestionFileError(SupportbotError, ValueError):
    pass


MRR_DEPTH = 20


@dataclass
class Case:
    question: str
    sources: list[tuple[str, ...]]  # each entry: the pages any one of which satisfies it
    facts: list[str] = field(default_factory=list)

    @property
    def must_abstain(self) -> bool:
        return not self.sources

    def satisfied(self, pages) -> list[tuple[str, ...]]:
        """The source entries these pages satisfy."""
        pages = set(pages)
        return [group for group in self.sources if pages.intersection(group)]

    def first_right(self, ranked_pages: list[str]) -> int | None:
        right = {p for group in self.sources for p in group}
        return next((n for n, p in enumerate(ranked_pages, 1) if p in right), None)


@dataclass
class Outcome:
    case: Case
    answer: Answer
    found: list[tuple[str, ...]]  # source entries the answerer's searches found in their top k
    passed: bool
    why: str
    page_rank: int | None = None  # rank of the first right page in one search with the question
    pages_found: bool = False  # every source entry among that search's top k pages


def load_cases(path: Path) -> list[Case]:
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise QuestionFileError(f"cannot read {path}: {e.strerror}") from e
    try:
        data = json.loads(text) if str(path).endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        raise QuestionFileError(f"{path} is not valid {'JSON' if str(path).endswith('.json') else 'YAML'}: {e}") from e
    if not isinstance(data, list):
        raise QuestionFileError(f"{path}: expected a list of questions")
    cases = []
    for n, item in enumerate(data, 1):
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise QuestionFileError(f"{path}: item {n} needs a 'question' string")
        sources = [tuple(s) if isinstance(s, list) else (str(s),) for s in item.get("sources") or []]
        cases.append(Case(item["question"], sources, [str(f) for f in item.get("facts") or []]))
    return cases


def _norm(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", " ".join(text.lower().split()))


def judge(case: Case, answer: Answer, k: int) -> Outcome:
    found = case.satisfied(h.path for s in answer.searches for h in s.hits[:k])
    if case.must_abstain:
        ok = answer.status == "abstained"
        return Outcome(case, answer, found, ok, "abstained" if ok else f"should abstain, was {answer.status}")
    if answer.status != "answered":
        return Outcome(case, answer, found, False, f"{answer.status}")
    cited = case.satisfied(s.path for s in answer.sources)
    missing_facts = [f for f in case.facts if _norm(f) not in _norm(answer.answer)]
    missing_sources = [" or ".join(g) for g in case.sources if g not in cited]
    if missing_facts or missing_sources:
        parts = ([f"missing facts {missing_facts}"] if missing_facts else []) + (
            [f"uncited {missing_sources}"] if missing_sources else []
        )
        return Outcome(case, answer, found, False, "; ".join(parts))
    return Outcome(case, answer, found, True, "answered")


@dataclass
class Report:
    outcomes: list[Outcome]
    k: int

    @property
    def recall(self) -> float:
        expected = sum(len(o.case.sources) for o in self.outcomes)
        return sum(len(o.found) for o in self.outcomes) / expected if expected else 1.0

    @property
    def answerable(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.case.must_abstain]

    @property
    def page_recall(self) -> float:
        return sum(o.pages_found for o in self.answerable) / max(len(self.answerable), 1)

    @property
    def mrr(self) -> float:
        return sum(1 / o.page_rank for o in self.answerable if o.page_rank) / max(len(self.answerable), 1)

    @property
    def pass_rate(self) -> float:
        answerable = [o for o in self.outcomes if not o.case.must_abstain]
        return sum(o.passed for o in answerable) / len(answerable) if answerable else 1.0

    @property
    def cited_right(self) -> float:
        """Share of answerable questions whose answer cites at least one right page."""
        return sum(
            o.answer.status == "answered" and bool(o.case.satisfied(s.path for s in o.answer.sources)) for o in self.answerable
        ) / max(len(self.answerable), 1)

    @property
    def facts_found(self) -> float:
        """Share of answerable questions with facts whose answer holds all of them."""
        with_facts = [o for o in self.answerable if o.case.facts]
        return sum(
            o.answer.status == "answered" and all(_norm(f) in _norm(o.answer.answer) for f in o.case.facts) for o in with_facts
        ) / max(len(with_facts), 1)

    @property
    def abstention_accuracy(self) -> float:
        abstain = [o for o in self.outcomes if o.case.must_abstain]
        return sum(o.passed for o in abstain) / len(abstain) if abstain else 1.0

    @property
    def false_abstentions(self) -> int:
        return sum(o.answer.status == "abstained" for o in self.outcomes if not o.case.must_abstain)

    @property
    def citation_problems(self) -> int:
        return sum(p.is_citation_problem for o in self.outcomes for p in o.answer.problems)

    @property
    def mean_latency_ms(self) -> float:
        return sum(o.answer.latency_ms for o in self.outcomes) / max(len(self.outcomes), 1)

    def summary(self) -> dict:
        return {
            "questions": len(self.outcomes),
            f"recall@{self.k}": round(self.recall, 3),
            f"page_recall@{self.k}": round(self.page_recall, 3),
            "mrr": round(self.mrr, 3),
            "answer_pass_rate": round(self.pass_rate, 3),
            "cites_right_page": round(self.cited_right, 3),
            "facts_found": round(self.facts_found, 3),
            "abstention_accuracy": round(self.abstention_accuracy, 3),
            "false_abstentions": self.false_abstentions,
            "citation_problems": self.citation_problems,
            "mean_latency_ms": round(self.mean_latency_ms, 1),
        }


def evaluate(
    cases: list[Case], ask: Callable[[str], Answer], k: int = 5, rank_pages: Callable[[str], list[str]] | None = None
) -> Report:
    """rank_pages: one search with the question's own words, its distinct pages best first."""
    outcomes = []
    for case in cases:
        outcome = judge(case, ask(case.question), k)
        if rank_pages is not None and not case.must_abstain:
            ranked = rank_pages(case.question)[:MRR_DEPTH]
            outcome.page_rank = case.first_right(ranked)
            outcome.pages_found = len(case.satisfied(ranked[:k])) == len(case.sources)
        outcomes.append(outcome)
    return Report(outcomes, k)


def found_pages(hits) -> list[str]:
    """Distinct pages of a hit list, in order."""
    return list(dict.fromkeys(h.path for h in hits))
