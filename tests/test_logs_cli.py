"""`supportbot logs`, `logs show`, `logs export`, `logs prune` and `gaps`, as a reviewer uses them."""

import csv
import io
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, update

from bot.logs.gaps import gaps
from bot.logs.models import questions
from bot.logs.report import Filters, export, list_questions
from bot.logs.store import Origin, record_feedback
from bot.runtime import Runtime
from bot.settings import load_settings
from tests.conftest import REPO, run_cli
from tests.fakes.anthropic import Cite, answer, search


@pytest.fixture
def rt(db_url, docs):
    runtime = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    runtime.sync()
    return runtime


def ask(rt, q, channel=None, source="slack"):
    return rt.ask(q, answerer="local", origin=Origin(source, channel=channel, user_id="U1", thread_ts="1.1"))


def cli(db_url, *args):
    result = run_cli(*args, "--db", db_url)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_list_is_newest_first_one_line_per_question(rt, db_url):
    ask(rt, "How much is express delivery?", "C1")
    ask(rt, "Is there a student discount?", "C2")
    lines = cli(db_url, "logs").splitlines()
    assert len(lines) == 2
    assert "Is there a student discount?" in lines[0] and "abstained" in lines[0] and "C2" in lines[0]
    assert "How much is express delivery?" in lines[1] and "answered" in lines[1]


def test_each_filter_narrows_the_list(rt, db_url):
    a = ask(rt, "How much is express delivery?", "C1")
    ask(rt, "Is there a student discount?", "C2")
    ask(rt, "Can I go swimming with my earbuds?", "C1", source="cli")
    record_feedback(rt.engine, a.log_id, "down", "U2")
    with rt.engine.begin() as conn:  # one question from long ago
        conn.execute(
            update(questions).where(questions.c.id == a.log_id).values(created_at=datetime.now(UTC) - timedelta(days=30))
        )

    def listed(**kw):
        return [r["question"] for r in list_questions(rt.engine, Filters(**kw))]

    assert listed(status="abstained") == ["Is there a student discount?"]
    assert listed(feedback="down") == ["How much is express delivery?"]
    assert listed(channel="C1") == ["Can I go swimming with my earbuds?", "How much is express delivery?"]
    assert listed(since="7d") == ["Can I go swimming with my earbuds?", "Is there a student discount?"]
    assert listed(search="swimming") == ["Can I go swimming with my earbuds?"]
    assert listed(source="cli") == ["Can I go swimming with my earbuds?"]
    assert len(listed(limit=1)) == 1
    assert "How much is express delivery?" in cli(db_url, "logs", "--feedback", "down")
    assert "swimming" not in cli(db_url, "logs", "--status", "abstained")


def test_problems_filter_finds_answers_with_citation_problems(runtime, fake_anthropic, db_url):
    fake_anthropic.then(search("API key expire"), answer(Cite("Keys expire after 30 days.", "authentication", "90 days")))
    bad = runtime.ask("When do keys expire?", answerer="claude")
    runtime.ask("How much is express delivery?", answerer="local")
    assert [r["id"] for r in list_questions(runtime.engine, Filters(problems=True))] == [bad.log_id]
    shown = cli(db_url, "logs", "show", str(bad.log_id))
    assert "number_not_in_passage" in shown and "Keys expire after 30 days." in shown


def test_show_prints_the_whole_trace(rt, db_url):
    a = ask(rt, "How much is express delivery?", "C1")
    record_feedback(rt.engine, a.log_id, "up", "U7")
    out = cli(db_url, "logs", "show", str(a.log_id))
    assert "Question: How much is express delivery?" in out
    assert "Search 1: 'How much is express delivery?'" in out and "help/shipping.html" in out
    assert "[1] line 21: Express shipping takes 1 to 2 business days and costs $12." in out
    assert "Feedback:" in out and "up   by U7" in out


def test_show_of_an_unknown_id_is_a_clear_error(rt, db_url):
    result = run_cli("logs", "show", "999", "--db", db_url)
    assert result.returncode == 1 and "no logged question 999" in result.stderr


