"""What a finished run amounts to: answered, abstained, error or out of steps, with the text the asker sees.

A pure function of the draft, the passages shown (the ledger) and the calculator's results, so the rules
for "when is it an answer" are read and tested in one place, without a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from bot.agent.citations import numbers_in, render, verify
from bot.agent.evidence import Ledger
from bot.agent.local import INTRO
from bot.agent.loop import Draft
from bot.agent.types import ModelFailure, Problem, ProblemKind, Source, Status

NOT_COVERED = "I couldn't find this in the docs."
OUT_OF_STEPS = "I ran out of steps before I could put an answer together from the docs."
REFUSED = "I can't help with that request."
FALLBACK = "The language model is unavailable, so these are the matching lines from the docs."


@dataclass
class Verdict:
    status: Status
    text: str  # what the asker reads
    sources: list[Source] = field(default_factory=list)
    cited: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def verdict(
    draft: Draft | None, ledger: Ledger, calculations: list[str], failure: ModelFailure | None = None, max_turns: int = 0
) -> Verdict:
    """failure: the model's, when the draft (if any) is the local answerer's fallback."""
    if draft is None:
        if failure is not None:
            return Verdict("error", failure.user_message)
        return Verdict("budget_exhausted", OUT_OF_STEPS, problems=[Problem.of("turn_budget_exhausted", turns=max_turns)])
    if draft.stop == "refusal":
        return Verdict("abstained", REFUSED, problems=[Problem.of("refusal", note=draft.note)])
    allowed = set().union(*(numbers_in(c) for c in calculations))
    verified = verify(draft.segments, ledger, allowed)
    text, sources, cited = render(verified)
    problems = list(verified.problems)
    if draft.stop in ("max_tokens", "empty"):
        problems.append(Problem.of(cast(ProblemKind, draft.stop), note=draft.note))
    if verified.has_sourced_claim or (calculations and text):
        if failure is not None:  # the model failed and the docs answered: say so in one line
            text = FALLBACK + "\n" + text.removeprefix(INTRO)
        return Verdict("answered", text, sources, cited, problems)
    if failure is not None:  # nothing to quote either: the model's failure is the reason to give
        return Verdict("error", failure.user_message, problems=problems)
    if draft.note:
        problems.append(Problem.of("abstained", note=draft.note))
    return Verdict("abstained", NOT_COVERED, problems=problems)
