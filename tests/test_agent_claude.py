"""The Claude loop against the fake Messages API, through the real anthropic SDK."""

import anthropic
import pytest
from sqlalchemy import text

from bot.agent.claude import BAD_KEY, UNREACHABLE
from bot.agent.tools import NO_NEW_EVIDENCE
from bot.agent.types import Problem
from bot.runtime import Runtime
from tests.conftest import settings_for_claude
from tests.fakes.anthropic import (
    Cite,
    Reply,
    answer,
    calculate,
    empty_turn,
    error,
    last_tool_results,
    message,
    refusal,
    search,
    search_results,
    tool_result_text,
)


def ask(runtime, question, **kw):
    return runtime.ask(question, answerer="claude", **kw)


def test_a_missed_search_then_the_docs_words_find_two_pages_that_are_both_cited(runtime, fake_anthropic):
    fake_anthropic.then(
        search("misplaced bud insurance payout"),
        search("lost earbud Care+ loss cover single earbud price Pods Pro"),
        answer(
            Cite("Without Care+, a single Pods Pro earbud costs $89.", "replacement-parts", "Single earbud"),
            Cite(" With Care+, a lost earbud is replaced for $39.", "care-plus", "Loss cover"),
        ),
    )
    a = ask(runtime, "How much to replace a lost Pro bud, with and without the plan?")

    assert a.status == "answered", a.problems
    assert a.answer == (
        "Without Care+, a single Pods Pro earbud costs $89. [1] With Care+, a lost earbud is replaced for $39. [2]"
    )
    assert [s.path for s in a.sources] == ["help/replacement-parts.md", "help/care-plus.md"]
    assert [s.query for s in a.searches] == [
        "misplaced bud insurance payout",
        "lost earbud Care+ loss cover single earbud price Pods Pro",
    ]
    first_result = tool_result_text(last_tool_results(fake_anthropic.requests[1])[0])
    assert a.searches[0].hits and "Weaker matches" in first_result, "shown, and labelled for the model to weigh"
    assert "The docs never use the words" in first_result
    assert a.problems == []
    assert a.usage["calls"] == 3 and a.usage["input_tokens"] == 360


