"""Running a question set through the agent and scoring it.

A question file (YAML or JSON) is a list of {question, sources, facts}: `sources` are the
pages that must be found and cited (empty: the bot must abstain), `facts` strings the
answer must contain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bot.agent.types import Answer

CITATION_PROBLEMS = {"cites_unretrieved", "source_mismatch", "bad_block_range", "cited_text_mismatch", "number_not_in_passage", "unsourced_number"}


class QuestionFileError(ValueError):
    pass


@dataclass
class Case:
    question: str
    sources: list[str]
    facts: list[str] = field(default_factory=list)

    @property
    def must_abstain(self) -> bool:
        return not self.sources


@dataclass
class Outcome:
    case: Case
    answer: Answer
    found: list[str]  # expected sources the searches found in their top k
    passed: bool
    why: str


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
        cases.append(Case(item["question"], list(item.get("sources") or []), [str(f) for f in item.get("facts") or []]))
    return cases


def _norm(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", " ".join(text.lower().split()))


def judge(case: Case, answer: Answer, k: int) -> Outcome:
    pages = {h["path"] for s in answer.searches for h in s.hits[:k]}
    found = [s for s in case.sources if s in pages]
    if case.must_abstain:
        ok = answer.status == "abstained"
        return Outcome(case, answer, found, ok, "abstained" if ok else f"should abstain, was {answer.status}")
    if answer.status != "answered":
        return Outcome(case, answer, found, False, f"{answer.status}")
    cited = {s.path for s in answer.sources}
    missing_facts = [f for f in case.facts if _norm(f) not in _norm(answer.answer)]
    missing_sources = [s for s in case.sources if s not in cited]
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
    def pass_rate(self) -> float:
        answerable = [o for o in self.outcomes if not o.case.must_abstain]
        return sum(o.passed for o in answerable) / len(answerable) if answerable else 1.0

    @property
    def abstention_accuracy(self) -> float:
        abstain = [o for o in self.outcomes if o.case.must_abstain]
        return sum(o.passed for o in abstain) / len(abstain) if abstain else 1.0

    @property
    def false_abstentions(self) -> int:
        return sum(o.answer.status == "abstained" for o in self.outcomes if not o.case.must_abstain)

    @property
    def citation_problems(self) -> int:
        return sum(p.get("kind") in CITATION_PROBLEMS for o in self.outcomes for p in o.answer.problems)

    @property
    def mean_latency_ms(self) -> float:
        return sum(o.answer.latency_ms for o in self.outcomes) / max(len(self.outcomes), 1)

    def summary(self) -> dict:
        return {
            "questions": len(self.outcomes),
            f"recall@{self.k}": round(self.recall, 3),
            "answer_pass_rate": round(self.pass_rate, 3),
            "abstention_accuracy": round(self.abstention_accuracy, 3),
            "false_abstentions": self.false_abstentions,
            "citation_problems": self.citation_problems,
            "mean_latency_ms": round(self.mean_latency_ms, 1),
        }


def evaluate(cases: list[Case], ask: Callable[[str], Answer], k: int = 5) -> Report:
    return Report([judge(case, ask(case.question), k) for case in cases], k)
