"""The agent loop: the answerer decides, the tools act, until there is an answer.

Claude and the local answerer both sit behind the `Answerer` protocol, so the
guards below hold for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.agent.tools import NO_NEW_EVIDENCE, Toolbox, ToolCall, ToolResult
from bot.agent.types import Segment
from kb.errors import IndexUnavailable


@dataclass
class Draft:
    """What an answerer finally says, before verification."""

    segments: list[Segment]
    stop: str = "end_turn"  # end_turn | max_tokens | refusal
    note: str | None = None  # why it stopped early, for the logs


@dataclass
class Reply:
    tool_calls: list[ToolCall] = field(default_factory=list)
    draft: Draft | None = None


class Answerer(Protocol):
    name: str
    usage: dict

    @property
    def model(self) -> str | None: ...  # None: no language model (the local answerer)

    def begin(self, question: str, history: list[tuple[str, str]], toolbox: Toolbox) -> None: ...
    def step(self) -> Reply: ...
    def observe(self, results: list[ToolResult]) -> None: ...


def run(answerer: Answerer, question: str, history: list[tuple[str, str]], toolbox: Toolbox, max_turns: int) -> Draft | None:
    """The draft answer, or None when the turn budget ran out first."""
    answerer.begin(question, history, toolbox)
    for _turn in range(max_turns):  # guard: a budget of model turns
        reply = answerer.step()
        if reply.draft is not None:
            return reply.draft
        results = []
        for call in reply.tool_calls:
            try:
                result = toolbox.run(call)
            except IndexUnavailable:  # guard: no search can run now; the caller holds the question for the database
                raise
            except Exception as e:  # guard: a failing tool is reported to the model, never crashes the request
                result = ToolResult.text(call, f"The tool failed: {type(e).__name__}: {e}", is_error=True)
            if result.stalled:  # guard: a search with no new evidence tells the model to stop searching and answer
                result = result.with_note(NO_NEW_EVIDENCE)
            results.append(result)
        answerer.observe(results)
    return None
