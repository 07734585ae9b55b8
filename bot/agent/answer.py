"""One question in, one Answer out: the only function Slack and the command line call."""

from __future__ import annotations

import time
from collections.abc import Sequence

import anthropic

from bot.agent.citations import numbers_in, render, verify
from bot.agent.claude import ClaudeAnswerer, ModelFailure, make_client
from bot.agent.local import INTRO, LocalAnswerer
from bot.agent.loop import run
from bot.agent.tools import Toolbox
from bot.agent.types import Answer, Source
from bot.settings import Settings
from kb.search import Searcher

NOT_COVERED = "I couldn't find this in the docs."
OUT_OF_STEPS = "I ran out of steps before I could put an answer together from the docs."
REFUSED = "I can't help with that request."
EMPTY = "Ask me a question about the docs, for example: how long is the warranty?"
FALLBACK = "The language model is unavailable, so these are the matching lines from the docs."


def choose_answerer(settings: Settings, requested: str | None = None) -> str:
    if requested:
        return requested
    return "claude" if settings.anthropic_api_key else "local"


def answer(
    question: str,
    history: Sequence[tuple[str, str]] = (),
    *,
    searcher: Searcher,
    settings: Settings,
    answerer: str | None = None,
    collections: list[str] | None = None,
    client: anthropic.Anthropic | None = None,
) -> Answer:
    """Answer from the docs, citing them, or say plainly that they don't cover it.

    history: earlier turns of the same thread as ("user" | "assistant", text).
    collections: the collections this asker may see (None: all).
    """
    started = time.perf_counter()
    kind = choose_answerer(settings, answerer)
    if not question.strip():
        return Answer(question, "abstained", EMPTY, kind)
    toolbox = Toolbox(searcher, max_searches=settings.max_searches, allowed_collections=collections)
    if kind == "claude":
        if client is None:
            key = settings.anthropic_api_key.get_secret_value() if settings.anthropic_api_key else ""
            client = make_client(key, settings.anthropic_base_url, settings.anthropic_timeout_s, settings.anthropic_max_retries)
        bot = ClaudeAnswerer(client, settings.anthropic_model)
    else:
        bot = LocalAnswerer()

    result = Answer(question, "answered", "", kind, model=bot.model)
    failure: ModelFailure | None = None
    try:
        draft = run(bot, question, list(history), toolbox, settings.max_turns)
    except ModelFailure as e:
        failure, draft, result.error = e, None, e.detail
        if settings.answer_fallback == "local" and e.docs_may_answer:  # the docs may still answer: quote them, and say so
            result.problems.append({"kind": "model_fallback", "error": e.detail})
            toolbox = Toolbox(searcher, max_searches=settings.max_searches, allowed_collections=collections)
            bot, result.answerer = LocalAnswerer(), "local"
            draft = run(bot, question, list(history), toolbox, settings.max_turns)

    if failure is not None and draft is None:
        result.status, result.answer = "error", failure.user_message
    else:
        if draft is None:
            result.status, result.answer = "budget_exhausted", OUT_OF_STEPS
            result.problems.append({"kind": "turn_budget_exhausted", "turns": settings.max_turns})
        elif draft.stop == "refusal":
            result.status, result.answer = "abstained", REFUSED
            result.problems.append({"kind": "refusal", "note": draft.note})
        else:
            allowed = set().union(*(numbers_in(c) for c in toolbox.calculations))
            verified = verify(draft.segments, toolbox.ledger, allowed)
            result.problems += verified.problems
            text, result.sources, result.cited = render(verified)
            if draft.stop in ("max_tokens", "empty"):
                result.problems.append({"kind": draft.stop, "note": draft.note})
            if verified.has_sourced_claim or (toolbox.calculations and text):
                result.answer = text if failure is None else FALLBACK + "\n" + text.removeprefix(INTRO)
            elif failure is not None:  # nothing to quote either: the model's failure is the reason to give
                result.status, result.answer = "error", failure.user_message
            else:
                result.status, result.answer = "abstained", NOT_COVERED
                if draft.note:
                    result.problems.append({"kind": "abstained", "note": draft.note})
    if result.status != "answered":
        try:
            result.closest = _closest(toolbox, searcher, question, collections)
        except Exception as e:  # best effort: the reason for no answer matters more than the hints
            result.problems.append({"kind": "closest_pages_failed", "error": f"{type(e).__name__}: {e}"[:300]})
    result.searches, result.steps, result.usage = toolbox.searches, toolbox.steps, bot.usage
    result.latency_ms = (time.perf_counter() - started) * 1000
    return result


def _closest(toolbox: Toolbox, searcher: Searcher, question: str, collections: list[str] | None) -> list[Source]:
    """Pages worth a look when there is no answer: what the searches found, else the nearest weak matches."""
    hits = [h for record in toolbox.searches for h in record.hits]
    if not hits:
        weak = searcher.search(question, k=3, collections=collections, min_score=0)
        hits = [{"path": h.path, "title": h.title, "heading": h.heading} for h in weak]
    paths = list(dict.fromkeys(h["path"] for h in hits))[:3]
    pages = searcher.pages(paths)
    return [Source(n, p.title, p.path, p.url, p.collection) for n, p in enumerate(pages, 1)]
