"""A hand-over is a conversation: a person's reply in the hand-over thread reaches the asker's thread (a channel's
or a DM's), and the asker's replies there reach the hand-over thread, until someone marks it resolved.

Each message is relayed once, whichever process sees it and however often Slack delivers it (a claim in the
database, as answers are), never the bot's own, and its text can ping no one: special mentions and people's
mentions become plain words.
"""

from __future__ import annotations

import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.logs.handovers import Handover, first_reply, handover_at_post, open_handover_in
from bot.logs.team_answers import add_candidate
from bot.metrics import HANDOVER_FIRST_REPLY
from bot.slack.claims import claim, mark_answered
from bot.slack.context import Slack
from bot.slack.message import SlackMessage, thread_link
from bot.slack.mrkdwn import escape
from bot.slack.render import context, section
from bot.slack.said import as_words, plain

log = logging.getLogger(__name__)

RELAY_CHARS = 3000  # of one relayed message: a section block holds 3,000 characters


def quiet(text: str) -> str:
    """A person's Slack text, relayed elsewhere: links stay links, every mention becomes a plain word (@here,
    @channel, a user group, a person), so the relay pings no one."""

    def link(target: str, label: str, token: str) -> str:
        kept = target.startswith(("http://", "https://", "mailto:"))
        return token if kept else escape(token[1:-1])

    return as_words(text, lambda sign, name, _: sign + escape(name), link)


def relayed_text(who: str, role: str, msg: SlackMessage) -> str:
    said = quiet(msg.text)[:RELAY_CHARS]
    attached = f"\n_(attached: {escape(', '.join(msg.file_names))})_" if msg.file_names else ""
    return f"*{escape(who)}* {role}: {said}{attached}"


def relay(slack: Slack, client: WebClient, msg: SlackMessage) -> bool:
    """Whether this message belongs to a hand-over (and was relayed, or left for another process that did)."""
    if msg.why_ignore(answer_bots=False) or msg.subtype == "bot_message" or not msg.user or not msg.in_thread:
        return False  # edits, joins, any bot's post (the relay's own included): only people's words are relayed
    engine = slack.runtime.engine
    from_support = handover_at_post(engine, msg.channel, msg.root)
    if from_support is not None:  # a person's reply: it reaches the asker, even after the hand-over is resolved
        _send(slack, client, msg, from_support.asker_channel, from_support.asker_thread, "from support", from_support)
        return True
    if msg.mentions_bot:  # a question to the bot in that thread: the bot answers it
        return False
    handover = open_handover_in(engine, msg.channel, msg.root)
    if handover is None or (handover.asker_user and msg.user != handover.asker_user):
        return False
    _send(slack, client, msg, handover.post_channel, handover.post_ts, "(who asked)", None)
    return True


def _send(
    slack: Slack, client: WebClient, msg: SlackMessage, channel: str, thread: str, role: str, answered: Handover | None
) -> None:
    engine = slack.runtime.engine
    key = [f"relay:{msg.channel}:{msg.ts}"]
    if not claim(engine, key):
        log.debug("relay of %s in %s: already relayed", msg.ts, msg.channel)
        return
    name = slack.people.name(client, msg.user)
    text = relayed_text(name, role, msg)
    try:
        client.chat_postMessage(channel=channel, thread_ts=thread, text=text, blocks=[section(text)], unfurl_links=False)
    except SlackApiError as e:
        log.error("could not relay %s from %s to %s: %s", msg.ts, msg.channel, channel, e.response.get("error"))
        return  # the claim stays: a retry would post into the same failure; the review shows the hand-over's state
    mark_answered(engine, key)
    log.info("relayed %s from %s to %s", msg.ts, msg.channel, channel, extra={"event": "handover_relay"})
    if answered is not None:  # a person's answer: the hand-over's state, and a candidate team answer
        waited = first_reply(engine, answered.question_id)
        if waited is not None:
            HANDOVER_FIRST_REPLY.observe(waited)
        if msg.text.strip():  # what the person answered, for a docs owner to publish (`supportbot answers`)
            link = thread_link(slack.workspace_url, msg.channel, msg.ts, msg.root)
            add_candidate(engine, answered.question_id, answered.question, plain(msg.text), (msg.user, name), link)


def resolved_note(by: str | None) -> dict:
    """The line both threads of a hand-over read when someone marks it resolved."""
    return context([f"✅ Marked resolved{f' by {escape(by)}' if by else ''}."])
