"""Every question is logged with its searches, answer, citations, problems and usage; feedback too."""

from sqlalchemy import select

from bot.logs.models import feedback, questions, searches
from bot.logs.store import Origin, record_feedback
from tests.fakes.anthropic import Cite, answer, error, search


def rows(engine, table, **where):
    with engine.connect() as conn:
        q = select(table)
        for k, v in where.items():
            q = q.where(table.c[k] == v)
        return conn.execute(q.order_by(table.c.id)).mappings().all()


def test_a_question_is_logged_with_its_searches_and_citations(runtime, fake_anthropic):
    fake_anthropic.then(search("refund window"), answer(Cite("You have 30 days to return it.", "returns", "30 days")))
    a = runtime.ask(
        "How long can I return things?",
        answerer="claude",
        origin=Origin("slack", channel="C1", user_id="U1", thread_ts="1.2"),
    )
    [q] = rows(runtime.engine, questions)
    assert q["id"] == a.log_id
    assert (q["source"], q["channel"], q["user_id"], q["thread_ts"]) == ("slack", "C1", "U1", "1.2")
    assert (q["question"], q["status"], q["answerer"], q["model"]) == (
        "How long can I return things?",
        "answered",
        "claude",
        "claude-haiku-4-5",
    )
    assert q["answer"] == "You have 30 days to return it. [1]"
    assert q["sources"][0]["path"] == "help/returns-and-refunds.md"
    assert q["cited"][0]["n"] == 1 and "30 days" in q["cited"][0]["lines"][0][1]
    assert q["usage"]["calls"] == 2 and len(q["usage"]["per_call"]) == 2
    assert q["index_version"] == 1
    [s] = rows(runtime.engine, searches, question_id=a.log_id)
    assert s["query"] == "refund window" and s["hits"][0]["path"] == "help/returns-and-refunds.md"


def test_a_failed_model_call_is_logged_with_its_reason_and_no_secret(runtime, fake_anthropic):
    runtime.settings.answer_fallback = "none"
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    runtime.ask("Rate limit?", answerer="claude")
    [q] = rows(runtime.engine, questions)
    assert q["status"] == "error" and "anthropic 529 overloaded_error" in q["error"]
    assert "sk-ant-test-key" not in str(dict(q))


def test_citation_problems_are_kept_for_review(runtime, fake_anthropic):
    fake_anthropic.then(search("API key expire"), answer(Cite("Keys expire after 30 days.", "authentication", "90 days")))
    runtime.ask("When do keys expire?", answerer="claude")
    [q] = rows(runtime.engine, questions)
    assert q["status"] == "abstained"
    assert q["problems"][0]["kind"] == "number_not_in_passage"


def test_the_command_line_logs_its_questions(runtime):
    runtime.ask("How much is express delivery?", answerer="local")
    [q] = rows(runtime.engine, questions)
    assert q["source"] == "cli" and q["answerer"] == "local" and q["status"] == "answered"


def test_feedback_is_recorded_against_the_question(runtime):
    a = runtime.ask("How much is express delivery?", answerer="local")
    record_feedback(runtime.engine, a.log_id, "down", user_id="U9")
    [f] = rows(runtime.engine, feedback)
    assert (f["question_id"], f["value"], f["user_id"]) == (a.log_id, "down", "U9")


def test_simultaneous_clicks_by_one_person_leave_one_vote(runtime):
    import threading

    a = runtime.ask("How much is express delivery?", answerer="local")
    start = threading.Barrier(8)
    outcomes = []

    def click(value):
        start.wait()
        outcomes.append(record_feedback(runtime.engine, a.log_id, value, "U9"))

    threads = [threading.Thread(target=click, args=("up" if n % 2 else "down",)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(outcomes) == 8 and sum(kind == "new" for _, kind in outcomes) == 1
    assert len(rows(runtime.engine, feedback)) == 1 and len({fid for fid, _ in outcomes}) == 1


def test_a_vote_without_a_person_or_from_another_workspace_is_not_recorded(runtime):
    from sqlalchemy import update

    a = runtime.ask("How much is express delivery?", answerer="local")
    with runtime.engine.begin() as conn:
        conn.execute(update(questions).where(questions.c.id == a.log_id).values(team="T_HOME"))
    assert record_feedback(runtime.engine, a.log_id, "up", None) is None
    assert record_feedback(runtime.engine, a.log_id, "up", "U9", team="T_OTHER") is None
    assert record_feedback(runtime.engine, 10**9, "up", "U9") is None
    assert rows(runtime.engine, feedback) == []
    assert record_feedback(runtime.engine, a.log_id, "up", "U9", team="T_HOME")[1] == "new"
