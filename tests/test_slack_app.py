"""The Slack app as users meet it: a real `supportbot serve --http` process, the fake Slack, signed events."""

import json

import pytest
from sqlalchemy import create_engine, select

from bot.logs.models import feedback, questions
from tests.fakes.anthropic import error
from tests.fakes.slack import BOT_USER, Fault


def mention(fake, bot, text, channel="C_GENERAL", **kw):
    msg = fake.user_says(channel, f"<@{BOT_USER}> {text}", **kw)
    fake.deliver(bot.url, fake.events_for(msg)[0])
    return msg


def answers(fake, msg):
    return fake.wait_for(lambda: fake.replies(msg["channel"], msg.get("thread_ts") or msg["ts"]))


def all_text(message):
    return json.dumps(message["blocks"]) + message["text"]


@pytest.mark.shared_serve
def test_a_mention_is_answered_in_its_thread_with_numbered_links(fake_slack, bot):
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    assert reply["thread_ts"] == msg["ts"]
    assert "$12" in reply["text"] and "[1]" in reply["text"]
    assert (
        "<https://help.auralis.example/help/shipping.html#delivery-times|[1] Shipping and delivery &gt; Delivery times and costs>"
        in all_text(reply)
    )
    assert reply["unfurl_links"] in (False, "0", "false", "False")
    assert not fake_slack.called("chat.startStream"), "the local answerer's answer comes whole"
    fake_slack.wait_for(lambda: fake_slack.called("reactions.remove"))
    assert [c.params["name"] for c in fake_slack.called("reactions.add")] == ["eyes"]
    status = fake_slack.called("assistant.threads.setStatus")[0].params
    assert status["status"].startswith("is searching") and len(status["loading_messages"]) >= 2
    assert fake_slack.titles == {}, "a channel thread is not an agent-view conversation: no title"


@pytest.mark.shared_serve
def test_a_question_that_mentions_a_colleague_and_has_emoji_is_answered_as_if_typed_plain(fake_slack, bot):
    msg = mention(fake_slack, bot, "<@U_BOB> how much is express delivery?? :thinking_face: :pray:")
    [reply] = answers(fake_slack, msg)
    assert "$12" in reply["text"] and "shipping.html#delivery-times" in all_text(reply)
    engine = create_engine(bot.env["DATABASE_URL"])
    with engine.connect() as conn:
        asked = conn.execute(select(questions.c.question).where(questions.c.message_ts == msg["ts"])).scalar_one()
    engine.dispose()
    assert asked == "how much is express delivery??", "the log keeps the question as it was read"


@pytest.mark.shared_serve
def test_the_log_keeps_each_channel_questions_link_to_its_thread_and_none_for_a_dm(fake_slack, bot):
    first = mention(fake_slack, bot, "How much is express delivery?")
    answers(fake_slack, first)
    follow = mention(fake_slack, bot, "and to Canada?", thread_ts=first["ts"])
    fake_slack.wait_for(lambda: len(fake_slack.replies("C_GENERAL", first["ts"])) >= 2)
    dm = fake_slack.user_says("D_ALICE", "Can I go swimming with my earbuds?")
    fake_slack.deliver(bot.url, fake_slack.events_for(dm)[0])
    answers(fake_slack, dm)
    engine = create_engine(bot.env["DATABASE_URL"])
    with engine.connect() as conn:
        ours = questions.c.message_ts.in_([first["ts"], follow["ts"], dm["ts"]])
        links = dict(conn.execute(select(questions.c.message_ts, questions.c.permalink).where(ours)).all())
    engine.dispose()
    slack_says = lambda m: fake_slack.api_chat_getPermalink({"channel": m["channel"], "message_ts": m["ts"]})["permalink"]
    assert links[first["ts"]] == slack_says(first) and links[follow["ts"]] == slack_says(follow), "as Slack spells them"
    assert "?thread_ts=" in links[follow["ts"]] and links[dm["ts"]] is None


