"""A Slack event is read once into a SlackMessage; what it means (DM, thread, mention, ignore) is decided there."""

from bot.slack.message import SlackMessage

BOT = "UBOT"


def parse(body_team="T1", **event):
    event = {"type": "message", "channel": "C1", "ts": "10.1", "user": "U1", "text": "hi", **event}
    return SlackMessage.parse(event, {"team_id": body_team, "event_id": "Ev9", "event": event}, BOT)


def test_the_bots_mention_is_removed_from_the_question_wherever_it_stands():
    assert parse(text=f"<@{BOT}> how long is the warranty?").text == "how long is the warranty?"
    assert parse(text=f"so <@{BOT}|supportbot> what about refunds").text == "so  what about refunds"
    assert parse(text="<@UOTHER> can you check?").text == "<@UOTHER> can you check?"


def test_a_message_knows_whether_it_mentions_the_bot():
    assert parse(text=f"hey <@{BOT}>").mentions_bot
    assert not parse(text="hey <@UOTHER>").mentions_bot


def test_a_dm_is_recognised_by_channel_type_or_by_its_channel_id():
    assert parse(channel_type="im").is_dm
    assert parse(channel="D123").is_dm
    assert not parse(channel="C123", channel_type="channel").is_dm


def test_a_thread_reply_keeps_its_threads_root_and_a_new_message_starts_its_own():
    reply = parse(ts="12.5", thread_ts="10.1")
    assert (reply.root, reply.in_thread) == ("10.1", True)
    first = parse(ts="10.1")
    assert (first.root, first.in_thread) == ("10.1", False)


def test_the_event_id_and_team_come_from_the_envelope():
    msg = parse()
    assert (msg.event_id, msg.team) == ("Ev9", "T1")


def test_edits_joins_own_posts_and_other_bots_are_ignored_with_a_reason():
    assert parse(subtype="message_changed").why_ignore(answer_bots=False) == "subtype message_changed"
    assert parse(subtype="channel_join").why_ignore(answer_bots=False) == "subtype channel_join"
    assert parse(user=BOT).why_ignore(answer_bots=False) == "own message"
    assert parse(bot_id="B2").why_ignore(answer_bots=False) == "another bot"
    assert parse(subtype="bot_message", bot_id="B2").why_ignore(answer_bots=False) == "subtype bot_message"


def test_another_bots_message_is_answered_when_allowed_and_a_file_share_always():
    assert parse(subtype="bot_message", bot_id="B2").why_ignore(answer_bots=True) is None
    assert parse(subtype="file_share", files=[{"id": "F1"}]).why_ignore(answer_bots=False) is None
    assert parse(subtype="file_share", files=[{"id": "F1"}]).has_files


def test_the_durable_job_carries_what_answering_needs():
    job = parse(ts="12.5", thread_ts="10.1", text=f"<@{BOT}> refunds?", channel="D7").job()
    assert (job.channel, job.ts, job.root, job.text, job.is_dm, job.team, job.bot_user_id) == (
        "D7",
        "12.5",
        "10.1",
        "refunds?",
        True,
        "T1",
        BOT,
    )
