"""The same bot over Socket Mode: envelopes over a WebSocket, acknowledged, answered once."""

import pytest

from tests.fakes.socket_mode import FakeSocketMode


@pytest.fixture
def socket_mode(fake_slack):
    fake = FakeSocketMode()
    fake_slack.socket_url = fake.url
    yield fake
    fake.stop()


@pytest.fixture
def socket_bot(start_bot, bot_env, socket_mode):
    bot = start_bot(bot_env | {"SLACK_APP_TOKEN": "xapp-test-token"}, http=False)
    socket_mode.wait_connected()
    return bot


def test_an_event_over_socket_mode_is_acknowledged_and_answered_in_thread(fake_slack, socket_mode, socket_bot):
    msg = fake_slack.user_says("D_ALICE", "How much is express delivery?")
    envelope = socket_mode.push(fake_slack.events_for(msg)[0])
    socket_mode.wait_ack(envelope)
    [reply] = fake_slack.wait_for(lambda: fake_slack.replies("D_ALICE", msg["ts"]))
    assert "$12" in reply["text"]
    assert fake_slack.called("apps.connections.open")


def test_a_redelivered_envelope_is_answered_once(fake_slack, socket_mode, socket_bot):
    msg = fake_slack.user_says("D_ALICE", "Can I go swimming with my earbuds?")
    event = fake_slack.events_for(msg)[0]
    first = socket_mode.push(event)
    again = socket_mode.push(event, retry_attempt=1)
    socket_mode.wait_ack(first)
    socket_mode.wait_ack(again)
    fake_slack.wait_for(lambda: fake_slack.replies("D_ALICE", msg["ts"]))
    fake_slack.wait_for(lambda: "already answered or being answered" in socket_bot.log())
    assert len(fake_slack.replies("D_ALICE", msg["ts"])) == 1
