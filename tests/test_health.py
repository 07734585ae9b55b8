"""An operator's view of a running bot: alive, ready (or why not), its metrics in Prometheus' format, its log as JSON."""

import re

import pytest

from tests.conftest import ON_POSTGRES, BotProcess, base, free_port, get, metric, run_cli, samples, wait_for_port
from tests.fakes.slack import BOT_USER


def ready(bot: BotProcess, fake_slack) -> str:
    _status, body = fake_slack.wait_for(lambda: (r := get(base(bot) + "/readyz"))[0] == 200 and r)
    return body


@pytest.mark.shared_serve
def test_healthz_answers_while_the_process_is_alive(bot):
    assert get(base(bot) + "/healthz") == (200, "ok\n")


def test_readyz_says_ready_once_the_index_is_loaded(bot, fake_slack):
    first = ready(bot, fake_slack).strip()
    assert first == "ready" or first.startswith("ready; re-ranking vectors"), "ready, the vectors perhaps still loading"
    fake_slack.wait_for(lambda: get(base(bot) + "/readyz") == (200, "ready\n"))  # then plainly ready


def test_metrics_count_a_question_by_status_and_source_and_time_it(bot, fake_slack):
    ready(bot, fake_slack)
    before = samples(get(base(bot) + "/metrics")[1])
    assert before[("supportbot_index_chunks", ())] > 0 and before[("supportbot_index_version", ())] >= 1
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]))
    after = fake_slack.wait_for(
        lambda: (
            (m := samples(get(base(bot) + "/metrics")[1])).get(
                ("supportbot_questions_total", (("source", "slack"), ("status", "answered")))
            )
            and m
        )
    )
    assert after[("supportbot_questions_total", (("source", "slack"), ("status", "answered")))] == 1
    assert after[("supportbot_answer_seconds_count", (("answerer", "local"),))] == 1
    assert after[("supportbot_claims_total", (("result", "taken"),))] == 1
    assert after[("supportbot_search_seconds_count", ())] >= 1


def test_metrics_give_the_index_size_without_a_readiness_check_first(bot):
    assert samples(get(base(bot) + "/metrics")[1])[("supportbot_index_chunks", ())] > 0


def test_a_duplicate_delivery_is_counted_as_a_skipped_claim(bot, fake_slack):
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    envelope = fake_slack.events_for(msg)[0]
    fake_slack.deliver(bot.url, envelope)
    fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]))
    fake_slack.deliver(bot.url, envelope)
    fake_slack.wait_for(
        lambda: samples(get(base(bot) + "/metrics")[1]).get(("supportbot_claims_total", (("result", "duplicate"),))) == 1
    )


def test_readyz_is_503_with_the_reason_when_the_database_stops(start_bot, bot_env, fake_slack, cuttable_postgres):
    proxy, url = cuttable_postgres
    bot = start_bot(bot_env | {"DATABASE_URL": url.render_as_string(hide_password=False)})
    ready(bot, fake_slack)
    proxy.cut()
    _status, body = fake_slack.wait_for(lambda: (r := get(base(bot) + "/readyz"))[0] == 503 and r)
    assert body.startswith("not ready: database unreachable")
    assert str(proxy.port) not in body and "127.0.0.1" not in body, "an unauthenticated page names no host or port"
    assert get(base(bot) + "/healthz")[0] == 200, "alive, though not ready"


def test_socket_mode_serves_health_on_health_port(start_bot, bot_env, fake_slack):
    from tests.fakes.socket_mode import FakeSocketMode

    socket_mode = FakeSocketMode()
    fake_slack.socket_url = socket_mode.url
    port = free_port()
    env = bot_env | {"HEALTH_PORT": str(port), "SLACK_APP_TOKEN": "xapp-test-token"}
    bot = start_bot(env, "--host", "127.0.0.1", http=False)
    socket_mode.wait_connected()
    wait_for_port(port, bot.proc, bot.log)
    assert get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
    assert get(f"http://127.0.0.1:{port}/slack/events")[0] == 404
    socket_mode.stop()


def test_an_unreachable_slack_at_start_is_retried_one_line_a_try_then_one_error(bot_env):
    env = bot_env | {"SLACK_API_URL": f"http://127.0.0.1:{free_port()}/api/", "SLACK_START_ATTEMPTS": "2"}
    result = run_cli("serve", "--http", "--port", str(free_port()), env=env, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    tries = [line for line in result.stderr.splitlines() if "Slack is unreachable" in line]
    assert len(tries) == 1 and "attempt 1 of 2" in tries[0]
    assert result.stderr.strip().splitlines()[-1].startswith("Error: cannot reach Slack at http://127.0.0.1:")


def test_json_logs_are_one_object_a_line_with_the_answers_ids_and_no_token(start_bot, bot_env, fake_slack):
    import json

    bot = start_bot(bot_env | {"LOG_FORMAT": "json"})
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    fake_slack.wait_for(lambda: '"event": "answered"' in bot.log())
    records = [json.loads(line) for line in bot.log().splitlines() if line.strip()]
    [answered] = [r for r in records if r.get("event") == "answered"]
    assert answered["channel"] == "C_GENERAL" and answered["status"] == "answered" and answered["log_id"] >= 1
    assert {"time", "level", "logger", "message", "latency_ms"} <= answered.keys()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", answered["time"]), "milliseconds and zone"
    assert bot_env["SLACK_BOT_TOKEN"] not in bot.log() and bot_env["SLACK_SIGNING_SECRET"] not in bot.log()


def test_readyz_is_503_when_the_sqlite_databases_disk_is_nearly_full(db_url, docs, monkeypatch):
    import shutil
    import threading

    from bot.health import Health
    from bot.runtime import Runtime
    from bot.settings import load_settings

    if ON_POSTGRES:
        pytest.skip("the free-space check is SQLite's: PostgreSQL's disk is its server's")
    runtime = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    runtime.sync()
    runtime.searcher.refresh()
    health = Health(runtime, threading.Event())
    assert health.not_ready() == []
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10 * 2**30, 10 * 2**30 - 2**20, 2**20))
    assert health.not_ready() == ["disk nearly full (1 MB free where the database is)"]


