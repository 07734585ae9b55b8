"""A hand-over to a person is a conversation: replies travel between the hand-over thread and the asker's thread,
once each, pinging no one, until either side marks it resolved; it survives a restart."""

from sqlalchemy import create_engine, select

from bot.logs.models import handovers
from bot.logs.overview import overview
from bot.logs.team_answers import list_answers
from bot.review.app import create_app
from tests.conftest import run_cli
from tests.fakes.slack import BOT_USER
from tests.test_health import ready

SUPPORT = {"SLACK_ESCALATION_CHANNEL": "CSUPPORT"}
UNCOVERED = "is there a discount for students?"


def bot_posts(fake_slack, channel, thread_ts):
    return fake_slack.replies(channel, thread_ts)


def handed_over(fake_slack, bot, channel="D_ALICE", user="U_ALICE"):
    """A question the docs don't cover, asked in `channel`, handed to a person: (question, hand-over post)."""
    text = UNCOVERED if channel.startswith("D") else f"<@{BOT_USER}> {UNCOVERED}"
    question = fake_slack.user_says(channel, text, user=user)
    fake_slack.deliver(bot.url, fake_slack.events_for(question)[0])
    [reply] = fake_slack.wait_for(lambda: bot_posts(fake_slack, channel, question["ts"]))
    assert fake_slack.click(bot.url, reply, "escalate", user=user) == 200
    [post] = fake_slack.wait_for(
        lambda: [
            m for (c, _), m in list(fake_slack.messages.items()) if c == "CSUPPORT" and m.get("bot_id") and not m.get("thread_ts")
        ]
    )
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, channel, question["ts"]) if "support team" in m["text"]])
    return question, post


def says(fake_slack, bot, channel, text, user, thread_ts, **extra):
    msg = fake_slack.user_says(channel, text, user=user, thread_ts=thread_ts, **extra)
    for envelope in fake_slack.events_for(msg):
        fake_slack.deliver(bot.url, envelope)
    return msg


def state(bot_env, question_ts):
    engine = create_engine(bot_env["DATABASE_URL"])
    with engine.connect() as conn:
        row = conn.execute(select(handovers.c.state, handovers.c.resolved_by)).one()
    engine.dispose()
    return tuple(row)


def question_id(bot_env):
    engine = create_engine(bot_env["DATABASE_URL"])
    with engine.connect() as conn:
        found = conn.execute(select(handovers.c.question_id)).scalar_one()
    engine.dispose()
    return found


def test_from_a_dm_a_persons_reply_reaches_the_asker_and_the_askers_follow_up_comes_back(fake_slack, bot_env, start_bot):
    fake_slack.people = {"U_BOB": "Bob", "U_ALICE": "Alice"}
    bot = start_bot(bot_env | SUPPORT)
    question, post = handed_over(fake_slack, bot)
    assert UNCOVERED in post["text"] and "(in a direct message)" in post["text"]
    assert "your replies reach the asker" in post["text"] and "Write to" not in post["text"]
    says(fake_slack, bot, "CSUPPORT", "Yes: 15% off with a student email. <!channel>", "U_BOB", post["ts"])
    relayed = fake_slack.wait_for(
        lambda: [m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "from support" in m["text"]]
    )
    assert relayed[0]["text"] == "*Bob* from support: Yes: 15% off with a student email. @channel", "no ping"
    says(fake_slack, bot, "D_ALICE", "Great, which email domains count?", "U_ALICE", question["ts"], channel_type="im")
    back = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "who asked" in m["text"]])
    assert back[0]["text"] == "*Alice* (who asked): Great, which email domains count?"
    fake_slack.wait_for(lambda: state(bot_env, question["ts"]) == ("answered", None))
    assert len([m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "docs" in m["text"].lower()]) == 1, (
        "the follow-up went to the person, not to the bot"
    )
    engine = create_engine(bot_env["DATABASE_URL"])
    people = fake_slack.wait_for(lambda: (o := overview(engine).people).team_answers_waiting == 1 and o)  # Bob's reply
    engine.dispose()
    assert (people.escalations, people.handovers, people.replied, people.resolved) == (1, 1, 1, 0)
    assert people.median_first_reply_s is not None


