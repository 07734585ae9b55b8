"""'Ask a person': a click hands the question to the support channel once, tells the asker, and is logged."""

import pytest
from sqlalchemy import create_engine, select

from bot.logs.models import questions
from tests.fakes.anthropic import error
from tests.fakes.slack import BOT_USER, Fault

SUPPORT = {"SLACK_ESCALATION_CHANNEL": "CSUPPORT", "SLACK_ESCALATION_MENTION": "S0HELPERS"}


def answered(fake_slack, bot, text="How much is express delivery?", channel="C_GENERAL"):
    msg = fake_slack.user_says(channel, f"<@{BOT_USER}> {text}")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies(channel, msg["ts"]))
    return msg, reply


def posts_to(fake_slack, channel):
    return [m for (c, _), m in list(fake_slack.messages.items()) if c == channel and m.get("bot_id")]


def escalated_at(bot_env, thread_ts):
    engine = create_engine(bot_env["DATABASE_URL"])
    with engine.connect() as conn:
        row = conn.execute(
            select(questions.c.escalated_at, questions.c.escalated_by).where(questions.c.thread_ts == thread_ts)
        ).one()
    engine.dispose()
    return row


def buttons(message) -> list[str]:
    return [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]


@pytest.mark.shared_serve
def test_without_an_escalation_channel_there_is_no_button(fake_slack, bot):
    _, reply = answered(fake_slack, bot)
    assert "escalate" not in buttons(reply)


def test_a_click_posts_the_question_to_the_support_channel_mentioning_its_group_and_tells_the_asker(
    fake_slack, bot_env, start_bot
):
    bot = start_bot(bot_env | SUPPORT)
    msg, reply = answered(fake_slack, bot)
    assert "escalate" in buttons(reply)
    assert fake_slack.click(bot.url, reply, "escalate", user="U_BOB") == 200
    [handed] = fake_slack.wait_for(lambda: posts_to(fake_slack, "CSUPPORT"))
    text = handed["text"]
    assert text.startswith("<!subteam^S0HELPERS> A question for a person from <@U1> in <#C_GENERAL>:")
    assert "> How much is express delivery?" in text
    assert f"https://fake.slack.test/archives/C_GENERAL/p{msg['ts'].replace('.', '')}" in text
    blocks = str(handed["blocks"])
    assert "The bot answered" in blocks and "$12" in blocks and "*Sources*" in blocks, "the answer as the asker read it"
    told = fake_slack.wait_for(lambda: [m for m in fake_slack.replies("C_GENERAL", msg["ts"]) if "support team" in m["text"]])
    assert "<#CSUPPORT>" in told[0]["text"] and "their reply will appear here" in told[0]["text"]
    when, who = escalated_at(bot_env, msg["ts"])
    assert when is not None and who == "U_BOB"