def test_every_request_carries_tools_system_and_cache_control(runtime, fake_anthropic):
    fake_anthropic.then(search("refund window"), answer(Cite("Returns are accepted for 30 days.", "returns", "30 days")))
    ask(runtime, "How long can I return things?")
    for req in fake_anthropic.requests:
        assert [t["name"] for t in req["tools"]] == ["search_docs", "calculator"]
        assert req["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert req["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert req["model"] == "claude-haiku-4-5"
    assert fake_anthropic.headers[0]["authorization"] == "Bearer sk-ant-test-key"


def test_passages_arrive_as_search_results_one_block_per_line_with_citations_on(runtime, fake_anthropic):
    fake_anthropic.then(search("rate limit per key"), answer(Cite("600 requests a minute.", "rate-limits", "600 requests")))
    ask(runtime, "What is the API rate limit?")
    results = search_results(fake_anthropic.requests[1])
    assert results and all(r["citations"] == {"enabled": True} for r in results)
    top = results[0]
    assert top["source"].startswith("kb://api/rate-limits.md#chunk-")
    assert top["title"] == "Rate limits > Limits per key"
    assert [b["text"] for b in top["content"]] == [
        "Each API key may make 600 requests per minute, with bursts of up to 100 requests in one second. "
        "Sandbox keys are limited to 60 requests per minute."
    ]
    assert "600 requests" not in fake_anthropic.requests[0]["system"][0]["text"], "passages never go in the system prompt"


def test_a_reformulated_search_with_one_word_the_docs_never_use_still_returns_what_its_other_words_find(
    fake_anthropic, db_url, tmp_path
):
    docs = tmp_path / "api-docs"
    docs.mkdir()
    (docs / "webhooks.md").write_text(
        "# Webhooks\n\n## Retries\n\nFailed webhook deliveries are retried five times, with exponential backoff.\n"
    )
    (docs / "endpoints.md").write_text(
        "# Endpoints\n\n## Responding\n\nA delivery whose endpoint takes over 10 seconds to answer counts as failed.\n"
    )
    (docs / "keys.md").write_text("# API keys\n\n## Rotating\n\nRotate your keys every 90 days.\n")
    for topic in "invoices taxes seats roles audit exports billing regions teams projects".split():
        (docs / f"{topic}.md").write_text(f"# {topic.title()}\n\n## Overview\n\nHow {topic} work in the dashboard.\n")
    rt = Runtime(settings_for_claude(fake_anthropic, db_url, docs))
    rt.sync()
    fake_anthropic.then(
        search("dashboard invoices"),
        search("webhook delivery failed timeout seconds"),
        answer(
            Cite("An endpoint that takes over 10 seconds counts as failed,", "endpoints", "over 10 seconds"),
            Cite(" and failed deliveries are retried five times.", "webhooks", "retried five times"),
        ),
    )
    a = ask(rt, "why do my webhooks arrive several times?")
    assert rt.searcher.unknown_words("webhook delivery failed timeout seconds") == ["timeout"]
    assert {h.path for h in a.searches[1].hits} >= {"webhooks.md", "endpoints.md"}
    second = tool_result_text(last_tool_results(fake_anthropic.requests[2])[0])
    assert "The docs never use the word timeout" in second
    assert a.status == "answered", a.problems
    assert [s.path for s in a.sources] == ["endpoints.md", "webhooks.md"]


def test_a_question_the_docs_do_not_cover_is_abstained_with_the_closest_pages(runtime, fake_anthropic):
    fake_anthropic.then(search("student discount"), answer("The documentation doesn't mention a student discount."))
    a = ask(runtime, "Is there a student discount?")
    assert a.status == "abstained"
    assert a.answer == "I couldn't find this in the docs."
    assert a.sources == []


def test_repeated_searches_are_not_rerun_and_the_turn_budget_ends_the_loop(runtime, fake_anthropic):
    runtime.settings.max_turns = 4
    fake_anthropic.then(*[search("warranty length") for _ in range(4)])
    a = ask(runtime, "How long is the warranty?")
    assert a.status == "budget_exhausted"
    assert len(a.searches) == 1, "an identical query runs once"
    repeat = tool_result_text(last_tool_results(fake_anthropic.requests[2])[0])
    assert "already searched" in repeat and NO_NEW_EVIDENCE in repeat
    assert Problem.of("turn_budget_exhausted", turns=4) in a.problems


def test_the_search_budget_tells_the_model_to_answer(runtime, fake_anthropic):
    runtime.settings.max_searches = 2
    fake_anthropic.then(
        search("warranty"),
        search("care plus"),
        search("battery"),
        answer(Cite("Pods Pro have a 2-year limited warranty.", "warranty", "2-year")),
    )
    a = ask(runtime, "Warranty?")
    assert len(a.searches) == 2
    assert "Search budget used up (2 searches)" in tool_result_text(last_tool_results(fake_anthropic.requests[3])[0])
    assert a.status == "answered"


def test_a_search_finding_only_known_passages_says_stop_and_answer(runtime, fake_anthropic):
    fake_anthropic.then(
        search("refund window days"),
        search("days, refund window"),
        answer(Cite("You have 30 days.", "returns", "30 days")),
    )
    a = ask(runtime, "Refund window?")
    second = tool_result_text(last_tool_results(fake_anthropic.requests[2])[0])
    assert NO_NEW_EVIDENCE in second
    assert a.status == "answered"


class DamagedModel:
    """An embedding model whose file went bad after it loaded (the Embedder protocol, failing)."""

    name, dim = "damaged", 256

    def embed(self, texts):
        raise RuntimeError("the model's weights are damaged")


def test_a_tool_that_raises_is_reported_to_the_model_as_an_error_result(runtime, fake_anthropic):
    def break_the_model(req):
        runtime.searcher.embedder = DamagedModel()
        return search("warranty")(req)

    fake_anthropic.then(break_the_model, answer("Sorry, the documentation search is failing right now."))
    assert runtime.searcher.index.size > 0
    a = ask(runtime, "How long is the warranty?")
    result = last_tool_results(fake_anthropic.requests[1])[0]
    assert result["is_error"] is True
    assert "The tool failed" in tool_result_text(result)
    assert a.status == "abstained"


def test_an_empty_end_turn_gets_one_please_continue(runtime, fake_anthropic):
    fake_anthropic.then(
        search("water resistance swimming"), empty_turn(), answer(Cite("Don't swim with them.", "water", "swimming"))
    )
    a = ask(runtime, "Can I swim with them?")
    assert fake_anthropic.requests[2]["messages"][-1]["content"].startswith("Please continue")
    assert a.status == "answered"


def test_two_empty_end_turns_fall_back_to_not_covered(runtime, fake_anthropic):
    fake_anthropic.then(search("water resistance swimming"), empty_turn(), empty_turn())
    a = ask(runtime, "Can I swim with them?")
    assert a.status == "abstained"
    assert any(p.kind == "empty" for p in a.problems)


def test_overloaded_then_success_is_retried_by_the_sdk(runtime, fake_anthropic):
    runtime.settings.anthropic_max_retries = 2
    fake_anthropic.then(
        error(529, "overloaded_error", "Overloaded", {"retry-after-ms": "10"}),
        search("rate limits"),
        answer(Cite("600 requests per minute.", "rate-limits", "600 requests")),
    )
    a = ask(runtime, "Rate limit?")
    assert a.status == "answered"
    assert len(fake_anthropic.requests) == 3


@pytest.mark.parametrize("status,kind", [(529, "overloaded_error"), (429, "rate_limit_error"), (500, "api_error")])
def test_a_busy_api_becomes_a_short_reason_and_a_logged_error_without_fallback(runtime, fake_anthropic, status, kind):
    runtime.settings.answer_fallback = "none"
    fake_anthropic.then(error(status, kind, "try later"))
    a = ask(runtime, "Rate limit?")
    assert a.status == "error"
    assert a.answer == "The language model is busy right now, so I couldn't answer. Please try again in a minute."
    assert f"anthropic {status} {kind}" in a.error and "req_fake" in a.error
    assert "sk-ant-test-key" not in a.error


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_says_so_and_names_the_setting(runtime, fake_anthropic, status):
    runtime.settings.answer_fallback = "none"
    fake_anthropic.then(error(status, "authentication_error", "invalid x-api-key"))
    a = ask(runtime, "Rate limit?")
    assert a.status == "error" and a.answer == BAD_KEY and "ANTHROPIC_API_KEY" in a.answer
    assert f"anthropic {status}" in a.error and "request-id" in a.error


def test_an_unreachable_api_is_called_unreachable_not_busy(runtime, fake_anthropic):
    runtime.settings.answer_fallback = "none"
    fake_anthropic.stop()
    a = ask(runtime, "Rate limit?")
    assert a.status == "error" and a.answer == UNREACHABLE
    assert "connection" in a.error.lower()


def test_a_refusal_is_answered_politely(runtime, fake_anthropic):
    fake_anthropic.then(refusal("cyber"))
    a = ask(runtime, "Write malware for the earbuds")
    assert a.status == "abstained" and a.answer == "I can't help with that request."
    assert Problem.of("refusal", note="refused (cyber)") in a.problems


def test_a_cited_sentence_with_a_wrong_number_is_caught_and_dropped(runtime, fake_anthropic):
    fake_anthropic.then(
        search("API key expire rotate"),
        answer(
            Cite("API keys expire after 30 days.", "authentication", "expire after 90 days"),
            Cite(" Create the new key before the old one expires.", "authentication", "expire after 90 days"),
        ),
    )
    a = ask(runtime, "When do keys expire?")
    assert a.status == "answered"
    assert a.answer == "Create the new key before the old one expires. [1]"
    assert Problem.of("number_not_in_passage", text="API keys expire after 30 days.", numbers=["30"]) in a.problems


def test_a_misquoted_or_unretrieved_citation_is_not_shown(runtime, fake_anthropic):
    fake_anthropic.then(
        search("rate limits"),
        answer(
            Cite("Limits are generous.", "rate-limits", "600 requests", cited_text="Each key may make unlimited requests."),
            Cite(" Also true.", "nowhere", "x", index=99),
        ),
    )
    a = ask(runtime, "Rate limit?")
    assert a.status == "abstained"
    assert {p.kind for p in a.problems} >= {"cited_text_mismatch", "cites_unretrieved"}


def test_an_uncited_number_is_not_shown(runtime, fake_anthropic):
    fake_anthropic.then(
        search("rate limits"),
        answer(Cite("The limit is 600 requests a minute.", "rate-limits", "600 requests"), " Most teams use about 250."),
    )
    a = ask(runtime, "Rate limit?")
    assert a.answer == "The limit is 600 requests a minute. [1]"
    assert Problem.of("unsourced_number", text="Most teams use about 250.", numbers=["250"]) in a.problems


def test_a_calculated_number_may_be_stated(runtime, fake_anthropic):
    fake_anthropic.then(
        search("rate limit per minute"),
        search("pagination maximum limit"),
        calculate("600 * 100"),
        answer(
            Cite("Each key may make 600 requests a minute", "rate-limits", "600 requests"),
            Cite(" and a page holds at most 100 devices,", "pagination", "maximum is 100"),
            " so at most 60,000 devices a minute.",
        ),
    )
    a = ask(runtime, "How many devices per minute at most?")
    assert a.status == "answered", a.problems
    assert a.answer.endswith("so at most 60,000 devices a minute.")
    assert [s.path for s in a.sources] == ["api/rate-limits.md", "api/pagination.md"]
    assert a.steps[2].observation == "600 * 100 = 60,000"


@pytest.mark.parametrize("stated", ["$40.80", "40.8"])
def test_a_calculated_amount_may_be_stated_as_money_is_written(runtime, fake_anthropic, stated):
    fake_anthropic.then(calculate("12% of $340"), answer(f"12% of a $340 order is {stated}."))
    a = ask(runtime, "what is 12% of a $340 order?")
    assert a.status == "answered" and not a.problems, a.problems
    assert a.answer.startswith(f"12% of a $340 order is {stated}.")


def test_thread_history_is_sent_as_earlier_turns(runtime, fake_anthropic):
    fake_anthropic.then(search("earbuds warranty"), answer(Cite("Two years for Pods Pro.", "warranty", "2-year")))
    ask(
        runtime,
        "and what about the warranty?",
        history=[("user", "Tell me about the Pods Pro earbuds"), ("assistant", "They have ANC.")],
    )
    first = fake_anthropic.requests[0]["messages"]
    assert [(m["role"], m["content"]) for m in first] == [
        ("user", "Tell me about the Pods Pro earbuds"),
        ("assistant", "They have ANC."),
        ("user", "and what about the warranty?"),
    ]


def test_a_collection_outside_the_askers_scope_is_refused(runtime, fake_anthropic):
    fake_anthropic.then(search("firmware", collection="api"), answer("Nothing I can see."))
    a = ask(runtime, "Firmware?", collections=["help"])
    assert "There is no collection 'api' here. Collections: help." in tool_result_text(
        last_tool_results(fake_anthropic.requests[1])[0]
    )
    assert a.searches == []


def test_the_fake_rejects_what_the_real_api_rejects(fake_anthropic):
    client = anthropic.Anthropic(api_key="k", base_url=fake_anthropic.url, max_retries=0)
    tool_turns = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search_docs", "input": {"query": "x"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "none"}]},
    ]
    with pytest.raises(anthropic.BadRequestError, match="must define tools"):
        client.messages.create(model="m", max_tokens=10, messages=tool_turns)
    with pytest.raises(anthropic.BadRequestError, match="non-empty"):
        client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": [{"type": "text", "text": " "}]}])
    mixed = [
        {
            "role": "user",
            "content": [
                {
                    "type": "search_result",
                    "source": "a",
                    "title": "A",
                    "content": [{"type": "text", "text": "x"}],
                    "citations": {"enabled": True},
                },
                {"type": "search_result", "source": "b", "title": "B", "content": [{"type": "text", "text": "y"}]},
            ],
        }
    ]
    with pytest.raises(anthropic.BadRequestError, match="all search results or on none"):
        client.messages.create(model="m", max_tokens=10, messages=mixed)


