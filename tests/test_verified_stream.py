"""Streaming shows only verified text, as a growing prefix of the answer the verdict will give - no model needed."""

from bot.agent.citations import render, verify
from bot.agent.stream import VerifiedStream
from bot.agent.types import Segment
from tests.test_verdict import ledger_with, quote

LINES = ("Returns are accepted for 30 days.", "Refunds take 5 business days.")


def streamed(*segments_of, ledger=None):
    ledger = ledger or ledger_with(*LINES)
    shown: list[str] = []
    stream = VerifiedStream(ledger, [], shown.append)
    for make in segments_of:
        stream.block(make(ledger))
    return shown, stream, ledger


def test_each_verified_block_is_shown_when_it_ends_and_together_they_are_the_answer():
    first = lambda ledger: quote(ledger, 0)
    second = lambda ledger: quote(ledger, 1, " Refunds take 5 business days.")
    shown, stream, ledger = streamed(first, second)
    assert len(shown) == 2 and "30 days" in shown[0] and "5 business days" in shown[1]
    answer, _, _ = render(verify(stream.segments, ledger))
    assert "".join(shown) == answer


def test_a_block_that_fails_verification_is_never_shown():
    good = lambda ledger: quote(ledger, 0)
    wrong_number = lambda ledger: quote(ledger, 1, " Refunds take 2 business days.")
    shown, _, _ = streamed(good, wrong_number)
    assert len(shown) == 1 and "2 business days" not in "".join(shown)


def test_uncited_text_waits_for_the_cited_sentence_it_leads_into():
    intro = lambda ledger: Segment("Good news: ")
    cited = lambda ledger: quote(ledger, 0)
    shown, _, _ = streamed(intro)
    assert shown == []
    shown, _, _ = streamed(intro, cited)
    assert shown[0].startswith("Good news: ") and "30 days" in shown[0]


def test_a_new_turn_starts_a_new_answer_and_shows_nothing_that_contradicts_what_was_shown():
    ledger = ledger_with(*LINES)
    shown: list[str] = []
    stream = VerifiedStream(ledger, [], shown.append)
    stream.block(quote(ledger, 0))
    stream.turn()
    stream.block(quote(ledger, 1))
    assert len(shown) == 1, "the second turn's answer does not extend what was shown: the message is corrected at the end"


def test_an_uncited_claim_is_never_streamed_even_as_the_last_block():
    cited = lambda ledger: quote(ledger, 0)
    claim = lambda ledger: Segment(" Express orders can never be refunded.")
    shown, stream, ledger = streamed(cited, claim)
    answer, _, _ = render(verify(stream.segments, ledger))
    assert "never be refunded" not in "".join(shown) and "never be refunded" not in answer