def test_a_double_click_asks_a_person_once(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    msg, reply = answered(fake_slack, bot)
    fake_slack.click(bot.url, reply, "escalate")
    fake_slack.click(bot.url, reply, "escalate")
    fake_slack.wait_for(lambda: [e for e in fake_slack.ephemerals if "already been asked" in e["text"]])  # one refused
    fake_slack.wait_for(lambda: posts_to(fake_slack, "CSUPPORT"))  # the other handed over (it may finish last)
    told = fake_slack.wait_for(lambda: [m for m in fake_slack.replies("C_GENERAL", msg["ts"]) if "support team" in m["text"]])
    assert len(posts_to(fake_slack, "CSUPPORT")) == 1 and len(told) == 1


def test_a_click_from_another_workspace_hands_nothing_over(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    msg, reply = answered(fake_slack, bot)
    fake_slack.click(bot.url, reply, "escalate", team="T_OTHER")
    fake_slack.wait_for(lambda: [e for e in fake_slack.ephemerals if "already been asked" in e["text"]])
    assert posts_to(fake_slack, "CSUPPORT") == [] and escalated_at(bot_env, msg["ts"])[0] is None


def test_a_support_channel_the_bot_cannot_post_in_is_said_and_can_be_tried_again(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    msg, reply = answered(fake_slack, bot)
    fake_slack.fail("chat.postMessage", Fault(error="not_in_channel"))
    fake_slack.click(bot.url, reply, "escalate")
    [sorry] = fake_slack.wait_for(lambda: [e for e in fake_slack.ephemerals if "couldn't reach the support channel" in e["text"]])
    assert "not_in_channel" in sorry["text"] and escalated_at(bot_env, msg["ts"])[0] is None
    fake_slack.click(bot.url, reply, "escalate")
    fake_slack.wait_for(lambda: posts_to(fake_slack, "CSUPPORT"))


def test_an_escalation_shows_in_logs_the_export_and_the_gaps(fake_slack, bot_env, start_bot):
    import json

    from tests.conftest import run_cli

    bot = start_bot(bot_env | SUPPORT)
    _, reply = answered(fake_slack, bot)
    fake_slack.click(bot.url, reply, "escalate")
    fake_slack.wait_for(lambda: posts_to(fake_slack, "CSUPPORT"))
    db = bot_env["DATABASE_URL"]
    listing = run_cli("logs", "--db", db).stdout
    assert "^" in next(line for line in listing.splitlines() if "express delivery" in line)
    [row] = [json.loads(x) for x in run_cli("logs", "export", "--db", db).stdout.splitlines() if "express" in x]
    assert row["escalated"] is True
    gaps = json.loads(run_cli("gaps", "--json", "--db", db).stdout)
    assert gaps[0]["reasons"] == {"escalated": 1}


def test_a_forged_button_value_from_another_conversation_hands_over_nothing(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    secret = fake_slack.user_says("D_ALICE", "How do refunds work? I'm Alice Roe, alice@example.com", user="U_ALICE")
    fake_slack.deliver(bot.url, fake_slack.events_for(secret)[0])
    [dm_reply] = fake_slack.wait_for(lambda: fake_slack.replies("D_ALICE", secret["ts"]))
    _, reply = answered(fake_slack, bot)  # Mallory's own answer in a channel, whose button value she rewrites
    alices = next(e for b in dm_reply["blocks"] if b["type"] == "actions" for e in b["elements"] if e["action_id"] == "escalate")
    forged = {**reply, "blocks": [{"type": "actions", "elements": [{**alices}]}]}
    assert fake_slack.click(bot.url, forged, "escalate", user="U_MALLORY") == 200
    fake_slack.wait_for(lambda: "escalation of" in bot.log() and "refused" in bot.log())
    assert posts_to(fake_slack, "CSUPPORT") == []
    assert escalated_at(bot_env, secret["ts"]) == (None, None)


def test_a_failed_answer_offers_a_person(fake_slack, bot_env, start_bot, fake_anthropic):
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    claude = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": fake_anthropic.url, "ANTHROPIC_MAX_RETRIES": "0"}
    bot = start_bot(bot_env | SUPPORT | claude | {"ANSWER_FALLBACK": "none"})
    _, reply = answered(fake_slack, bot)
    assert "busy" in reply["text"] and buttons(reply) == ["escalate"]
    assert fake_slack.click(bot.url, reply, "escalate") == 200
    [handed] = fake_slack.wait_for(lambda: posts_to(fake_slack, "CSUPPORT"))
    assert "The bot could not answer" in str(handed["blocks"])


def test_a_private_ask_answer_offers_a_person_and_tells_only_its_asker(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    status, _, response_id = fake_slack.command(bot.url, "How much is express delivery?")
    assert status == 200
    answer = fake_slack.wait_for(lambda: [r for r in fake_slack.responses[response_id] if r.get("blocks")])[0]
    message = {"channel": "C_GENERAL", "ts": "0", "blocks": answer["blocks"]}
    assert fake_slack.click(bot.url, message, "escalate", response_id=response_id) == 200
    [handed] = fake_slack.wait_for(lambda: posts_to(fake_slack, "CSUPPORT"))
    assert "Write to <@U1> directly" in handed["text"]
    told = fake_slack.wait_for(lambda: [r for r in fake_slack.responses[response_id] if "support team" in r.get("text", "")])
    assert told[0]["response_type"] == "ephemeral" and "message you directly" in told[0]["text"]
    assert [m for (c, _), m in fake_slack.messages.items() if c == "C_GENERAL" and m.get("bot_id")] == [], (
        "a private question stays private in its channel"
    )