def test_metrics_count_abstentions_by_channel_votes_and_escalations(start_bot, bot_env, fake_slack):
    bot = start_bot(bot_env | {"SLACK_ESCALATION_CHANNEL": "CSUPPORT"})
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> how many vacation days do I get")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]))
    fake_slack.click(bot.url, reply, "feedback", which="negative", user="U1")
    fake_slack.click(bot.url, reply, "escalate", user="U1")
    want = {
        ("supportbot_abstentions_total", (("channel", "C_GENERAL"),)): 1,
        ("supportbot_feedback_total", (("vote", "down"),)): 1,
        ("supportbot_escalations_total", (("outcome", "handed_over"),)): 1,
    }
    seen = fake_slack.wait_for(lambda: (m := samples(get(base(bot) + "/metrics")[1])) and all(k in m for k in want) and m)
    assert {k: seen[k] for k in want} == want
    assert seen[("supportbot_heartbeats_total", ())] >= 1


def test_a_model_failure_is_counted_by_reason_and_its_fallback_answer_too(runtime, fake_anthropic):
    from bot.metrics import REGISTRY
    from tests.fakes.anthropic import error

    def value(name, **labels):
        return REGISTRY.get_sample_value(name, labels) or 0

    busy, fallbacks = value("supportbot_model_failures_total", reason="busy"), value("supportbot_fallback_answers_total")
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    a = runtime.ask("How long do I have to return my earbuds?", answerer="claude")
    assert a.answerer == "local" and a.model_failure == "busy"
    assert value("supportbot_model_failures_total", reason="busy") == busy + 1
    assert value("supportbot_fallback_answers_total") == fallbacks + 1


def test_channel_labels_are_bounded():
    from bot.metrics import MAX_CHANNEL_LABELS, channel_label

    labels = {channel_label(f"CBOUND{i}") for i in range(MAX_CHANNEL_LABELS * 2)}
    assert len(labels) <= MAX_CHANNEL_LABELS + 1 and "other" in labels
    assert channel_label("D123") == "dm" and channel_label(None) == "none"


def test_an_idle_bot_writes_nothing_while_its_heartbeat_beats(start_bot, bot_env, fake_slack):
    # A 0.6 s lease beats every 0.2 s: 30 beats are what a default 10 s beat does in 5 minutes.
    bot = start_bot(bot_env | {"LOG_LEVEL": "INFO", "SLACK_CLAIM_LEASE_SECONDS": "0.6"})
    ready(bot, fake_slack)
    beats = metric(bot, "supportbot_heartbeats_total")
    lines = bot.log().splitlines()
    fake_slack.wait_for(lambda: metric(bot, "supportbot_heartbeats_total") >= beats + 30, timeout=60)
    assert len(bot.log().splitlines()) - len(lines) <= 2, bot.log()
    assert not [line for line in bot.log().splitlines() if "apscheduler" in line or "alembic" in line], bot.log()


def test_a_heartbeat_slower_than_its_beat_is_one_warning_in_the_bots_words(db_url, docs, caplog):
    import logging
    import sqlite3
    import threading
    from datetime import timedelta

    from bot.runtime import Runtime
    from bot.settings import load_settings
    from bot.slack.access import Access
    from bot.slack.app import keep_leases
    from bot.slack.context import Slack

    if not db_url.startswith("sqlite"):
        pytest.skip("holds SQLite's write lock from outside")
    runtime = Runtime(load_settings(database_url=db_url + "?timeout=5", docs_dir=docs))
    slack = Slack(runtime, Access.load(None), lease=timedelta(seconds=0.6))  # a beat every 0.2 s
    blocker = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN EXCLUSIVE")  # another writer holds the file for half a second: the renewal waits for it
    threading.Timer(0.5, lambda: blocker.execute("ROLLBACK")).start()
    with caplog.at_level(logging.WARNING, logger="bot.slack.app"):
        keep_leases(slack)
    blocker.close()
    [warning] = [r.getMessage() for r in caplog.records if r.name == "bot.slack.app"]
    assert "longer than its 0.2 s beat: the database is slow" in warning


def test_apschedulers_line_for_a_beat_skipped_while_the_last_runs_is_left_out_and_its_other_warnings_kept():
    import subprocess
    import sys

    script = (
        "import logging; from bot.logging_setup import configure_logging; configure_logging('INFO', 'text'); "
        "log = logging.getLogger('apscheduler.scheduler'); "
        "log.warning('Execution of job \"keep_leases\" skipped: maximum number of running instances reached (1)'); "
        "log.warning('Run time of job \"sync\" was missed by 0:01:05')"
    )
    err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60).stderr
    assert "missed by 0:01:05" in err
    assert "maximum number of running instances" not in err


def test_log_level_warning_keeps_the_answer_lines_and_quiets_the_rest(start_bot, bot_env, fake_slack):
    bot = start_bot(bot_env | {"LOG_LEVEL": "WARNING"})
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    line = fake_slack.wait_for(lambda: [line for line in bot.log().splitlines() if f"C_GENERAL/{msg['ts']}" in line])
    assert " INFO bot.slack.answering: answered" in line[0]
    assert "listening on" not in bot.log(), "the bot's other INFO lines follow LOG_LEVEL"
