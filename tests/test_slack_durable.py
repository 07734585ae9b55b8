"""Nothing lost: a question claimed by a process that dies is answered by another; a stopping process finishes
what it started and sends Slack elsewhere for the rest."""

import os
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from slack_sdk import WebClient
from sqlalchemy import create_engine, insert, select

from bot.runtime import Runtime
from bot.settings import load_settings
from bot.slack.access import Access
from bot.slack.answering import LOST, TROUBLE, recover
from bot.slack.claims import Job, claims
from bot.slack.context import Slack
from kb.clock import now
from tests.conftest import ON_POSTGRES, metric, settings_for_claude
from tests.fakes.anthropic import auto_agent
from tests.fakes.slack import BOT_USER


def claude_runtime(db_url, docs, fake_anthropic) -> Runtime:
    """A synced runtime whose Claude is the fake, retrying database writes for half a second."""
    rt = Runtime(settings_for_claude(fake_anthropic, db_url, docs, db_retry_seconds=0.5))
    rt.sync()
    return rt


def mention(fake, bot, text, channel="C_GENERAL"):
    msg = fake.user_says(channel, f"<@{BOT_USER}> {text}")
    status = fake.deliver(bot.url, fake.events_for(msg)[0])
    return msg, status


def open_claim(db_url, msg):
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return conn.execute(
                select(claims.c.owner).where(claims.c.key == f"msg:{msg['channel']}:{msg['ts']}", claims.c.answered_at.is_(None))
            ).first()
    finally:
        engine.dispose()


def wait_until(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)  # polling a database row; the wait ends on evidence, not on the clock
    raise AssertionError("timed out")


def slow_model_env(bot_env, fake_anthropic, delay_s):
    fake_anthropic.default = auto_agent(delay_s=delay_s)
    return bot_env | {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
        "ANTHROPIC_MAX_RETRIES": "0",
        "ANTHROPIC_TIMEOUT_SECONDS": "60",
        "SLACK_CLAIM_LEASE_SECONDS": "1",
    }


def test_a_question_claimed_by_a_killed_process_is_answered_after_a_restart(fake_slack, bot_env, start_bot, fake_anthropic):
    first = start_bot(slow_model_env(bot_env, fake_anthropic, delay_s=10))
    msg, status = mention(fake_slack, first, "How much is express delivery?")
    assert status == 200
    wait_until(lambda: open_claim(bot_env["DATABASE_URL"], msg))
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    assert fake_slack.replies(msg["channel"], msg["ts"]) == []

    second = start_bot(bot_env | {"SLACK_CLAIM_LEASE_SECONDS": "1"})  # no model key: the local answerer
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies(msg["channel"], msg["ts"]))
    assert "$12" in reply["text"]
    assert "taking over" in second.log()


def test_sigterm_finishes_the_answer_in_flight_refuses_new_events_and_exits_cleanly(
    fake_slack, bot_env, start_bot, fake_anthropic
):
    bot = start_bot(slow_model_env(bot_env, fake_anthropic, delay_s=1.5))
    msg, _ = mention(fake_slack, bot, "How much is express delivery?")
    wait_until(lambda: open_claim(bot_env["DATABASE_URL"], msg))
    assert wait_until(lambda: metric(bot, "supportbot_answers_in_flight") == 1), "the answer being made shows in /metrics"
    bot.proc.send_signal(signal.SIGTERM)
    wait_until(lambda: "stopping: no new questions" in bot.log())
    _, late = mention(fake_slack, bot, "How long is the warranty?")
    assert late == 503, "a stopping process sends Slack to retry elsewhere"
    assert bot.proc.wait(30) == 0
    [reply] = fake_slack.replies(msg["channel"], msg["ts"])
    assert "According to the docs" in reply["text"]
    assert "stopped cleanly" in bot.log()


def test_an_orphaned_question_past_the_horizon_gets_an_apology_not_an_answer(fake_slack, db_url, docs):
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    job = Job(msg["channel"], msg["ts"], msg["ts"], "How much is express delivery?", "U1", "T1", False, False, BOT_USER)
    long_ago = now() - timedelta(hours=3)
    with rt.engine.begin() as conn:
        conn.execute(
            insert(claims).values(key=job.keys[0], claimed_at=long_ago, owner="gone:1:x", lease_until=long_ago, job=job.__dict__)
        )
    slack = Slack(rt, Access.load(None), recovery_horizon=timedelta(hours=1))
    assert recover(slack, WebClient(token="xoxb-test-token", base_url=fake_slack.api_url)) == 1
    [reply] = fake_slack.replies(msg["channel"], msg["ts"])
    assert LOST in reply["text"]
    assert recover(slack, WebClient(token="xoxb-test-token", base_url=fake_slack.api_url)) == 0, "and only once"