def test_a_reply_is_relayed_once_however_often_slack_delivers_it_and_the_bots_own_posts_never(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    question, post = handed_over(fake_slack, bot)
    reply = says(fake_slack, bot, "CSUPPORT", "Send us your student ID, please.", "U_BOB", post["ts"])
    fake_slack.deliver(bot.url, fake_slack.events_for(reply)[0], retry_num=1)
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "from support" in m["text"]])
    [relayed] = [m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "from support" in m["text"]]
    echo = {k: v for k, v in relayed.items() if k != "type"}  # Slack tells the bot about its own post too
    # Bolt drops the bot's own events before acknowledging them (and bot.slack.handover ignores any bot's post)
    assert fake_slack.deliver(bot.url, fake_slack.envelope({"type": "message", "channel_type": "im", **echo})) == 200
    fake_slack.wait_for(lambda: "already relayed" in bot.log())  # the retry of the person's reply
    assert len([m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "from support" in m["text"]]) == 1
    assert [m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "who asked" in m["text"]] == []


def test_mark_resolved_shows_on_both_sides_and_a_second_click_changes_nothing(fake_slack, bot_env, start_bot):
    fake_slack.people = {"U_ALICE": "Alice"}
    bot = start_bot(bot_env | SUPPORT)
    question, post = handed_over(fake_slack, bot)
    [notice] = [m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "support team" in m["text"]]
    assert "their reply will appear here" in notice["text"]
    assert fake_slack.click(bot.url, notice, "resolve_handover", user="U_ALICE") == 200
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "resolved by Alice" in m["text"]])
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "resolved by Alice" in m["text"]])
    assert state(bot_env, question["ts"]) == ("resolved", "U_ALICE")
    trace = run_cli("logs", "show", str(question_id(bot_env)), "--db", bot_env["DATABASE_URL"]).stdout
    assert "Hand-over: resolved, resolved by U_ALICE" in trace, "the log row shows the state"
    engine = create_engine(bot_env["DATABASE_URL"])
    page = create_app(engine).test_client().get(f"/questions/{question_id(bot_env)}").text
    engine.dispose()
    assert page.count('title="U_ALICE">Alice</span>') == 2, "the review page names who asked and who handed it over"
    assert "resolved by Alice" in page
    assert fake_slack.click(bot.url, post, "resolve_handover", user="U_BOB") == 200
    fake_slack.wait_for(lambda: [e for e in fake_slack.ephemerals if "already marked resolved" in e["text"]])
    assert state(bot_env, question["ts"]) == ("resolved", "U_ALICE")
    assert len([m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "resolved" in m["text"]]) == 1
    says(fake_slack, bot, "D_ALICE", "thanks!", "U_ALICE", question["ts"], channel_type="im")
    fake_slack.wait_for(
        lambda: "ignored message" in bot.log() or bot_posts(fake_slack, "D_ALICE", question["ts"])[-1]["ts"] > question["ts"]
    )
    assert [m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "who asked" in m["text"]] == [], (
        "a resolved hand-over no longer carries the asker's words"
    )


def test_a_forged_resolve_or_a_click_from_elsewhere_changes_nothing(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    question, post = handed_over(fake_slack, bot)
    elsewhere = {**post, "channel": "C_RANDOM"}
    assert fake_slack.click(bot.url, elsewhere, "resolve_handover", user="U_MALLORY") == 200
    fake_slack.wait_for(lambda: [e for e in fake_slack.ephemerals if "can mark this resolved" in e["text"]])
    assert fake_slack.click(bot.url, post, "resolve_handover", user="U_BOB", team="T_OTHER") == 200
    forged = {
        **post,
        "blocks": [
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "action_id": "resolve_handover",
                        "text": {"type": "plain_text", "text": "x"},
                        "value": "999",
                    }
                ],
            }
        ],
    }
    assert fake_slack.click(bot.url, forged, "resolve_handover", user="U_BOB") == 200
    says(fake_slack, bot, "CSUPPORT", "checking", "U_BOB", post["ts"])
    fake_slack.wait_for(lambda: state(bot_env, question["ts"]) == ("answered", None))  # not resolved by any of those