def test_a_cut_off_answer_keeps_what_verifies_and_says_it_was_cut(runtime, fake_anthropic):
    fake_anthropic.then(
        search("rate limits"),
        answer(
            Cite("Each key may make 600 requests per minute.", "rate-limits", "600 requests"),
            " Bursts of up",
            stop_reason="max_tokens",
        ),
    )
    a = ask(runtime, "Rate limit?")
    assert a.status == "answered" and a.answer.startswith("Each key may make 600 requests per minute. [1]")
    assert Problem.of("max_tokens", note="the answer was cut off at max_tokens") in a.problems


def test_an_overflowing_context_is_an_error_with_a_short_reason(runtime, fake_anthropic):
    from tests.fakes.anthropic import message

    fake_anthropic.then(lambda req: message([], "model_context_window_exceeded"))
    a = ask(runtime, "Rate limit?")
    assert a.status == "error" and "too long" in a.answer and a.error == "model_context_window_exceeded"


def test_a_model_that_times_out_is_called_busy(runtime, fake_anthropic):
    slow = search("rate limits")

    def too_slow(req):
        reply = slow(req)
        reply.delay_s = 2.0
        return reply

    runtime.settings.anthropic_timeout_s = 0.5
    runtime.settings.answer_fallback = "none"
    fake_anthropic.then(too_slow)
    a = ask(runtime, "Rate limit?")
    assert a.status == "error" and "busy" in a.answer
    assert "APITimeoutError" in a.error