def test_export_round_trips_as_jsonl_and_csv(rt, db_url):
    a = ask(rt, "How much is express delivery?", "C1")
    ask(rt, "Is there a student discount?", "C2")
    record_feedback(rt.engine, a.log_id, "down", "U2")
    records = [json.loads(line) for line in cli(db_url, "logs", "export", "--format", "jsonl").splitlines()]
    assert [r["question"] for r in records] == ["Is there a student discount?", "How much is express delivery?"]
    express = records[1]
    assert express["sources"][0]["path"] == "help/shipping.html" and express["feedback"][0]["value"] == "down"
    assert express["searches"][0]["hits"][0]["path"] == "help/shipping.html"
    rows = list(csv.DictReader(io.StringIO(cli(db_url, "logs", "export", "--format", "csv", "--status", "answered"))))
    assert [r["question"] for r in rows] == ["How much is express delivery?"]
    assert json.loads(rows[0]["sources"]) == express["sources"] and json.loads(rows[0]["searches"]) == express["searches"]
    assert "".join(export(rt.engine, Filters(status="error"), "jsonl")) == ""


def test_export_streams_every_matching_row_past_one_batch_and_stops_at_a_limit(rt, db_url):
    from bot.logs.report import EXPORT_BATCH

    base = {
        "source": "cli",
        "question": "q",
        "answerer": "local",
        "status": "answered",
        "answer": "a",
        "sources": [],
        "problems": [],
        "usage": {},
        "latency_ms": 1.0,
    }
    with rt.engine.begin() as conn:
        conn.execute(
            insert(questions), [base | {"question": f"q{n}", "created_at": datetime.now(UTC)} for n in range(EXPORT_BATCH + 50)]
        )
    lines = cli(db_url, "logs", "export").splitlines()
    assert len(lines) == EXPORT_BATCH + 50 and len({json.loads(x)["id"] for x in lines}) == EXPORT_BATCH + 50
    assert len(cli(db_url, "logs", "export", "--limit", "3").splitlines()) == 3


def test_prune_deletes_only_older_questions_with_their_searches(rt, db_url):
    old = ask(rt, "How much is express delivery?")
    ask(rt, "Is there a student discount?")
    record_feedback(rt.engine, old.log_id, "up", "U1")
    with rt.engine.begin() as conn:
        conn.execute(
            update(questions).where(questions.c.id == old.log_id).values(created_at=datetime.now(UTC) - timedelta(days=100))
        )
    assert "Deleted 1 question older than 90d." in cli(db_url, "logs", "prune", "--older-than", "90d")
    assert [r["question"] for r in list_questions(rt.engine, Filters())] == ["Is there a student discount?"]


def test_a_bad_age_is_a_usage_error(db_url):
    result = run_cli("logs", "--since", "soon", "--db", db_url)
    assert result.returncode == 2 and "not an age" in result.stderr


def test_gaps_group_paraphrases_with_counts_pages_and_the_latest_example(rt, db_url):
    for q in [
        "Is there a student discount?",
        "Do you offer discounts for students?",
        "student discount available?",
        "Is there a gift registry?",
        "Do you have a wedding gift registry?",
    ]:
        ask(rt, q)
    helpful = ask(rt, "How much is express delivery?")
    unhelpful = ask(rt, "Can I go swimming with my earbuds?")
    record_feedback(rt.engine, helpful.log_id, "up", "U1")
    record_feedback(rt.engine, unhelpful.log_id, "down", "U1")
    groups = gaps(rt.engine)
    summary = [(g.count, g.latest["question"]) for g in groups]
    assert summary[0] == (3, "student discount available?")
    assert (2, "Do you have a wedding gift registry?") in summary
    assert (1, "Can I go swimming with my earbuds?") in summary
    assert all("express delivery" not in q["question"] for g in groups for q in g.questions)
    swim = next(g for g in groups if "swimming" in g.latest["question"])
    assert "help/water-resistance.rst" in swim.closest_pages()
    out = cli(db_url, "gaps")
    assert out.splitlines()[0].startswith("   3x  student discount available?")


def test_the_retention_setting_prunes_like_the_command(rt):
    from bot.scheduler import prune_logs

    old = ask(rt, "How much is express delivery?")
    ask(rt, "Is there a student discount?")
    with rt.engine.begin() as conn:
        conn.execute(
            update(questions).where(questions.c.id == old.log_id).values(created_at=datetime.now(UTC) - timedelta(days=31))
        )
    rt.settings.log_retention_days = 30
    prune_logs(rt)
    assert [r["question"] for r in list_questions(rt.engine, Filters())] == ["Is there a student discount?"]