def test_a_reply_that_arrives_after_a_restart_is_relayed_once(fake_slack, bot_env, start_bot):
    first = start_bot(bot_env | SUPPORT)
    question, post = handed_over(fake_slack, first)
    first.end()
    second = start_bot(bot_env | SUPPORT)
    reply = says(fake_slack, second, "CSUPPORT", "Found it: see the pricing page.", "U_BOB", post["ts"])
    fake_slack.deliver(second.url, fake_slack.events_for(reply)[0], retry_num=1)
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "from support" in m["text"]])
    fake_slack.wait_for(lambda: "already relayed" in second.log())
    assert len([m for m in bot_posts(fake_slack, "D_ALICE", question["ts"]) if "from support" in m["text"]]) == 1


def test_from_a_channel_the_thread_gets_the_reply_and_only_the_askers_replies_go_back(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | SUPPORT)
    question, post = handed_over(fake_slack, bot, channel="C_GENERAL", user="U1")
    assert "Open their thread" in post["text"]
    says(
        fake_slack,
        bot,
        "CSUPPORT",
        "We have one; I'll post the link. File attached.",
        "U_BOB",
        post["ts"],
        files=[{"name": "students.pdf"}],
    )
    [relayed] = fake_slack.wait_for(
        lambda: [m for m in bot_posts(fake_slack, "C_GENERAL", question["ts"]) if "from support" in m["text"]]
    )
    assert "_(attached: students.pdf)_" in relayed["text"]
    says(fake_slack, bot, "C_GENERAL", "+1, me too", "U_CAROL", question["ts"])
    says(fake_slack, bot, "C_GENERAL", "thanks, got it", "U1", question["ts"])
    [back] = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "who asked" in m["text"]])
    assert "thanks, got it" in back["text"]
    assert not [m for m in bot_posts(fake_slack, "CSUPPORT", post["ts"]) if "me too" in m["text"]], "only the asker's"


def test_a_published_reply_is_indexed_and_answers_the_same_question_citing_the_person(fake_slack, bot_env, start_bot, docs):
    import json

    fake_slack.people = {"U_BOB": "Bob"}
    bot = start_bot(bot_env | SUPPORT)
    _, post = handed_over(fake_slack, bot)
    says(fake_slack, bot, "CSUPPORT", "Yes: students get 15% off with a university email address.", "U_BOB", post["ts"])
    db = ["--db", bot_env["DATABASE_URL"]]
    engine = create_engine(bot_env["DATABASE_URL"])
    fake_slack.wait_for(lambda: list_answers(engine, None))  # a read, not a process, each poll
    engine.dispose()
    [candidate] = json.loads(run_cli("answers", "--json", *db).stdout)
    assert candidate["state"] == "candidate" and candidate["answered_by_name"] == "Bob"
    assert candidate["question"] == UNCOVERED and "15% off" in candidate["reply"]
    assert candidate["permalink"].startswith("https://fake.slack.test/archives/CSUPPORT/")
    assert json.loads(run_cli("gaps", "--json", *db).stdout), "the question is a gap until the answer is published"
    assert run_cli("answers", "publish", str(candidate["id"]), *db).returncode == 0
    assert json.loads(run_cli("gaps", "--json", *db).stdout) == [], "a published answer covers its gap"
    synced = json.loads(run_cli("sync", "--json", "--docs", str(docs), *db).stdout)
    assert synced["added"] == [f"team-answers/{candidate['id']}.md"]
    ready(bot, fake_slack)  # the bot serves the new index (a question before that is answered from the last one)
    again = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> is there a student discount?", user="U_CAROL")
    fake_slack.deliver(bot.url, fake_slack.events_for(again)[0])
    [reply] = fake_slack.wait_for(lambda: bot_posts(fake_slack, "C_GENERAL", again["ts"]))
    assert "15% off" in reply["text"]
    assert "Answer from Bob, support, " in str(reply["blocks"]), "the source says whose answer it is"
    assert "archives/CSUPPORT" in str(reply["blocks"]), "and links to where they said it"
    synced_again = json.loads(run_cli("sync", "--json", "--docs", str(docs), *db).stdout)
    assert synced_again["removed"] == [] and synced_again["unchanged"] >= 1, "a re-sync keeps it"
