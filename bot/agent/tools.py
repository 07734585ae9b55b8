"""The answerer's tools: search_docs over the knowledge base, and a calculator.

The search tool carries two of the loop's guards itself, because only it knows
what was searched: an identical query is not run again, and searches past the
budget are refused with a plain instruction to answer now.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.agent.calculator import CalculatorError, calculate, format_number
from bot.agent.evidence import Ledger
from bot.agent.types import SearchRecord, Step
from kb.search import Searcher

SEARCH_DOCS = "search_docs"
CALCULATOR = "calculator"

NO_NEW_EVIDENCE = (
    "No new passages: everything this search found was already shown above. Stop searching and answer from "
    "the passages you have, or say plainly that the docs do not cover the question."
)


@dataclass(frozen=True)
class Tool:
    """A tool as the model sees it and as the toolbox runs it, kept together so the two cannot drift."""

    name: str
    describe: Callable[[list[str]], str]  # the description, given the collections the asker may search
    input_schema: dict
    handler: str  # the Toolbox method that runs it


TOOLS = (
    Tool(
        SEARCH_DOCS,
        lambda collections: (
            "Search the team's documentation and get back passages, each a search result whose lines can be "
            "cited. Use the documentation's own words: if a search finds nothing useful, search again with "
            "the terms the passages use. Collections: " + (", ".join(collections) or "none") + "."
        ),
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords to search for."},
                "collection": {"type": "string", "description": "Optional: search only this collection."},
            },
            "required": ["query"],
        },
        "search_docs",
    ),
    Tool(
        CALCULATOR,
        lambda _: (
            "Exact arithmetic on numbers from the passages: + - * / // % ** and parentheses; "
            "'12% of $340' takes a percentage, and an amount written with $, €, £ or ¥ comes back as money."
        ),
        {
            "type": "object",
            "properties": {"expression": {"type": "string", "description": "For example: 600 * 100"}},
            "required": ["expression"],
        },
        "calculator",
    ),
)
TOOLS_BY_NAME = {t.name: t for t in TOOLS}


def tool_definitions(collections: list[str]) -> list[dict]:
    """The tools as the Messages API takes them; the last one carries the cache breakpoint."""
    definitions = [{"name": t.name, "description": t.describe(collections), "input_schema": t.input_schema} for t in TOOLS]
    definitions[-1]["cache_control"] = {"type": "ephemeral"}
    return definitions


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: dict
    thought: str = ""  # why the answerer made this call, for --trace


@dataclass
class ToolResult:
    call: ToolCall
    content: list[dict]  # Messages API blocks: search_result or text
    observation: str  # one line for traces and logs
    is_error: bool = False
    stalled: bool = False  # a search that brought no new evidence (a repeat, or only passages already shown)

    @classmethod
    def text(cls, call: ToolCall, message: str, *, is_error: bool = False, stalled: bool = False):
        return cls(call, [{"type": "text", "text": message}], message, is_error, stalled)

    def with_note(self, note: str) -> ToolResult:
        return ToolResult(
            self.call, [*self.content, {"type": "text", "text": note}], f"{self.observation} {note}", self.is_error, self.stalled
        )

    def api_block(self) -> dict:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.call.id, "content": self.content}
        if self.is_error:
            block["is_error"] = True
        return block


@dataclass
class Toolbox:
    searcher: Searcher
    max_searches: int  # Limits.max_searches: the one default lives there
    k: int = 7  # passages a search shows: the best page read whole (3), then the best passage of 4 more pages
    per_page: int | tuple[int, ...] = (3, 1)  # kb.search.Searcher.search
    allowed_collections: list[str] | None = None  # None: every collection
    ledger: Ledger = field(default_factory=Ledger)
    searches: list[SearchRecord] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    calculations: list[str] = field(default_factory=list)  # "600 * 100 = 60,000": numbers the answer may use
    on_call: Callable[[ToolCall], None] | None = None  # told of each call before it runs (progress for the asker)
    _queries: set = field(default_factory=set)

    @property
    def collections(self) -> list[str]:
        known = self.searcher.index.collection_names
        return [c for c in known if self.allowed_collections is None or c in self.allowed_collections]

    @property
    def searches_left(self) -> int:
        return self.max_searches - len(self.searches)

    def run(self, call: ToolCall) -> ToolResult:
        if self.on_call is not None:
            self.on_call(call)
        tool = TOOLS_BY_NAME.get(call.name)
        if tool is None:
            result = ToolResult.text(call, f"Unknown tool {call.name!r}. Tools: {', '.join(TOOLS_BY_NAME)}.", is_error=True)
        else:
            result = getattr(self, tool.handler)(call)
        self.steps.append(Step(call.name, call.input, result.observation, call.thought))
        return result

    def search_docs(self, call: ToolCall) -> ToolResult:
        query = str(call.input.get("query") or "").strip()
        collection = call.input.get("collection") or None
        if not query:
            return ToolResult.text(call, "The query is empty: say what to search for.", is_error=True)
        key = (" ".join(query.lower().split()), collection)
        if key in self._queries:
            return ToolResult.text(call, f"You already searched for {query!r}; its passages are above.", stalled=True)
        if self.searches_left <= 0:
            return ToolResult.text(
                call,
                f"Search budget used up ({self.max_searches} searches). Answer now from the passages above, "
                "or say plainly that the docs do not cover the question.",
            )
        scope = self.collections
        if collection is not None and collection not in scope:
            return ToolResult.text(
                call, f"There is no collection {collection!r} here. Collections: {', '.join(scope) or 'none'}.", is_error=True
            )
        self._queries.add(key)
        started = time.perf_counter()
        hits = self.searcher.search(query, k=self.k, collections=[collection] if collection else scope, per_page=self.per_page)
        ms = (time.perf_counter() - started) * 1000
        self.searches.append(SearchRecord(query, collection, [h.record for h in hits], ms))
        if not hits:
            return ToolResult.text(call, self._nothing_found(query, collection, scope))
        new = [self.ledger.add(h) for h in hits if h.chunk_id not in self.ledger]
        if not new:
            return ToolResult.text(call, f"All {len(hits)} passages found were already shown above.", stalled=True)
        observation = "; ".join(f"{p.title} ({p.hit.path}, {p.hit.strength})" for p in new)
        result = ToolResult(call, [p.search_result_block() for p in new], f"{len(new)} new: {observation}")
        for note in self._notes(query, new):
            result = result.with_note(note)
        return result

    def _notes(self, query: str, new: list) -> list[str]:
        """What to weigh the passages by: how strongly each matches, and the query's words the docs never use.
        Notes, never filters: whether the passages answer is the answerer's call."""
        notes = []
        weak = [p for p in new if p.hit.strength != "strong"]
        if weak:
            notes.append(
                "Weaker matches (they share few of the query's words; use them only if they really answer): "
                + "; ".join(f"'{p.title}' {p.hit.strength}" for p in weak)
                + "."
            )
        missing = [w for w in dict.fromkeys(w for p in new for w in p.hit.missing) if all(w in p.hit.missing for p in new)]
        unknown = self.searcher.unknown_words(query)
        if unknown:
            notes.append(
                f"The docs never use the word{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: these passages match "
                "the query's other words. Search again in the passages' own words if they miss."
            )
        elif missing:  # the signal to judge coverage by: what the question asks that no passage mentions
            notes.append(f"None of these passages mentions: {', '.join(missing)}.")
        return notes

    def _nothing_found(self, query: str, collection: str | None, scope: list[str]) -> str:
        where = f"the collection {collection!r}" if collection else "the collections this asker may search"
        return f"No passage in {where} shares a word or a meaning with {query!r}. Try other words for the same thing."

    def calculator(self, call: ToolCall) -> ToolResult:
        expression = str(call.input.get("expression") or "")
        try:
            value = calculate(expression)
        except CalculatorError as e:
            return ToolResult.text(call, f"Calculator error: {e}", is_error=True)
        done = f"{expression} = {format_number(value, expression)}"
        self.calculations.append(done)
        return ToolResult.text(call, done)
