"""Showing Claude's answer while it is written, and never a sentence that fails verification.

Each text block is checked (its citations and numbers, as verify() checks a whole answer) when it ends in the
model's stream. The blocks that pass are rendered together with those before them, and only the new part is
handed on, so the asker reads a growing prefix of the very text the finished answer will have. Uncited text
waits for the cited sentence it leads into. A block that fails is never shown; what the turn ends up as is
settled by the verdict, and the Slack side corrects the message if the two differ (a later turn, a fallback).
"""

from __future__ import annotations

from collections.abc import Callable

from bot.agent.citations import numbers_in, render, verify
from bot.agent.evidence import Ledger
from bot.agent.types import Segment


class VerifiedStream:
    def __init__(self, ledger: Ledger, calculations: list[str], emit: Callable[[str], None]) -> None:
        """ledger and calculations: the toolbox's own, which fill as the tools run."""
        self.ledger = ledger
        self.calculations = calculations
        self.emit = emit
        self.segments: list[Segment] = []
        self.shown = ""  # everything handed on so far

    def turn(self) -> None:
        """A new model turn: its text blocks make a new answer."""
        self.segments = []

    def block(self, segment: Segment) -> None:
        """A text block that has ended: hand on what it adds to the verified answer, if anything."""
        self.segments.append(segment)
        if not segment.citations:
            return
        allowed = set().union(*(numbers_in(c) for c in self.calculations))
        text, _, _ = render(verify(self.segments, self.ledger, allowed))
        if len(text) > len(self.shown) and text.startswith(self.shown):
            added, self.shown = text[len(self.shown) :], text
            self.emit(added)
