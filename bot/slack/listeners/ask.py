"""/ask QUESTION: an answer only the asker sees (through the command's response_url), in place of its "Searching..."
note, with feedback buttons and a "Share in channel" button that posts it there for everyone, once, and only when
the asker clicks it."""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.logs.store import Origin, logged_answer
from bot.slack.answering import NOT_READ, wait_for_index
from bot.slack.claims import claim, forget, mark_answered
from bot.slack.context import Slack
from bot.slack.message import is_dm_channel
from bot.slack.mrkdwn import escape
from bot.slack.render import answer_messages, plain_message, reason_message, shared_message
from bot.slack.said import asked
from kb.chatter import is_chatter

log = logging.getLogger(__name__)

USAGE = "Ask me a question about our docs, for example: /ask how long is the warranty?"
SEARCHING = "Searching the docs for: {question}"
NOT_YOURS = "Only the person who asked can share this answer."
SHARED_ALREADY = "This answer has already been shared."
CANNOT_POST = "I can't post in this channel ({why}). Invite me with /invite, or share the answer yourself."


def register(app: App, slack: Slack) -> None:
    @app.command("/ask")
    def on_ask(ack, command, respond):
        question = asked(command.get("text") or "")[: slack.max_chars]
        if not question or is_chatter(question):
            ack(response_type="ephemeral", text=USAGE)
            return
        ack(response_type="ephemeral", text=SEARCHING.format(question=escape(" ".join(question.split()))[:200]))
        channel, user, team = command.get("channel_id"), command.get("user_id"), command.get("team_id")
        rule = slack.access.rule(channel or "", is_dm=is_dm_channel(channel))
        if not wait_for_index(slack, lambda message: private(respond, message, replace=True)):
            if not slack.stopping.is_set():
                private(respond, reason_message(NOT_READ), replace=True)
            return
        try:
            answer = slack.runtime.ask(
                question,
                collections=rule.collections,
                origin=Origin("slack", team=team, channel=channel, user_id=user, visibility="private"),
            )
            messages = answer_messages(answer, private=True, escalate=bool(rule.escalate_to))
        except Exception:
            log.exception("/ask failed in %s", channel)
            messages = [reason_message("Sorry, something went wrong while I was answering.")]
        for i, message in enumerate(messages):  # the first takes the place of "Searching the docs for: ..."
            private(respond, message, replace=i == 0)

    @app.action("share_answer")
    def on_share(ack, body, action, client, respond):
        ack()
        user = (body.get("user") or {}).get("id")
        team = (body.get("team") or {}).get("id")
        channel = (body.get("channel") or {}).get("id")
        try:
            log_id = int(action.get("value") or 0)
        except ValueError:
            return
        answer = logged_answer(slack.runtime.engine, log_id, user, team)
        if answer is None or not channel:  # someone else's answer, another workspace's, or a forged click
            tell(respond, NOT_YOURS)
            log.info("share of %s refused for %s", log_id, user)
            return
        key = [f"share:{log_id}"]
        if not claim(slack.runtime.engine, key):
            tell(respond, SHARED_ALREADY)
            return
        rule = slack.access.rule(channel, is_dm=is_dm_channel(channel))
        try:
            for message in shared_message(answer, user, escalate=bool(rule.escalate_to)):
                client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False, **message)
        except SlackApiError as e:  # not in the channel, say: tell the asker, who may try again
            forget(slack.runtime.engine, key)
            why = e.response.get("error")
            log.warning("could not share %s in %s: %s", log_id, channel, why)
            tell(respond, CANNOT_POST.format(why=why))
            return
        mark_answered(slack.runtime.engine, key)
        respond(delete_original=True)


def private(respond, message: dict, replace: bool = False) -> None:
    """A message only the asker sees, through the command's response_url; replace: in place of the last one."""
    respond(response_type="ephemeral", replace_original=replace, **message)


def tell(respond, text: str) -> None:
    private(respond, plain_message(text))