def test_an_overloaded_model_falls_back_to_labelled_lines_from_the_docs(runtime, fake_anthropic):
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    a = ask(runtime, "How many API requests can I make per minute?")
    assert a.status == "answered" and a.answerer == "local"
    assert a.answer.startswith("The language model is unavailable, so these are the matching lines from the docs.")
    assert "600" in a.answer and a.sources[0].path == "api/rate-limits.md"
    assert "anthropic 529 overloaded_error" in a.error
    assert any(p.kind == "model_fallback" for p in a.problems)


def test_a_timed_out_model_falls_back_to_the_docs(runtime, fake_anthropic):
    def too_slow(req):
        reply = search("rate limits")(req)
        reply.delay_s = 2.0
        return reply

    runtime.settings.anthropic_timeout_s = 0.5
    fake_anthropic.then(too_slow)
    a = ask(runtime, "How many API requests can I make per minute?")
    assert a.status == "answered" and "APITimeoutError" in a.error
    assert a.answer.startswith("The language model is unavailable")


def test_a_fallback_that_finds_nothing_gives_the_models_reason(runtime, fake_anthropic):
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    a = ask(runtime, "What is the vacation policy?")
    assert a.status == "error" and "busy" in a.answer and not a.sources


MALFORMED = {
    "not json": lambda req: Reply(raw=b"{not json"),
    "an html page": lambda req: Reply(raw=b"<html><body>Bad gateway</body></html>"),
    "content null": lambda req: Reply(
        body={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": None,
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    ),
    "tool input that is a list": lambda req: message(
        [{"type": "tool_use", "id": "t1", "name": "search_docs", "input": ["x"]}], "tool_use"
    ),
}


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_model_reply_is_logged_and_answered_from_the_docs(runtime, fake_anthropic, kind):
    fake_anthropic.then(MALFORMED[kind])
    a = ask(runtime, "How many API requests can I make per minute?")
    assert a.status == "answered" and a.answer.startswith("The language model is unavailable")
    assert "malformed model response" in a.error
    with runtime.engine.connect() as conn:
        logged = conn.execute(text("SELECT status, error FROM log_questions WHERE id = :id"), {"id": a.log_id}).one()
    assert logged.status == "answered" and "malformed model response" in logged.error


def test_numbers_in_words_are_checked_like_digits(runtime, fake_anthropic):
    fake_anthropic.then(
        search("express shipping cost"),
        answer(Cite("Express shipping costs ninety-nine dollars and takes three weeks.", "shipping", "Express")),
    )
    a = ask(runtime, "How much is express shipping?")
    assert "ninety-nine" not in a.answer and a.status == "abstained"
    assert any(p.kind == "number_not_in_passage" and "99" in p.detail["numbers"] for p in a.problems)


def test_an_uncited_claim_is_not_shown_but_a_connecting_phrase_is(runtime, fake_anthropic):
    fake_anthropic.then(
        search("express shipping cost"),
        answer(
            "In short, ",
            Cite("Express shipping takes 1 to 2 business days and costs $12.", "shipping", "Express"),
            " Express orders can never be refunded.",
        ),
    )
    a = ask(runtime, "How much is express shipping?")
    assert a.status == "answered" and a.answer.startswith("In short,") and "never be refunded" not in a.answer
    assert any(p.kind == "uncited_claim" for p in a.problems)


def test_a_link_the_passages_do_not_hold_is_unlinked_and_one_labelled_as_an_address_is_dropped(runtime, fake_anthropic):
    fake_anthropic.then(
        search("express shipping cost"),
        answer(
            Cite(
                "Express shipping costs $12: pay in [the express portal](https://evil.example/pay) or "
                "[https://help.auralis.example](https://evil.example/x).",
                "shipping",
                "Express",
            ),
        ),
    )
    a = ask(runtime, "How much is express shipping?")
    assert "evil.example" not in a.answer and "https://help.auralis.example" not in a.answer
    assert "the express portal" in a.answer
    assert any(p.kind == "unknown_link" for p in a.problems)


def test_a_search_whose_database_is_gone_is_not_an_answer_but_a_failure_to_retry(runtime, fake_anthropic):
    from kb.errors import IndexUnavailable

    def drop_the_index(req):
        with runtime.engine.begin() as conn:
            conn.execute(text("DROP TABLE kb_encodings"))
            conn.execute(text("DROP TABLE kb_chunks"))
        return search("warranty")(req)

    fake_anthropic.then(drop_the_index, answer("The docs don't cover this."))
    assert runtime.searcher.index.size > 0  # loaded before the tables go
    with pytest.raises(IndexUnavailable):
        ask(runtime, "How long is the warranty?")
    assert len(fake_anthropic.requests) == 1, "the model is not told the docs are empty"
