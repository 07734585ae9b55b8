"""The weekly digest: the docs owner's week, printed or posted to Slack, and posted by `serve` once a week."""

from datetime import UTC, datetime, time, timedelta

from slack_sdk import WebClient

from bot.agent.types import Answer
from bot.logs.digest import digest
from bot.logs.store import Origin, record, record_feedback, record_reason
from bot.runtime import Runtime
from bot.settings import WEEKDAYS, load_settings
from bot.slack.digest import PLAIN, SLACK, due, post, write
from tests.conftest import run_cli

HELP = Origin("slack", channel="C_HELP", user_id="U1", thread_ts="1.1")


def a_week(db_url, docs):
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    rt.sync()
    for q in ["Is there a student discount?", "Do you offer a discount for students?"]:
        record(rt.engine, Answer(q, "abstained", "I couldn't find this in the docs.", "local"), HELP)
    rt.ask("How much is express delivery?", answerer="local", origin=HELP)
    swim = rt.ask("Can I go swimming with my earbuds?", answerer="local", origin=HELP)
    vote, _ = record_feedback(rt.engine, swim.log_id, "down", "U2")
    record_reason(rt.engine, vote, "U2", "Wrong: <!channel> water damage is NOT covered")
    warranty = rt.ask("how long is the warranty on pods pro", answerer="local", origin=HELP)
    page = docs / "help/warranty.md"
    page.write_text(page.read_text().replace("Pods Pro with a 2-year", "Pods Pro with a 3-year"))
    rt.sync()
    rt.ask("question from the eval run", answerer="local", origin=Origin("eval"))
    return rt, swim.log_id, warranty.log_id


def test_the_digest_gives_the_weeks_rates_with_counts_gaps_stale_and_not_helpful_reasons(db_url, docs):
    rt, swim, warranty = a_week(db_url, docs)
    d = digest(rt.engine)
    assert d.asked == 5 and (d.helpful, d.not_helpful) == (0, 1), "eval runs left out"
    text = write(d, "https://review.example.com", SLACK)
    assert "5 questions: answered 3 of 5 (60%), not in the docs 2" in text and "helpful 0 of 1 rated (0%)" in text
    assert "• 2× Do you offer a discount for students? (<https://review.example.com/questions/" in text
    assert (
        f"how long is the warranty on pods pro (<https://review.example.com/questions/{warranty}|#{warranty}>): help/warranty.md changed"
        in text
    )
    assert "“Wrong: &lt;!channel&gt; water damage is NOT covered”" in text, "a reason pings no one"
    assert f"(<https://review.example.com/questions/{swim}|#{swim}>)" in text


def test_without_a_review_address_the_digest_names_questions_by_number(db_url, docs):
    rt, swim, _ = a_week(db_url, docs)
    text = write(digest(rt.engine), None, PLAIN)
    assert f"Can I go swimming with my earbuds? (#{swim})" in text and "http" not in text


def test_the_digest_is_due_from_its_hour_for_a_day_in_the_review_time_zone():
    monday_9 = (0, time(9, 0))
    berlin_monday_9 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)  # 09:00 in Berlin (CET)
    assert due(monday_9, "Europe/Berlin", berlin_monday_9) == "2026-11-30"
    assert due(monday_9, "Europe/Berlin", berlin_monday_9 - timedelta(minutes=1)) is None
    assert due(monday_9, "Europe/Berlin", berlin_monday_9 + timedelta(hours=23)) == "2026-11-30"
    assert due(monday_9, "Europe/Berlin", berlin_monday_9 + timedelta(hours=25)) is None, "a day late: wait a week"


def test_digest_post_sends_it_to_the_channel_and_without_one_says_what_is_missing(db_url, docs, fake_slack):
    rt, _, _ = a_week(db_url, docs)
    ts = post(rt.engine, WebClient(token="xoxb-test", base_url=fake_slack.api_url), "C_DOCS", None, "UTC")
    [sent] = [c.params for c in fake_slack.called("chat.postMessage") if c.params.get("channel") == "C_DOCS"]
    assert ts and "Top gaps" in sent["text"]
    refused = run_cli("digest", "--post", "--db", db_url)
    assert refused.returncode != 0 and "REVIEW_DIGEST_CHANNEL" in refused.stderr and "Traceback" not in refused.stderr
    printed = run_cli("digest", "--since", "14d", "--db", db_url, env={"REVIEW_URL": "https://review.example.com"})
    assert printed.returncode == 0 and "https://review.example.com/gaps" in printed.stdout


def test_serve_posts_the_digest_when_due_once_across_processes(fake_slack, bot_env, start_bot):
    from tests.test_slack_app import answers, mention

    at = datetime.now(UTC) - timedelta(minutes=1)
    env = bot_env | {"REVIEW_DIGEST_CHANNEL": "C_DOCS", "REVIEW_DIGEST_AT": f"{WEEKDAYS[at.weekday()]} {at:%H:%M}"}
    first = start_bot(env)
    answers(fake_slack, mention(fake_slack, first, "Is there a student discount?"))
    posted = fake_slack.wait_for(
        lambda: [c for c in fake_slack.called("chat.postMessage") if c.params.get("channel") == "C_DOCS"]
    )
    second = start_bot(env)
    fake_slack.wait_for(lambda: "posted (or being posted) already" in second.log())
    assert len([c for c in fake_slack.called("chat.postMessage") if c.params.get("channel") == "C_DOCS"]) == len(posted) == 1
