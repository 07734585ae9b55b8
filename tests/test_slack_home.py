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


def ask_in(fake_slack, bot, channel, text, user, thread_ts=None):
    """A question as Slack delivers it (a mention in a channel, a message in a DM), and its answer awaited."""
    msg = fake_slack.user_says(
        channel, text if channel.startswith("D") else f"<@{BOT_USER}> {text}", user=user, thread_ts=thread_ts
    )
    before = len(fake_slack.replies(channel, msg.get("thread_ts", msg["ts"])))
    assert fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0]) == 200, "the bot acknowledges the event"
    fake_slack.wait_for(lambda: len(fake_slack.replies(channel, msg.get("thread_ts", msg["ts"]))) > before)
    return msg


def suggested(fake_slack, bot) -> list[str]:
    open_home(fake_slack, bot, tab="messages")
    return [p["message"] for p in fake_slack.wait_for(lambda: fake_slack.prompts.get("D_ALICE"))["prompts"]]


def test_a_question_three_people_asked_in_public_channels_is_a_prompt_and_one_two_people_asked_is_not(
    fake_slack, bot_env, start_bot
):
    bot = start_bot(bot_env)
    for user in ("U1", "U2", "U3"):
        ask_in(fake_slack, bot, "C_GENERAL", "How much is express delivery?", user)
    for user in ("U1", "U2"):
        ask_in(fake_slack, bot, "C_GENERAL", "How long is the warranty?", user)
    prompts = suggested(fake_slack, bot)
    assert len(prompts) == 4
    assert prompts[0] == "How much is express delivery?"
    assert all(p.startswith("What do the docs say about ") for p in prompts[1:])
    assert fake_slack.called("conversations.info")  # an app_mention does not say whether its channel is public


def test_questions_from_dms_private_channels_ask_and_thread_replies_never_become_prompts(fake_slack, bot_env, start_bot):
    bot = start_bot(bot_env)
    fake_slack.private_channels.add("C_SECRET")
    secret = "How do refunds work when I was fired today? I'm Alice Roe, employee 4471"
    root = ask_in(fake_slack, bot, "C_GENERAL", "How much is express delivery?", "U9")
    for user in ("U1", "U2", "U3"):
        ask_in(fake_slack, bot, f"D_{user}", secret, user)
        ask_in(fake_slack, bot, "C_SECRET", secret, user)
        ask_in(fake_slack, bot, "G_TEAM", secret, user)
        status, _, response_id = fake_slack.command(bot.url, secret, channel="C_GENERAL", user=user)
        assert status == 200
        fake_slack.wait_for(lambda: fake_slack.responses[response_id])
        ask_in(fake_slack, bot, "C_GENERAL", "and if I bought them in a shop?", user, thread_ts=root["ts"])
    prompts = suggested(fake_slack, bot)
    assert all(p.startswith("What do the docs say about ") for p in prompts), prompts