@pytest.mark.shared_serve
def test_the_review_page_names_the_channel_as_slack_does_and_a_dm_as_a_dm(fake_slack, bot):
    from bot.review.app import create_app

    fake_slack.channel_names = {"C_HELPDESK": "help-desk"}  # a channel the shared bot has not met: it asks its name
    first = mention(fake_slack, bot, "How much is express delivery?", channel="C_HELPDESK")
    answers(fake_slack, first)
    engine = create_engine(bot.env["DATABASE_URL"])
    with engine.connect() as conn:
        [qid] = conn.execute(select(questions.c.id).where(questions.c.message_ts == first["ts"])).scalars()
    page = create_app(engine).test_client().get(f"/questions/{qid}").text
    listing = create_app(engine).test_client().get("/questions").text
    engine.dispose()
    assert '<span title="C_HELPDESK">#help-desk</span>' in page
    assert 'title="C_HELPDESK">#help-desk</td>' in listing


@pytest.mark.shared_serve
def test_the_loading_status_names_each_search_while_it_runs(fake_slack, bot):
    msg = mention(fake_slack, bot, "How much is express &lt;delivery&gt;?")  # as Slack sends "<delivery>"
    answers(fake_slack, msg)
    statuses = [c.params["status"] for c in fake_slack.called("assistant.threads.setStatus")]
    assert "is searching the docs for “How much is express &lt;delivery&gt;?”…" in statuses