def test_a_changed_vote_and_its_reason_show_in_the_trace(runtime):
    from bot.logs.report import question_trace
    from bot.logs.store import record_reason
    from bot.logs.trace import render_trace

    a = runtime.ask("How much is express delivery?", answerer="local")
    record_feedback(runtime.engine, a.log_id, "up", "U5")
    feedback_id, kind = record_feedback(runtime.engine, a.log_id, "down", "U5")
    assert kind == "changed" and record_feedback(runtime.engine, a.log_id, "down", "U5") == (feedback_id, "same")
    assert record_reason(runtime.engine, feedback_id, "U5", "It left out the EU price")
    assert not record_reason(runtime.engine, feedback_id, "U6", "not my vote")
    text = render_trace(question_trace(runtime.engine, a.log_id))
    assert "down by U5" in text and "changed" in text and "why: It left out the EU price" in text


@pytest.mark.parametrize(
    ("args", "hint"),
    [(("logs", "--since"), "--since"), (("gaps", "--since"), "--since"), (("logs", "prune", "--older-than"), "--older-than")],
)
def test_an_absurd_age_is_one_line_naming_the_option(rt, db_url, args, hint):
    result = run_cli(*args, "999999999999d", "--db", db_url)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert hint in result.stderr and "at most 100 years" in result.stderr


def test_the_review_page_says_an_absurd_age_is_too_long(rt):
    from bot.review.app import create_app

    page = create_app(rt.engine).test_client().get("/questions?since=999999999999d")
    assert page.status_code == 200 and "at most 100 years" in page.text


def test_one_question_holding_every_topics_words_does_not_merge_the_gaps(db_url, docs):
    from bot.agent.types import Answer

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    topics = [
        "student discount for my university",
        "vacation days allowance per year",
        "smartwatch strap replacement colours",
        "dolby atmos spatial audio support",
        "gift wrapping service options",
        "crypto payment with bitcoin",
        "laptop request from the helpdesk",
        "parking spaces at the office",
    ]
    from bot.logs.store import record

    for topic in topics:
        for n in range(3):
            record(
                rt.engine, Answer(f"question {n}: {topic}?", "abstained", "I couldn't find this in the docs.", "local"), Origin()
            )
    record(rt.engine, Answer(" ".join(topics * 5), "abstained", "I couldn't find this in the docs.", "local"), Origin())
    groups = gaps(rt.engine)
    assert sorted(g.count for g in groups) == [1] + [3] * 8


def test_the_command_line_and_the_log_readers_load_no_search_library():
    """`--help`, `logs` and `gaps` start in a fraction of a second: the search, Slack and model libraries are
    imported by the commands that use them (bench/cli_bench.py measures the time)."""
    heavy = ("numpy", "scipy", "onnxruntime", "tokenizers", "slack_bolt", "anthropic", "flask")
    probe = "import sys, bot.cli, bot.logs.report, bot.logs.trace, bot.logs.gaps; print(' '.join(m for m in sys.argv[1:] if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe, *heavy], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.split() == [], result.stdout


def test_a_team_answer_past_its_review_date_is_due_in_gaps_and_cited_as_maybe_out_of_date(rt, db_url, docs):
    from bot.logs.models import team_answers
    from bot.logs.team_answers import add_candidate

    a = ask(rt, "Is there a student discount?")
    answer_id = add_candidate(rt.engine, a.log_id, a.question, "Yes, 15% off for students.", ("U_BOB", "Bob"), None)
    assert "Published #" in cli(db_url, "answers", "publish", str(answer_id))
    assert "due" not in cli(db_url, "gaps")
    with rt.engine.begin() as conn:  # its review-by date passes
        conn.execute(update(team_answers).values(review_by=datetime.now(UTC) - timedelta(days=1)))
    assert f"due   team answer #{answer_id}, Answer from Bob, support," in cli(db_url, "gaps")
    rt.sync()
    rt.searcher.refresh()  # this process loads the new index now (a serving bot does within seconds)
    [hit] = rt.searcher.search("student discount", k=1, collections=["team-answers"])
    assert hit.title.endswith("(may be out of date)") and hit.path == f"team-answers/{answer_id}.md"


def test_questions_handed_to_a_person_are_a_filter_on_the_list_the_command_and_the_page(rt, db_url):
    from bot.logs.store import escalate
    from bot.review.app import create_app

    kept = ask(rt, "Is there a student discount?", channel="C1")
    ask(rt, "How much is express delivery?", channel="C1")
    assert escalate(rt.engine, kept.log_id, "U1", None, "C1") is not None
    assert [r["id"] for r in list_questions(rt.engine, Filters(escalated=True))] == [kept.log_id]
    listed = cli(db_url, "logs", "--escalated")
    assert "student discount" in listed and "express" not in listed
    page = create_app(rt.engine).test_client().get("/questions?escalated=1").text
    assert "student discount" in page and "express delivery" not in page