def test_a_question_that_cannot_be_claimed_gets_a_notice_then_its_answer_when_the_database_is_back(fake_slack, db_url, docs):
    import sqlite3

    from bot.slack.answering import answer_held, answer_message
    from bot.slack.message import SlackMessage

    if not db_url.startswith("sqlite"):
        pytest.skip("holds SQLite's write lock from outside")
    rt = Runtime(load_settings(database_url=db_url + "?timeout=0.1", docs_dir=docs, db_retry_seconds=0.5))
    rt.sync()
    slack = Slack(rt, Access.load(None), db_retry_s=0.5)
    client = WebClient(token="xoxb-test-token", base_url=fake_slack.api_url)
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    envelope = fake_slack.events_for(msg)[0]

    blocker = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # another writer holds the file
    try:
        answer_message(slack, client, SlackMessage.parse(envelope["event"], envelope, BOT_USER))
        [notice] = fake_slack.replies(msg["channel"], msg["ts"])
        assert TROUBLE in notice["text"]
        assert answer_held(slack, client) == 0, "still locked: held for the next beat"
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert answer_held(slack, client) == 1
    notice, reply = fake_slack.replies(msg["channel"], msg["ts"])
    assert "$12" in reply["text"]


def replies_per_thread(fake, msgs):
    return [len(fake.replies(m["channel"], m["ts"])) for m in msgs]


def test_two_processes_answer_every_question_once_and_the_survivor_takes_over_when_one_is_killed(
    fake_slack, bot_env, start_bot, fake_anthropic
):
    env = slow_model_env(bot_env, fake_anthropic, delay_s=2)
    doomed, survivor = start_bot(env), start_bot(env)
    sent = []  # (message, the process Slack delivered it to first)
    for i, first in enumerate([doomed, survivor] * 2):
        msg, status = mention(fake_slack, first, f"How much is express delivery? ({i})")
        assert status == 200
        sent.append((msg, first))
    for msg, first in sent:  # Slack's retry reaches the other process: it must not answer again
        other = survivor if first is doomed else doomed
        assert fake_slack.deliver(other.url, fake_slack.events_for(msg)[0], retry_num=1) == 200
    msgs = [msg for msg, _ in sent]
    wait_until(lambda: all(open_claim(bot_env["DATABASE_URL"], m) for m in msgs))
    # the evidence that no second answer comes: each of the 8 deliveries was taken or refused as a duplicate
    claimed = lambda result: sum(metric(bot, "supportbot_claims_total", result=result) for bot in (doomed, survivor))
    wait_until(lambda: claimed("taken") + claimed("duplicate") == 8)
    assert (claimed("taken"), claimed("duplicate")) == (4, 4)
    doomed.proc.send_signal(signal.SIGKILL)
    doomed.proc.wait(10)

    wait_until(lambda: not any(open_claim(bot_env["DATABASE_URL"], m) for m in msgs), timeout=60)  # all answered
    assert replies_per_thread(fake_slack, msgs) == [1, 1, 1, 1]
    assert "taking over" in survivor.log()


@contextmanager
def postgresql_stopped():
    """The machine's PostgreSQL cluster stopped for the block, and started again whatever happens."""
    version = sorted(os.listdir("/etc/postgresql"))[0]
    ctl = ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main"]
    subprocess.run([*ctl, "stop", "-m", "fast"], check=True, capture_output=True, timeout=60)
    try:
        yield
    finally:
        subprocess.run([*ctl, "start"], check=True, capture_output=True, timeout=60)
        wait_until(lambda: subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode == 0)


@pytest.mark.skipif(
    not (ON_POSTGRES and shutil.which("pg_ctlcluster") and os.path.isdir("/etc/postgresql") and os.geteuid() == 0),
    reason="stops and restarts this machine's PostgreSQL cluster",
)
@pytest.mark.stops_postgres
def test_a_mention_while_postgresql_is_down_gets_a_notice_then_its_answer_once_it_is_back(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | {"DB_RETRY_SECONDS": "1", "SLACK_CLAIM_LEASE_SECONDS": "1"})
    with postgresql_stopped():
        msg, status = mention(fake_slack, bot, "How much is express delivery?")
        assert status == 200
        [notice] = fake_slack.wait_for(lambda: fake_slack.replies(msg["channel"], msg["ts"]))
        assert TROUBLE in notice["text"]
    fake_slack.wait_for(lambda: len(fake_slack.replies(msg["channel"], msg["ts"])) == 2, timeout=60)
    notice, reply = fake_slack.replies(msg["channel"], msg["ts"])
    assert "$12" in reply["text"]
    wait_until(lambda: not open_claim(bot_env["DATABASE_URL"], msg))


