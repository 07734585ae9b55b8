"""A docs owner tells a stale answer's asker, in the answer's thread, what the docs say now: once, in their name."""

import re

import pytest
from slack_sdk import WebClient

from bot.logs.stale import stale_by_page
from bot.logs.store import Origin
from bot.review.app import create_app
from bot.runtime import Runtime
from bot.settings import load_settings
from tests.fakes.slack import Fault

WARRANTY = "help/warranty.md"
THREAD = "1700000000.000100"
AUTH = {"Authorization": "Bearer s3cret-review"}


@pytest.fixture
def stale(db_url, docs):
    """A warranty answer in a Slack thread, overtaken by a docs change."""
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25", docs_base_url="https://docs.example.com"))
    rt.sync()
    origin = Origin("slack", channel="C_HELP", user_id="U1", thread_ts=THREAD, message_ts=THREAD)
    answer = rt.ask("how long is the warranty on pods pro", answerer="local", origin=origin)
    page = docs / WARRANTY
    page.write_text(page.read_text().replace("Pods Pro with a 2-year", "Pods Pro with a 3-year"))
    assert rt.sync().stale_answers == 1
    return rt, answer.log_id


def review_client(rt, fake_slack):
    slack = WebClient(token="xoxb-test", base_url=fake_slack.api_url)
    client = create_app(rt.engine, token="s3cret-review", slack=slack, links=rt.links()).test_client()
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/stale", headers=AUTH).text).group(1)
    return client, csrf


def test_the_asker_is_told_in_the_thread_what_the_page_says_now_once_in_the_owners_name(stale, fake_slack):
    rt, qid = stale
    client, csrf = review_client(rt, fake_slack)
    assert "Tell the asker" in client.get("/stale", headers=AUTH).text
    told = client.post(f"/questions/{qid}/tell", data={"csrf": csrf, "owner": "Dana <!channel>"}, headers=AUTH)
    assert told.status_code == 303
    [notice] = fake_slack.replies("C_HELP", THREAD)
    assert "Dana &lt;!channel&gt;, who looks after them" in notice["text"], "a name from a form pings no one"
    assert "> Auralis Pods 2 come with a 1-year limited warranty and Auralis Pods Pro with a 3-year" in notice["text"]
    assert "<https://docs.example.com/help/warranty#" in notice["text"], "the new line's source, linked as answers link"
    again = client.post(f"/questions/{qid}/tell", data={"csrf": csrf, "owner": "Sam"}, headers=AUTH)
    assert again.status_code == 409 and "told already" in again.text
    assert len(fake_slack.replies("C_HELP", THREAD)) == 1
    [entry] = stale_by_page(rt.engine)[WARRANTY]
    assert entry["told_by"] == "Dana <!channel>" and "Its asker was told by Dana" in client.get("/stale", headers=AUTH).text


def test_a_post_slack_refuses_tells_the_owner_and_can_be_tried_again(stale, fake_slack):
    rt, qid = stale
    client, csrf = review_client(rt, fake_slack)
    fake_slack.fail("chat.postMessage", Fault(error="channel_not_found"))
    refused = client.post(f"/questions/{qid}/tell", data={"csrf": csrf, "owner": "Dana"}, headers=AUTH)
    assert refused.status_code == 409 and "channel_not_found" in refused.text and "try again" in refused.text
    assert fake_slack.replies("C_HELP", THREAD) == []
    assert client.post(f"/questions/{qid}/tell", data={"csrf": csrf, "owner": "Dana"}, headers=AUTH).status_code == 303
    assert len(fake_slack.replies("C_HELP", THREAD)) == 1


def test_without_the_bots_token_or_a_name_nothing_is_posted(stale, fake_slack):
    rt, qid = stale
    read_only_slack = create_app(rt.engine, token="s3cret-review").test_client()
    assert "Tell the asker" not in read_only_slack.get("/stale", headers=AUTH).text
    client, csrf = review_client(rt, fake_slack)
    assert client.post(f"/questions/{qid}/tell", data={"csrf": csrf, "owner": " "}, headers=AUTH).status_code == 422
    assert client.post(f"/questions/{qid}/tell", data={"csrf": "guess", "owner": "Dana"}, headers=AUTH).status_code == 403
    assert fake_slack.called("chat.postMessage") == []