@pytest.mark.shared_serve
def test_a_direct_message_is_answered_in_thread(fake_slack, bot):
    msg = fake_slack.user_says("D_ALICE", "Can I go swimming with my earbuds?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [reply] = answers(fake_slack, msg)
    assert reply["thread_ts"] == msg["ts"] and "swimming" in reply["text"]


@pytest.mark.shared_serve
def test_a_new_direct_message_conversation_is_titled_by_its_question(fake_slack, bot):
    msg = fake_slack.user_says("D_ALICE", "Can I go swimming with my earbuds?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    answers(fake_slack, msg)
    assert fake_slack.titles == {("D_ALICE", msg["ts"]): "Can I go swimming with my earbuds?"}


@pytest.mark.shared_serve
def test_a_follow_up_in_the_thread_uses_its_history(fake_slack, bot):
    first = mention(fake_slack, bot, "Tell me about the Pods Pro earbuds")
    answers(fake_slack, first)
    follow = mention(fake_slack, bot, "and what about the warranty?", thread_ts=first["ts"])
    replies = fake_slack.wait_for(
        lambda: len(fake_slack.replies("C_GENERAL", first["ts"])) >= 2 and fake_slack.replies("C_GENERAL", first["ts"])
    )
    assert "help/warranty" in all_text(replies[-1])
    assert fake_slack.called("conversations.replies")[-1].params["ts"] == first["ts"]
    assert follow["thread_ts"] == first["ts"]


@pytest.mark.shared_serve
def test_retries_and_the_mention_twins_get_one_answer(fake_slack, bot):
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
    app_mention, message = fake_slack.events_for(msg)
    assert fake_slack.deliver(bot.url, app_mention) == 200
    assert fake_slack.deliver(bot.url, message) == 200
    assert fake_slack.deliver(bot.url, app_mention, retry_num=1) == 200
    assert fake_slack.deliver(bot.url, app_mention, retry_num=2) == 200
    answers(fake_slack, msg)
    fake_slack.wait_for(
        lambda: (
            bot.log().count("already answered or being answered") == 2
            and f"ignored message {msg['ts']}: its app_mention twin answers it" in bot.log()
        )
    )
    assert len(fake_slack.replies("C_GENERAL", msg["ts"])) == 1


@pytest.mark.shared_serve
def test_own_and_other_bots_messages_are_ignored(fake_slack, bot):
    own = fake_slack.user_says("D_ALICE", "How much is express delivery?", user=BOT_USER, bot_id="BBOT")
    other = fake_slack.user_says("D_ALICE", "How much is express delivery?", user="U_OTHERBOT", bot_id="B_OTHER")
    edit = fake_slack.user_says("D_ALICE", "How much is express delivery?", subtype="message_changed")
    for m in (own, other, edit):
        fake_slack.deliver(bot.url, fake_slack.events_for(m)[0])
    probe = fake_slack.user_says("D_ALICE", "What is the latest firmware version?")
    fake_slack.deliver(bot.url, fake_slack.events_for(probe)[0])
    answers(fake_slack, probe)
    # Bolt drops the bot's own message while handling its request; the others are ours to ignore, and we say so
    fake_slack.wait_for(lambda: all(f"ignored message {m['ts']}:" in bot.log() for m in (other, edit)))
    assert [c.params["thread_ts"] for c in fake_slack.called("chat.postMessage")] == [probe["ts"]]


@pytest.mark.shared_serve
def test_a_rate_limited_post_is_retried(fake_slack, bot):
    fake_slack.fail("chat.postMessage", Fault(status=429, retry_after=1))
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    assert "$12" in reply["text"]
    assert len(fake_slack.called("chat.postMessage")) == 2


def test_an_empty_mention_gets_a_usage_hint_and_a_file_only_message_a_notice(fake_slack, bot_env, start_bot):
    fake_slack.bot_name = "helpdesk"
    bot = start_bot(bot_env)
    empty = mention(fake_slack, bot, "")
    [hint] = answers(fake_slack, empty)
    assert "Ask me a question" in hint["text"] and "@helpdesk how long" in hint["text"], "the app's own name"
    files = fake_slack.user_says("D_ALICE", "", subtype="file_share", files=[{"id": "F1"}])
    fake_slack.deliver(bot.url, fake_slack.events_for(files)[0])
    [notice] = answers(fake_slack, files)
    assert "I can only read text" in notice["text"]


@pytest.mark.shared_serve
def test_a_greeting_gets_the_usage_hint_and_a_thanks_a_welcome_and_neither_is_logged_as_a_question(fake_slack, bot):
    hello = mention(fake_slack, bot, "hey there :wave:")
    [hint] = answers(fake_slack, hello)
    assert "Ask me a question about our docs" in hint["text"]
    question = fake_slack.user_says("D_ALICE", "How much is express delivery?")
    fake_slack.deliver(bot.url, fake_slack.events_for(question)[0])
    answers(fake_slack, question)
    thanks = fake_slack.user_says("D_ALICE", "ok thanks, that worked! :pray:", thread_ts=question["ts"])
    fake_slack.deliver(bot.url, fake_slack.events_for(thanks)[0])
    fake_slack.wait_for(lambda: len(fake_slack.replies("D_ALICE", question["ts"])) >= 2)
    assert "Glad to help" in fake_slack.replies("D_ALICE", question["ts"])[-1]["text"]
    engine = create_engine(bot.env["DATABASE_URL"])
    with engine.connect() as conn:
        ours = questions.c.message_ts.in_([hello["ts"], question["ts"], thanks["ts"]])
        logged = conn.execute(select(questions.c.question).where(ours)).scalars().all()
    engine.dispose()
    assert logged == ["How much is express delivery?"], "no gap in the docs for a greeting or a thanks"


def test_a_document_with_mentions_pings_no_one(fake_slack, bot_env, docs, start_bot):
    (docs / "help" / "office.md").write_text(
        "# Office hours\n\n## Closures\n\nHeads up <!channel>: the office closes on Fridays for <@U999> team lunches.\n"
    )
    from bot.runtime import Runtime
    from bot.settings import load_settings

    Runtime(load_settings(database_url=bot_env["DATABASE_URL"], docs_dir=docs)).sync()
    bot = start_bot(bot_env)
    msg = mention(fake_slack, bot, "When does the office close for lunches?")
    [reply] = answers(fake_slack, msg)
    text = all_text(reply)
    assert "Fridays" in text
    assert "<!channel>" not in text and "<@U999>" not in text and "&lt;!channel&gt;" in text


def test_a_restricted_channel_never_cites_a_hidden_collection(fake_slack, bot_env, start_bot, tmp_path):
    rules = tmp_path / "channels.yaml"
    rules.write_text("default: null\nchannels:\n  C_HELPDESK: [help]\n")
    bot = start_bot(bot_env | {"SLACK_CHANNELS_FILE": str(rules)})
    inside = mention(fake_slack, bot, "How many API requests can I make per minute?", channel="C_HELPDESK")
    outside = mention(fake_slack, bot, "How many API requests can I make per minute?", channel="C_DEV")
    [restricted] = answers(fake_slack, inside)
    [open_] = answers(fake_slack, outside)
    assert "api/" not in all_text(restricted) and "api.auralis" not in all_text(restricted)
    assert "rate-limits" in all_text(open_)


def test_a_model_failure_puts_a_reason_in_the_thread_and_logs_the_error(fake_slack, bot_env, start_bot, fake_anthropic):
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
        "ANTHROPIC_MAX_RETRIES": "0",
        "ANSWER_FALLBACK": "none",
    }
    bot = start_bot(bot_env | env)
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    assert "busy" in reply["text"]
    engine = create_engine(bot_env["DATABASE_URL"])
    with engine.connect() as conn:
        row = conn.execute(select(questions).where(questions.c.thread_ts == msg["ts"])).mappings().one()
    assert row["status"] == "error" and "529" in row["error"] and row["channel"] == "C_GENERAL"
    engine.dispose()


def test_an_overloaded_model_gets_a_labelled_answer_from_the_docs_in_the_thread_and_log(
    fake_slack, bot_env, start_bot, fake_anthropic
):
    fake_anthropic.then(error(529, "overloaded_error", "Overloaded"))
    bot = start_bot(
        bot_env | {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": fake_anthropic.url, "ANTHROPIC_MAX_RETRIES": "0"}
    )
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    assert "The language model is unavailable, so these are the matching lines from the docs." in all_text(reply)
    assert "shipping" in all_text(reply)
    engine = create_engine(bot_env["DATABASE_URL"])
    with engine.connect() as conn:
        row = conn.execute(select(questions).where(questions.c.thread_ts == msg["ts"])).mappings().one()
    assert row["status"] == "answered" and row["answerer"] == "local" and "529" in row["error"]
    assert row["answer"].startswith("The language model is unavailable")
    engine.dispose()


def votes(bot, reply: dict) -> list[dict]:
    """The votes on one answer (its feedback buttons carry its log id), as the bot's database keeps them."""
    [question_id] = {
        int(e["positive_button"]["value"].split(":")[1])
        for b in reply["blocks"]
        if b["type"] == "context_actions"
        for e in b["elements"]
        if e["action_id"] == "feedback"
    }
    engine = create_engine(bot.env["DATABASE_URL"])
    with engine.connect() as conn:
        query = select(feedback).where(feedback.c.question_id == question_id).order_by(feedback.c.id)
        rows = [dict(r) for r in conn.execute(query).mappings()]
    engine.dispose()
    return rows


@pytest.mark.shared_serve
def test_slacks_feedback_buttons_record_a_vote_and_thank_privately(fake_slack, bot):
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    assert any(b["type"] == "context_actions" for b in reply["blocks"])
    assert fake_slack.click(bot.url, reply, "feedback", which="positive") == 200
    [ephemeral] = fake_slack.wait_for(lambda: fake_slack.ephemerals)
    assert ephemeral["user"] == "U1" and ephemeral["channel"] == "C_GENERAL" and "Thanks" in ephemeral["text"]
    [row] = votes(bot, reply)
    assert (row["value"], row["user_id"], row["updated_at"]) == ("up", "U1", None)


@pytest.mark.shared_serve
def test_forged_feedback_values_and_other_workspaces_record_nothing(fake_slack, bot):
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    forged = json.loads(json.dumps(reply))
    buttons = next(e for b in forged["blocks"] if b["type"] == "context_actions" for e in b["elements"])
    for value in ("sideways:1", "up:abc", "up:99999999999999999999999", "up:"):
        buttons["positive_button"]["value"] = value
        assert fake_slack.click(bot.url, forged, "feedback", which="positive") == 200
    fake_slack.wait_for(lambda: bot.log().count("feedback with an unknown value") == 4)
    assert fake_slack.click(bot.url, reply, "feedback", which="positive", team="T_OTHER") == 200
    fake_slack.wait_for(lambda: "matched no answer they may vote on" in bot.log())
    assert votes(bot, reply) == [] and "Traceback" not in bot.log()


@pytest.mark.shared_serve
def test_a_changed_vote_is_a_change_and_not_helpful_asks_why(fake_slack, bot):
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    fake_slack.click(bot.url, reply, "feedback", which="positive")
    fake_slack.wait_for(lambda: fake_slack.ephemerals)
    fake_slack.click(bot.url, reply, "feedback", which="negative")
    [form] = fake_slack.wait_for(lambda: fake_slack.views)
    [row] = votes(bot, reply)
    assert row["value"] == "down" and row["updated_at"] is not None, "one vote, changed"
    assert fake_slack.submit(bot.url, form, {"reason": {"text": "It should say express is next-day in the EU"}}) == 200
    fake_slack.wait_for(lambda: votes(bot, reply)[0]["reason"])
    assert votes(bot, reply)[0]["reason"] == "It should say express is next-day in the EU"


@pytest.mark.shared_serve
def test_a_reason_for_someone_elses_vote_is_not_kept(fake_slack, bot):
    msg = mention(fake_slack, bot, "How much is express delivery?")
    [reply] = answers(fake_slack, msg)
    fake_slack.click(bot.url, reply, "feedback", which="negative")
    [form] = fake_slack.wait_for(lambda: fake_slack.views)
    fake_slack.submit(bot.url, form, {"reason": {"text": "forged"}}, user="U_MALLORY")
    fake_slack.wait_for(lambda: "matched no vote of theirs" in bot.log())
    assert votes(bot, reply)[0]["reason"] is None


@pytest.mark.shared_serve
def test_a_bad_signature_is_rejected(fake_slack, bot):
    msg = fake_slack.user_says("D_ALICE", "How much is express delivery?")
    envelope = fake_slack.events_for(msg)[0]
    assert fake_slack.deliver(bot.url, envelope, signed=False) == 401
    body = json.dumps(envelope).encode()
    assert (
        fake_slack.post(
            bot.url,
            body,
            "application/json",
            {"X-Slack-Signature": "v0=" + "0" * 64, "X-Slack-Request-Timestamp": "1"},
            signed=False,
        )
        == 401
    )
    assert fake_slack.called("chat.postMessage") == []


def reply_in(fake, bot, channel, root, text, user="U1"):
    reply = fake.user_says(channel, text, thread_ts=root["ts"], user=user)
    fake.deliver(bot.url, fake.events_for(reply)[0])
    return reply


def test_follow_ups_without_a_mention_are_answered_only_where_a_channel_allows_it(fake_slack, bot_env, start_bot, tmp_path):
    rules = tmp_path / "channels.yaml"
    rules.write_text("channels:\n  C_SUPPORT:\n    follow_ups: true\n")
    bot = start_bot(bot_env | {"SLACK_CHANNELS_FILE": str(rules)})
    for channel, expected in (("C_SUPPORT", 2), ("C_GENERAL", 1)):
        first = mention(fake_slack, bot, "How much is express delivery?", channel=channel)
        answers(fake_slack, first)
        reply = reply_in(fake_slack, bot, channel, first, "Is the warranty on Pods Pro longer?")
        if expected == 2:
            fake_slack.wait_for(lambda: len(fake_slack.replies(channel, first["ts"])) == 2)
        else:
            fake_slack.wait_for(lambda: f"ignored message {reply['ts']}: a reply without a mention" in bot.log())
        assert len(fake_slack.replies(channel, first["ts"])) == expected, channel


def test_a_reply_without_a_mention_gets_one_private_hint_per_thread(fake_slack, bot_env, start_bot):
    fake_slack.bot_name = "helpdesk"
    bot = start_bot(bot_env)
    first = mention(fake_slack, bot, "How much is express delivery?")
    answers(fake_slack, first)
    reply_in(fake_slack, bot, "C_GENERAL", first, "and is it faster on weekends")
    [hint] = fake_slack.wait_for(lambda: fake_slack.ephemerals)
    assert (hint["user"], hint["channel"], hint["thread_ts"]) == ("U1", "C_GENERAL", first["ts"])
    assert "Mention me (@helpdesk)" in hint["text"]
    later = reply_in(fake_slack, bot, "C_GENERAL", first, "thanks, that helps", user="U2")
    fake_slack.wait_for(lambda: f"ignored message {later['ts']}" in bot.log())
    assert len(fake_slack.ephemerals) == 1 and len(fake_slack.replies("C_GENERAL", first["ts"])) == 1


@pytest.mark.shared_serve
def test_replies_in_threads_the_bot_never_answered_get_nothing(fake_slack, bot):
    root = fake_slack.user_says("C_GENERAL", "lunch at noon?")
    reply = reply_in(fake_slack, bot, "C_GENERAL", root, "sure")
    fake_slack.wait_for(lambda: f"ignored message {reply['ts']}: not addressed to the bot" in bot.log())
    assert fake_slack.ephemerals == [] and fake_slack.replies("C_GENERAL", root["ts"]) == []


@pytest.mark.shared_serve
def test_the_url_verification_challenge_is_answered(fake_slack, bot):
    import urllib.request

    body = json.dumps({"token": "legacy", "challenge": "c-123", "type": "url_verification"}).encode()
    request = urllib.request.Request(
        bot.url, data=body, method="POST", headers={"Content-Type": "application/json", **fake_slack.sign(body)}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        assert json.loads(response.read()) == {"challenge": "c-123"}


@pytest.mark.shared_serve
def test_junk_bodies_get_a_client_error_and_no_traceback(fake_slack, bot):
    for body, content_type in [
        (b"\xff\xfe{not json", "application/json"),
        (b"payload=%7Bnot-json", "application/x-www-form-urlencoded"),
        (b"<xml/>", "text/xml"),
    ]:
        for signed in (False, True):
            status = fake_slack.post(bot.url, body, content_type, signed=signed)
            assert 400 <= status < 500, (body, signed, status)
    assert "Traceback" not in bot.log()


@pytest.mark.shared_serve
@pytest.mark.parametrize("event", ["a string", [1, 2], None])
def test_a_signed_event_callback_whose_event_is_not_an_object_is_a_client_error(fake_slack, bot, event):
    envelope = fake_slack.envelope({"type": "app_mention"}) | {"event": event}
    assert 400 <= fake_slack.deliver(bot.url, envelope) < 500
    assert "Traceback" not in bot.log()


@pytest.mark.shared_serve
def test_a_huge_body_is_refused_from_its_length_before_it_is_read(bot):
    import socket
    import time

    port = int(bot.url.split(":")[2].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 314572800\r\n\r\n{"  # claims 300 MB, sends one byte
        )
        started = time.monotonic()
        reply = conn.recv(200)
    assert reply.startswith(b"HTTP/1.1 413") and time.monotonic() - started < 5


def test_a_post_that_times_out_but_lands_is_not_followed_by_an_apology(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | {"SLACK_TIMEOUT_SECONDS": "1"})
    fake_slack.fail("chat.postMessage", Fault(delay_s=1.5))  # lands after the client gave up on it
    msg = mention(fake_slack, bot, "How much is express delivery?")
    fake_slack.wait_for(lambda: "checking whether it landed" in bot.log())
    [reply] = answers(fake_slack, msg)
    assert "$12" in reply["text"]
    engine = create_engine(bot_env["DATABASE_URL"])
    with engine.connect() as conn:
        assert conn.execute(select(questions.c.status).where(questions.c.thread_ts == msg["ts"])).scalar() == "answered"
    engine.dispose()
    bot.stop()
    assert len(fake_slack.replies(msg["channel"], msg["ts"])) == 1, "no 'Sorry' beside the answer"
