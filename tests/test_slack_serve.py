"""Running the bot: clear messages for bad tokens, and the scheduled re-sync beside the answering."""

import time

from sqlalchemy import create_engine, select

from kb.models import sync_runs
from tests.conftest import run_cli
from tests.fakes.slack import BOT_USER, Fault


def serve_error(env, *args):
    result = run_cli("serve", *args, env=env, timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def test_missing_or_malformed_tokens_are_named(bot_env):
    no_token = {k: v for k, v in bot_env.items() if k != "SLACK_BOT_TOKEN"}
    assert "SLACK_BOT_TOKEN is not set" in serve_error(no_token, "--http")
    assert "SLACK_BOT_TOKEN should start with xoxb-" in serve_error(bot_env | {"SLACK_BOT_TOKEN": "xoxp-user"}, "--http")
    no_secret = {k: v for k, v in bot_env.items() if k != "SLACK_SIGNING_SECRET"}
    assert "SLACK_SIGNING_SECRET is not set" in serve_error(no_secret, "--http")
    assert "SLACK_APP_TOKEN is not set" in serve_error(bot_env)
    assert "SLACK_APP_TOKEN should start with xapp-" in serve_error(bot_env | {"SLACK_APP_TOKEN": "xoxb-wrong"})


def test_a_token_slack_refuses_is_a_clear_error(fake_slack, bot_env):
    fake_slack.fail("auth.test", Fault(error="invalid_auth"))
    err = serve_error(bot_env, "--http")
    assert "Slack refused the bot token (SLACK_BOT_TOKEN)" in err and "invalid_auth" in err
    assert "xoxb-test-token" not in err


def test_the_scheduled_resync_picks_up_a_new_page_while_serving(fake_slack, bot_env, docs, start_bot):
    bot = start_bot(bot_env | {"SYNC_INTERVAL_MINUTES": "0.02"})
    (docs / "help" / "gift-cards.md").write_text(
        "# Gift cards\n\n## Expiry\n\nAuralis gift cards never expire and work in every store.\n"
    )
    engine = create_engine(bot_env["DATABASE_URL"])

    def synced_gift_cards():
        with engine.connect() as conn:
            return conn.execute(select(sync_runs.c.id).where(sync_runs.c.added == 1)).first()

    deadline = time.monotonic() + 30
    while not (synced_gift_cards() and "1 added, 0 changed, 0 removed, 0 skipped; serving index version" in bot.log()):
        assert time.monotonic() < deadline, bot.log()
        time.sleep(0.2)  # polling for the evidence: the new index is serving
    msg = fake_slack.user_says("D_ALICE", "Do gift cards expire?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies("D_ALICE", msg["ts"]))
    assert "never expire" in reply["text"]
    engine.dispose()


def test_a_failing_scheduled_sync_is_logged_and_the_previous_index_keeps_serving(fake_slack, bot_env, start_bot, tmp_path):
    bot = start_bot(bot_env | {"SYNC_INTERVAL_MINUTES": "0.01", "DOCS_DIR": str(tmp_path / "gone")})
    deadline = time.monotonic() + 30
    while "scheduled sync failed" not in bot.log():
        assert time.monotonic() < deadline, bot.log()
        time.sleep(0.2)
    assert "docs folder not found" in bot.log()
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]))
    assert "$12" in reply["text"]


def test_a_refused_anthropic_key_stops_serve_at_start_with_one_line(fake_slack, bot_env, fake_anthropic):
    fake_anthropic.refused_keys.add("sk-ant-wrong")
    env = bot_env | {"ANTHROPIC_API_KEY": "sk-ant-wrong", "ANTHROPIC_BASE_URL": fake_anthropic.url}
    err = serve_error(env, "--http")
    assert "Error: Anthropic refused ANTHROPIC_API_KEY (401" in err and "sk-ant-wrong" not in err


def test_a_model_name_the_api_does_not_know_stops_serve_at_start(fake_slack, bot_env, fake_anthropic):
    env = bot_env | {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
        "ANTHROPIC_MODEL": "claude-haiku-9",
    }
    assert "Error: ANTHROPIC_MODEL 'claude-haiku-9' is not a model this key can use (404" in serve_error(env, "--http")


def test_an_unreachable_model_at_start_is_a_warning_and_the_bot_serves(fake_slack, bot_env, start_bot):
    from tests.conftest import free_port

    env = bot_env | {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{free_port()}",
        "ANTHROPIC_MAX_RETRIES": "0",
    }
    bot = start_bot(env)
    assert "could not check ANTHROPIC_MODEL 'claude-haiku-4-5' at start (APIConnectionError)" in bot.log()
    msg = fake_slack.user_says("D_ALICE", "How much is express delivery?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies("D_ALICE", msg["ts"]))
    assert "$12" in reply["text"]