def test_two_processes_recovering_orphans_that_outlast_their_lease_answer_each_once(
    fake_slack, bot_env, start_bot, fake_anthropic
):
    # two model turns: 5 s an answer, more than twice the 2 s lease (a busy machine may delay a beat by a second)
    env = slow_model_env(bot_env, fake_anthropic, delay_s=2.5) | {"SLACK_CLAIM_LEASE_SECONDS": "2"}
    engine = create_engine(bot_env["DATABASE_URL"])
    msgs, long_ago = [], now() - timedelta(minutes=5)
    with engine.begin() as conn:
        for n in range(4):
            msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery? ({n})")
            job = Job(
                msg["channel"], msg["ts"], msg["ts"], f"How much is express delivery? ({n})", "U1", "T1", False, False, BOT_USER
            )
            conn.execute(
                insert(claims).values(
                    key=job.keys[0], claimed_at=long_ago, owner="gone:1:x", lease_until=long_ago, job=job.__dict__
                )
            )
            msgs.append(msg)
    engine.dispose()
    first, second = start_bot(env), start_bot(env)
    wait_until(lambda: not any(open_claim(bot_env["DATABASE_URL"], m) for m in msgs), timeout=90)
    taken = [line for bot in (first, second) for line in bot.log().splitlines() if "taking over msg:" in line]
    # a claim is taken over only while unanswered: once all are answered, these lines are final
    assert sorted(line.split("taking over ")[1].split(",")[0] for line in taken) == sorted(
        f"msg:C_GENERAL:{m['ts']}" for m in msgs
    )
    assert replies_per_thread(fake_slack, msgs) == [1, 1, 1, 1]


def test_a_database_outage_mid_answer_gets_the_notice_then_the_answer_once_with_one_log_row(
    fake_slack, fake_anthropic, docs, cuttable_postgres
):
    from bot.logs.models import questions
    from bot.slack.answering import answer_held, answer_message
    from bot.slack.message import SlackMessage
    from tests.fakes.anthropic import Cite, answer, search

    proxy, url = cuttable_postgres
    db_url = url.render_as_string(hide_password=False)
    rt = claude_runtime(db_url, docs, fake_anthropic)
    rt.searcher.refresh()
    searching = search("express shipping cost")

    def outage_then_search(req):
        proxy.cut()  # PostgreSQL goes away while the model thinks
        return searching(req)

    cite = Cite("Express shipping takes 1 to 2 business days and costs $12.", "shipping", "Express")
    fake_anthropic.then(outage_then_search, search("express shipping cost"), answer(cite))
    slack = Slack(rt, Access.load(None), db_retry_s=0.5, streaming=False)
    client = WebClient(token="xoxb-test-token", base_url=fake_slack.api_url)
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express shipping?")
    envelope = fake_slack.events_for(msg)[0]
    answer_message(slack, client, SlackMessage.parse(envelope["event"], envelope, BOT_USER))
    [notice] = fake_slack.replies(msg["channel"], msg["ts"])
    assert TROUBLE in notice["text"], "not 'I couldn't find this in the docs'"
    assert answer_held(slack, client) == 0, "still away: held for the next beat"
    proxy.resume()
    assert answer_held(slack, client) == 1
    notice, reply = fake_slack.replies(msg["channel"], msg["ts"])
    assert "$12" in reply["text"]
    with rt.engine.connect() as conn:
        assert conn.execute(select(questions.c.status).where(questions.c.thread_ts == msg["ts"])).scalars().all() == ["answered"]
    assert open_claim(db_url, msg) is None, "the claim is closed"
    rt.engine.dispose()


def test_an_answer_waits_out_a_locked_sqlite_for_its_log_row_and_buttons(fake_slack, fake_anthropic, db_url, docs):
    import sqlite3
    import threading

    from bot.logs.models import questions
    from bot.slack.answering import answer_message
    from bot.slack.message import SlackMessage
    from tests.fakes.anthropic import Cite, answer, search

    if not db_url.startswith("sqlite"):
        pytest.skip("holds SQLite's write lock from outside")
    rt = claude_runtime(db_url + "?timeout=0.1", docs, fake_anthropic)
    blocker = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None, check_same_thread=False)
    locked = threading.Event()
    cite = Cite("Express shipping takes 1 to 2 business days and costs $12.", "shipping", "Express")
    answering = answer(cite)

    def lock_then_answer(req):
        blocker.execute("BEGIN EXCLUSIVE")  # another writer takes the file for longer than DB_RETRY_SECONDS
        locked.set()
        threading.Timer(3.0, lambda: blocker.execute("ROLLBACK")).start()
        return answering(req)

    fake_anthropic.then(search("express shipping cost"), lock_then_answer)
    slack = Slack(rt, Access.load(None), db_retry_s=0.5, streaming=False)
    client = WebClient(token="xoxb-test-token", base_url=fake_slack.api_url)
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express shipping?")
    envelope = fake_slack.events_for(msg)[0]
    answer_message(slack, client, SlackMessage.parse(envelope["event"], envelope, BOT_USER))
    assert locked.is_set()
    [reply] = fake_slack.replies(msg["channel"], msg["ts"])
    assert "$12" in reply["text"] and any(b["type"] == "context_actions" for b in reply["blocks"]), "with its buttons"
    with rt.engine.connect() as conn:
        assert conn.execute(select(questions.c.status).where(questions.c.thread_ts == msg["ts"])).scalars().all() == ["answered"]
    blocker.close()
