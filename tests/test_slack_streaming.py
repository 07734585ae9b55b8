"""Claude's answers stream into the thread sentence by sentence, only ever verified text, and end with sources and
buttons; where Slack will not stream, or the answer changes at the end, the thread still holds one right message."""

from sqlalchemy import create_engine, select

from bot.slack.claims import claims
from tests.fakes.anthropic import Cite, answer, search
from tests.fakes.slack import BOT_USER, Fault

EXPRESS = Cite("Express shipping costs $12.", "shipping", "Express shipping")
DAYS = Cite(" It takes 1 to 2 business days.", "shipping", "Express shipping")
STANDARD = Cite(" Standard shipping is free on orders over $50.", "shipping", "Standard shipping")


def claude_bot(start_bot, bot_env, fake_anthropic, **env):
    return start_bot(
        bot_env
        | {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": fake_anthropic.url, "ANTHROPIC_MAX_RETRIES": "0"}
        | env
    )


def ask(fake, bot, text="How much is express delivery?"):
    msg = fake.user_says("C_GENERAL", f"<@{BOT_USER}> {text}")
    assert fake.deliver(bot.url, fake.events_for(msg)[0]) == 200
    return msg


def finished(fake, msg):
    """The bot's messages in the thread once none is still streaming."""
    return fake.wait_for(lambda: (r := fake.replies(msg["channel"], msg["ts"])) and not any(m.get("streaming") for m in r) and r)


def streamed_text(fake) -> str:
    calls = fake.called("chat.startStream") + fake.called("chat.appendStream") + fake.called("chat.stopStream")
    return "".join(c["text"] for call in calls for c in call.params.get("chunks") or [])


def test_an_answer_streams_block_by_block_and_ends_with_its_sources_and_feedback(fake_slack, bot_env, start_bot, fake_anthropic):
    fake_anthropic.then(search("express delivery"), answer(EXPRESS, DAYS, STANDARD))
    bot = claude_bot(start_bot, bot_env, fake_anthropic)
    msg = ask(fake_slack, bot)
    [reply] = finished(fake_slack, msg)
    start, append, stop = (fake_slack.called(m) for m in ("chat.startStream", "chat.appendStream", "chat.stopStream"))
    assert len(start) == 1 and len(append) == 1 and len(stop) == 1
    chunk = lambda call: call.params["chunks"][0]["text"]
    assert "$12" in chunk(start[0]) and "business days" in chunk(append[0])
    assert "$50" in chunk(stop[0]), "the last sentence comes with the sources: one call fewer at the end"
    assert start[0].params["recipient_user_id"] == "U1" and start[0].params["thread_ts"] == msg["ts"]
    assert reply["text"] == (
        "Express shipping costs $12. [1] It takes 1 to 2 business days. [1] Standard shipping is free on orders over $50. [1]"
    )
    blocks = str(reply["blocks"])
    assert "[1] Shipping" in blocks and "context_actions" in blocks
    assert not fake_slack.called("chat.postMessage"), "streamed, not posted"


def test_a_sentence_that_fails_verification_is_never_shown(fake_slack, bot_env, start_bot, fake_anthropic):
    wrong = Cite(" It costs $15 on weekends.", "shipping", "Express shipping")
    fake_anthropic.then(search("express delivery"), answer(EXPRESS, wrong, DAYS, STANDARD))
    bot = claude_bot(start_bot, bot_env, fake_anthropic)
    msg = ask(fake_slack, bot)
    [reply] = finished(fake_slack, msg)
    assert "business days" in streamed_text(fake_slack), "the sentences after it were streamed"
    assert "$15" not in streamed_text(fake_slack) and "$15" not in reply["text"]
    assert "$12" in reply["text"] and "$50" in reply["text"]


def test_where_slack_refuses_to_stream_the_answer_is_posted_whole(fake_slack, bot_env, start_bot, fake_anthropic):
    fake_slack.fail("chat.startStream", Fault(error="feature_not_enabled"))
    fake_anthropic.then(search("express delivery"), answer(EXPRESS, DAYS))
    bot = claude_bot(start_bot, bot_env, fake_anthropic)
    msg = ask(fake_slack, bot)
    [reply] = finished(fake_slack, msg)
    assert "$12" in reply["text"] and "business days" in reply["text"]
    assert len(fake_slack.called("chat.postMessage")) == 1


def test_a_model_that_fails_after_the_first_sentence_leaves_one_corrected_message(fake_slack, bot_env, start_bot, fake_anthropic):
    def overloaded_midway(req):
        reply = answer(EXPRESS, DAYS, STANDARD)(req)
        reply.stream_error, reply.stream_error_after = "overloaded_error", 2
        return reply

    fake_anthropic.then(search("express delivery"), overloaded_midway)
    bot = claude_bot(start_bot, bot_env, fake_anthropic)
    msg = ask(fake_slack, bot)
    fake_slack.wait_for(lambda: fake_slack.called("chat.update"))
    [reply] = finished(fake_slack, msg)
    assert "$12" in streamed_text(fake_slack), "the first sentence was shown while the model wrote"
    assert reply["text"].startswith("The language model is unavailable") and reply.get("edited")


def test_streaming_can_be_turned_off(fake_slack, bot_env, start_bot, fake_anthropic):
    fake_anthropic.then(search("express delivery"), answer(EXPRESS, DAYS))
    bot = claude_bot(start_bot, bot_env, fake_anthropic, SLACK_STREAMING="false")
    msg = ask(fake_slack, bot)
    [reply] = finished(fake_slack, msg)
    assert "$12" in reply["text"] and not fake_slack.called("chat.startStream")


def test_a_process_killed_mid_stream_leaves_one_answer_in_the_thread_after_another_takes_over(
    fake_slack, bot_env, start_bot, fake_anthropic
):
    import signal

    fake_anthropic.token_delay_s = 0.3  # the answer is still streaming when its process dies
    fake_anthropic.then(search("express delivery"), answer(EXPRESS, DAYS, STANDARD))
    env = {"SLACK_CLAIM_LEASE_SECONDS": "1"}
    doomed = claude_bot(start_bot, bot_env, fake_anthropic, **env)
    msg = ask(fake_slack, doomed)
    fake_slack.wait_for(lambda: any(m.get("streaming") and m["text"] for m in fake_slack.replies(msg["channel"], msg["ts"])))
    engine = create_engine(bot_env["DATABASE_URL"])
    key = f"msg:{msg['channel']}:{msg['ts']}"
    with engine.connect() as conn:  # the streamed message is noted with the claim (evidence, not a sleep)
        fake_slack.wait_for(
            lambda: (conn.execute(select(claims.c.job).where(claims.c.key == key)).scalar() or {}).get("stream_ts")
        )
    engine.dispose()
    doomed.proc.send_signal(signal.SIGKILL)
    doomed.proc.wait(10)
    fake_anthropic.token_delay_s = 0.0
    fake_anthropic.then(search("express delivery"), answer(EXPRESS, DAYS, STANDARD))
    survivor = claude_bot(start_bot, bot_env, fake_anthropic, **env)
    fake_slack.wait_for(lambda: "answered C_GENERAL" in survivor.log(), timeout=60)  # its posts are done by then
    [reply] = fake_slack.replies(msg["channel"], msg["ts"])
    assert not reply.get("streaming") and "free on orders over $50" in reply["text"]
    assert any(b["type"] == "context_actions" for b in reply["blocks"]), "with its sources and buttons"


def test_a_streamed_table_arrives_row_by_whole_row(fake_slack):
    from slack_sdk import WebClient

    from bot.slack.claims import Job
    from bot.slack.streaming import SlackStream

    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> compare the plans")
    job = Job("C_GENERAL", msg["ts"], msg["ts"], "compare the plans", "U1", "T1", False, False, BOT_USER)
    stream = SlackStream(WebClient(token="xoxb-test-token", base_url=fake_slack.api_url), job)
    for piece in ("Plans [1]:\n\n| Plan | Price |\n|---|---|\n| Express | $1", "2 [1] |\n| Standard | fr", "ee [1] |"):
        stream.append(piece)
    chunks = [c["text"] for call in fake_slack.calls for c in call.params.get("chunks") or []]
    assert chunks == ["Plans [1]:\n\n| Plan | Price |\n|---|---|\n", "| Express | $12 [1] |\n"]
    assert stream.held == "| Standard | free [1] |", "the last row waits for its end, or for the finish"
