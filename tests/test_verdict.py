"""The verdict: when a finished run is an answer, an abstention, an error or out of steps - no model needed."""

from bot.agent.claude import BUSY, ModelFailure
from bot.agent.evidence import Ledger
from bot.agent.local import INTRO
from bot.agent.loop import Draft
from bot.agent.types import Citation, Segment
from bot.agent.verdict import FALLBACK, NOT_COVERED, OUT_OF_STEPS, REFUSED, verdict
from kb.documents import Line
from kb.hits import Hit


def ledger_with(*lines: str) -> Ledger:
    ledger = Ledger()
    hit = Hit(
        7,
        "help/returns.md",
        "help",
        "Returns",
        "Returns > Window",
        None,
        5.0,
        lines=tuple(Line(n, t) for n, t in enumerate(lines, 1)),
    )
    ledger.add(hit)
    return ledger


def quote(ledger: Ledger, block: int, text: str | None = None) -> Segment:
    passage = ledger.get(0)
    line = passage.blocks[block]
    return Segment(text or line, (Citation(0, block, block + 1, line, passage.source),))


def test_a_verified_quote_is_an_answer_with_its_source():
    ledger = ledger_with("Returns are accepted for 30 days.")
    v = verdict(Draft([quote(ledger, 0)]), ledger, [])
    assert v.status == "answered" and "30 days" in v.text and [s.path for s in v.sources] == ["help/returns.md"]


def test_a_claim_without_a_verified_citation_is_an_abstention():
    ledger = ledger_with("Returns are accepted for 30 days.")
    v = verdict(Draft([Segment("Returns are accepted for 90 days.")]), ledger, [])
    assert v.status == "abstained" and v.text == NOT_COVERED and v.sources == []
    assert [p.kind for p in v.problems] == ["unsourced_number"]


def test_a_number_the_cited_line_does_not_hold_is_dropped():
    ledger = ledger_with("Returns are accepted for 30 days.")
    v = verdict(Draft([quote(ledger, 0, "Returns are accepted for 45 days.")]), ledger, [])
    assert v.status == "abstained" and any(p.kind == "number_not_in_passage" for p in v.problems)


def test_no_draft_is_out_of_steps_and_a_refusal_is_polite():
    assert verdict(None, Ledger(), [], max_turns=6).text == OUT_OF_STEPS
    refused = verdict(Draft([], stop="refusal", note="refused (cyber)"), Ledger(), [])
    assert refused.status == "abstained" and refused.text == REFUSED


def test_a_model_failure_with_a_local_answer_says_so_in_one_line():
    ledger = ledger_with("Returns are accepted for 30 days.")
    failure = ModelFailure(BUSY, "anthropic 529 overloaded_error")
    v = verdict(Draft([Segment(INTRO), quote(ledger, 0)]), ledger, [], failure)
    assert v.status == "answered" and v.text.startswith(FALLBACK + "\n") and INTRO not in v.text


def test_a_model_failure_with_nothing_to_quote_gives_the_models_reason():
    failure = ModelFailure(BUSY, "anthropic 529 overloaded_error")
    assert verdict(None, Ledger(), [], failure).text == BUSY
    assert verdict(Draft([], note="nothing found"), Ledger(), [], failure).status == "error"


def test_a_calculation_alone_is_an_answer():
    v = verdict(Draft([Segment("80 - 15% of 80 = 68")]), Ledger(), ["80 - 15% of 80 = 68"])
    assert v.status == "answered" and v.text == "80 - 15% of 80 = 68"
