"""One question in, one Answer out: the Agent that Slack and the command line ask."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.agent.local import LocalAnswerer
from bot.agent.loop import Answerer, run
from bot.agent.meaning import among_meanings_first
from bot.agent.stream import VerifiedStream
from bot.agent.tools import Toolbox, ToolCall
from bot.agent.types import Answer, Limits, ModelFailure, Problem, Source
from bot.agent.verdict import verdict
from kb.search import Searcher
from kb.tokens import content_words, page_words

if TYPE_CHECKING:
    import anthropic

EMPTY = "Ask me a question about the docs, for example: how long is the warranty?"
NO_MODEL = "Claude is not set up here (no ANTHROPIC_API_KEY), so I can only quote the docs: ask without --answerer claude."


class Agent:
    """The agent wired once at the door: the searcher, the limits, and Claude (a client and a model name) when
    there is a key. Slack and the command line ask it; it knows nothing of settings or the environment."""

    def __init__(self, searcher: Searcher, limits: Limits, claude: tuple[anthropic.Anthropic, str] | None = None) -> None:
        self.searcher = searcher
        self.limits = limits
        self.claude = claude

    def answer(
        self,
        question: str,
        history: Sequence[tuple[str, str]] = (),
        *,
        answerer: str | None = None,
        collections: list[str] | None = None,
        on_text: Callable[[str], None] | None = None,
        on_call: Callable[[ToolCall], None] | None = None,
    ) -> Answer:
        """Answer from the docs, citing them, or say plainly that they don't cover it.

        history: earlier turns of the same thread as ("user" | "assistant", text).
        answerer: "claude" or "local"; by default Claude when there is one.
        collections: the collections this asker may see (None: all).
        on_text: given Claude's answer as it is written, verified block by block (the local answerer's comes whole).
        on_call: told of each tool call before it runs, to show progress ("searching the docs for ...").
        """
        started = time.perf_counter()
        kind = answerer or ("claude" if self.claude else "local")
        if not question.strip():
            return Answer(question, "abstained", EMPTY, kind)
        claude = self.claude if kind == "claude" else None
        if kind == "claude" and claude is None:
            return Answer(question, "error", NO_MODEL, kind, error="no ANTHROPIC_API_KEY")
        toolbox = self._toolbox(collections, on_call)
        bot: Answerer
        if claude is not None:
            from bot.agent.claude import ClaudeAnswerer  # the Anthropic SDK loads only where there is a key

            stream = VerifiedStream(toolbox.ledger, toolbox.calculations, on_text) if on_text else None
            client, model = claude
            bot = ClaudeAnswerer(client, model, stream=stream)
        else:
            bot = LocalAnswerer()
        result = Answer(question, "answered", "", kind, model=bot.model)
        failure: ModelFailure | None = None
        try:
            draft = run(bot, question, list(history), toolbox, self.limits.max_turns)
        except ModelFailure as e:
            failure, draft, result.error, result.model_failure = e, None, e.detail, e.reason
            if self.limits.fallback and e.docs_may_answer:  # the docs may still answer: quote them, and say so
                result.problems.append(Problem.of("model_fallback", error=e.detail))
                toolbox, bot, result.answerer = self._toolbox(collections, on_call), LocalAnswerer(), "local"
                draft = run(bot, question, list(history), toolbox, self.limits.max_turns)
        v = verdict(draft, toolbox.ledger, toolbox.calculations, failure, self.limits.max_turns)
        result.status, result.answer, result.sources, result.cited = v.status, v.text, v.sources, v.cited
        result.problems += v.problems
        if result.status != "answered":
            try:
                result.closest = _closest(toolbox, self.searcher, question, collections)
            except Exception as e:  # best effort: the reason for no answer matters more than the hints
                result.problems.append(Problem.of("closest_pages_failed", error=f"{type(e).__name__}: {e}"[:300]))
        result.searches, result.steps, result.usage = toolbox.searches, toolbox.steps, bot.usage
        result.latency_ms = (time.perf_counter() - started) * 1000
        return result

    def _toolbox(self, collections: list[str] | None, on_call: Callable[[ToolCall], None] | None = None) -> Toolbox:
        return Toolbox(self.searcher, max_searches=self.limits.max_searches, allowed_collections=collections, on_call=on_call)


def _closest(toolbox: Toolbox, searcher: Searcher, question: str, collections: list[str] | None) -> list[Source]:
    """Pages worth a look when there is no answer: those the searches found (else one search now) whose title or
    path shares a word with the question, as the gaps page relates them, and, where the sentence encoder ranked
    them, that it put among its first MEANING_PAGES: a word in common alone relates the "Auralis Fleet API
    overview" to "the price of the Auralis smartwatch". When the docs simply don't cover a topic, the nearest pages
    are noise ("vacation days" -> "Care+"), so none is offered. Over bench/answers.py's nine sets with the held-out
    questions, the encoder's test took the abstentions on uncovered questions that offer a page from 51 of 74 to 46,
    and those on answerable ones offering only wrong pages from 39 to 30, against 21 to 20 offering a right one."""
    hits = [h for record in toolbox.searches for h in record.hits]
    if not hits:
        hits = [h.record for h in searcher.search(question, k=5, collections=collections)]
    asked = content_words(question)
    related = [h.path for h in hits if page_words(h.title, h.path) & asked and among_meanings_first(h)]
    paths = list(dict.fromkeys(related))[:3]
    pages = searcher.pages(paths)
    return [Source(n, p.title, p.path, p.url, p.collection) for n, p in enumerate(pages, 1)]
