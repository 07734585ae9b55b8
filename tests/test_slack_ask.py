"""/ask answers privately; "Share in channel" posts that answer for everyone, once, and only for its asker."""

import pytest

from tests.fakes.slack import Fault
from tests.test_slack_app import votes


def ask(fake, bot, text="How much is express delivery?", user="U1"):
    status, acked, response_id = fake.command(bot.url, text, user=user)
    assert status == 200
    return acked, response_id


def private_answer(fake, response_id):
    return fake.wait_for(lambda: [r for r in fake.responses[response_id] if r.get("blocks")])[0]


def click_share(fake, bot, response_id, answer, user="U1"):
    message = {"channel": "C_GENERAL", "ts": "0", "blocks": answer["blocks"]}
    assert fake.click(bot.url, message, "share_answer", user=user, response_id=response_id) == 200


def posted_in_channel(fake):
    return [m for (c, _), m in fake.messages.items() if c == "C_GENERAL" and m.get("bot_id")]


@pytest.mark.shared_serve
def test_ask_answers_only_the_asker_with_a_share_button(fake_slack, bot):
    acked, response_id = ask(fake_slack, bot)
    assert acked["response_type"] == "ephemeral" and "Searching the docs" in acked["text"]
    answer = private_answer(fake_slack, response_id)
    assert answer["response_type"] == "ephemeral" and "$12" in answer["text"]
    assert "share_answer" in str(answer["blocks"]) and "escalate" not in str(answer["blocks"])
    assert posted_in_channel(fake_slack) == []


@pytest.mark.shared_serve
def test_ask_reads_the_question_without_the_colleagues_and_emoji_slack_writes_into_it(fake_slack, bot):
    acked, response_id = ask(fake_slack, bot, "<@U_BOB|bob> how much is express delivery? :thinking_face:")
    assert "Searching the docs for: how much is express delivery?" in acked["text"]
    assert "$12" in private_answer(fake_slack, response_id)["text"]


@pytest.mark.shared_serve
def test_the_private_answer_takes_the_place_of_the_searching_note(fake_slack, bot):
    _, response_id = ask(fake_slack, bot)
    answer = private_answer(fake_slack, response_id)
    assert fake_slack.shown[response_id] == [answer], "one private message: the answer, not the note beside it"


@pytest.mark.shared_serve
def test_a_private_answer_takes_feedback_and_thanks_its_asker_privately(fake_slack, bot):
    _, response_id = ask(fake_slack, bot)
    answer = private_answer(fake_slack, response_id)
    message = {"channel": "C_GENERAL", "ts": "0", "blocks": answer["blocks"]}
    assert fake_slack.click(bot.url, message, "feedback", which="positive", response_id=response_id) == 200
    thanks = fake_slack.wait_for(lambda: [r for r in fake_slack.responses[response_id] if "Thanks" in r.get("text", "")])
    assert thanks[0]["response_type"] == "ephemeral" and not thanks[0].get("replace_original")
    assert fake_slack.shown[response_id][0] == answer, "the thanks goes beside the answer, never over it"
    [row] = votes(bot, answer)
    assert (row["value"], row["user_id"]) == ("up", "U1")


@pytest.mark.shared_serve
def test_an_empty_ask_gets_how_to_use_it(fake_slack, bot):
    acked, response_id = ask(fake_slack, bot, text="   ")
    assert acked["text"].startswith("Ask me a question") and fake_slack.responses[response_id] == []


@pytest.mark.shared_serve
def test_sharing_posts_the_answer_in_channel_once_and_removes_the_private_copy(fake_slack, bot):
    _, response_id = ask(fake_slack, bot)
    answer = private_answer(fake_slack, response_id)
    click_share(fake_slack, bot, response_id, answer)
    fake_slack.wait_for(lambda: any(r.get("delete_original") for r in fake_slack.responses[response_id]))
    [shared] = posted_in_channel(fake_slack)
    assert "<@U1> asked" in str(shared["blocks"]) and "$12" in shared["text"] and "feedback" in str(shared["blocks"])
    click_share(fake_slack, bot, response_id, answer)
    fake_slack.wait_for(lambda: "already been shared" in str(fake_slack.responses[response_id]))
    assert len(posted_in_channel(fake_slack)) == 1


@pytest.mark.shared_serve
def test_only_the_asker_can_share_their_answer(fake_slack, bot):
    _, response_id = ask(fake_slack, bot)
    answer = private_answer(fake_slack, response_id)
    click_share(fake_slack, bot, response_id, answer, user="U2")
    fake_slack.wait_for(lambda: "Only the person who asked" in str(fake_slack.responses[response_id]))
    assert posted_in_channel(fake_slack) == []


@pytest.mark.shared_serve
def test_a_share_slack_refuses_says_why_and_can_be_tried_again(fake_slack, bot):
    _, response_id = ask(fake_slack, bot)
    answer = private_answer(fake_slack, response_id)
    fake_slack.fail("chat.postMessage", Fault(error="not_in_channel"))
    click_share(fake_slack, bot, response_id, answer)
    fake_slack.wait_for(lambda: "not_in_channel" in str(fake_slack.responses[response_id]))
    click_share(fake_slack, bot, response_id, answer)
    fake_slack.wait_for(lambda: posted_in_channel(fake_slack))
