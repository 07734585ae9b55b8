"""Opening the App Home tab shows what the bot knows, how to ask, whom it escalates to, and your own questions."""

from tests.fakes.slack import BOT_USER


def open_home(fake_slack, bot, user="U1", tab="home"):
    event = {"type": "app_home_opened", "user": user, "channel": "D_ALICE", "tab": tab, "event_ts": "1.1"}
    assert fake_slack.deliver(bot.url, fake_slack.envelope(event)) == 200


def asked_and_answered(fake_slack, bot, user="U1"):
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?", user=user)
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]))


def home_text(view) -> str:
    return "\n".join((b.get("text") or {}).get("text", "") for b in view["blocks"])


def test_the_home_tab_lists_the_collections_and_the_viewers_own_questions(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | {"SLACK_ESCALATION_CHANNEL": "CSUPPORT"})
    asked_and_answered(fake_slack, bot)
    open_home(fake_slack, bot)
    view = fake_slack.wait_for(lambda: fake_slack.homes.get("U1"))
    text = home_text(view)
    assert "*help* (" in text and "*api* (" in text and "passages" in text and "Last synced" in text
    assert "<#CSUPPORT>" in text
    assert "How much is express delivery? — _answered_" in text


def test_someone_elses_questions_are_not_on_your_home_tab(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env)
    asked_and_answered(fake_slack, bot)
    open_home(fake_slack, bot, user="U2")
    text = home_text(fake_slack.wait_for(lambda: fake_slack.homes.get("U2")))
    assert "express delivery" not in text and "None yet." in text and "Need a person" not in text


def test_opening_the_messages_tab_suggests_the_teams_own_prompts_and_publishes_no_home(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env | {"SLACK_SUGGESTED_PROMPTS": "How long is the warranty?| How do I get a refund? "})
    open_home(fake_slack, bot, tab="messages")
    suggested = fake_slack.wait_for(lambda: fake_slack.prompts.get("D_ALICE"))
    assert [p["message"] for p in suggested["prompts"]] == ["How long is the warranty?", "How do I get a refund?"]
    assert fake_slack.homes == {} and not fake_slack.called("views.publish")


def test_unconfigured_prompts_are_the_questions_the_bot_answered_then_its_largest_pages(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env)
    asked_and_answered(fake_slack, bot)
    open_home(fake_slack, bot, tab="messages")
    prompts = fake_slack.wait_for(lambda: fake_slack.prompts.get("D_ALICE"))["prompts"]
    assert len(prompts) == 4
    assert prompts[0]["message"] == "How much is express delivery?"
    assert all(p["message"].startswith("What do the docs say about ") for p in prompts[1:])
