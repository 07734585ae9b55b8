"""The "Ask a person" button (under answers, abstentions, failures and private /ask answers): the question, the
asker, where it was asked, the bot's answer with its sources and a link to the thread go to the channel's
escalation channel (mentioning its support group), once per question however often it is clicked. From a thread (a
channel's or a DM's) the hand-over is a conversation (bot.slack.handover) until either side clicks "Mark resolved"."""

from __future__ import annotations

import logging
from functools import partial

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.logs.handovers import handover_of, open_handover, resolve
from bot.logs.store import escalate, unescalate
from bot.metrics import ESCALATIONS
from bot.slack.context import Slack
from bot.slack.handover import resolved_note
from bot.slack.message import is_dm_channel, thread_link
from bot.slack.render import escalation_message, resolve_blocks, section
from bot.slack.replies import tell_clicker

log = logging.getLogger(__name__)

# Only what is true: from a thread (a channel's or a DM's) the support team's replies are relayed into it; a private
# /ask answer has no thread, so someone will write to the asker. channel: a configured ID.
ASKED = "I've asked the support team in <#{channel}> to help with this; their reply will appear here."
ASKED_PRIVATELY = "I've asked the support team in <#{channel}> to help with this; someone will message you directly."
RESOLVED_ALREADY = "This hand-over is already marked resolved."
NOT_YOURS = "Only the person who asked, or the support team in its channel, can mark this resolved."
ALREADY = "A person has already been asked about this question."
COULD_NOT = "Sorry, I couldn't reach the support channel, so no one was asked yet. Please try again, or ask there directly."


def register(app: App, slack: Slack) -> None:
    @app.action("escalate")
    def on_escalate(ack, body, action, client, respond):
        ack()
        user = (body.get("user") or {}).get("id")
        team = (body.get("team") or {}).get("id")
        channel = (body.get("channel") or {}).get("id")
        message = body.get("message") or {}
        thread = message.get("thread_ts") or message.get("ts")
        private = bool((body.get("container") or {}).get("is_ephemeral"))  # a private /ask answer: no thread to link
        tell = partial(tell_clicker, body, client, respond)

        try:
            log_id = int(action.get("value") or 0)
        except ValueError:
            return
        row = escalate(slack.runtime.engine, log_id, user, team, channel)
        if row is None:  # unknown, another workspace's, another conversation's, or already handed over
            tell(ALREADY)
            ESCALATIONS.labels("refused").inc()
            log.info("escalation of %s refused: unknown, foreign or already escalated", log_id)
            return
        slack.people.lookup(client, user)
        asked_in = row["channel"] or channel
        rule = slack.access.rule(asked_in, is_dm=is_dm_channel(asked_in))
        target = rule.escalate_to
        if not target:
            ESCALATIONS.labels("no_channel").inc()
            log.warning("escalation of %s: no escalation channel is configured", log_id)
            return
        public_thread = thread and not private and not is_dm_channel(channel)
        permalink = thread_link(slack.workspace_url, channel, thread, thread) if public_thread else None
        relayed = bool(thread and not private and row["channel"] and row["thread_ts"])
        try:
            posted = client.chat_postMessage(
                channel=target,
                unfurl_links=False,
                **escalation_message(row, user, permalink, rule.escalate_mention, relayed=relayed),
            )
        except SlackApiError as e:  # e.g. the bot is not in that channel: undo, so a later click can succeed
            unescalate(slack.runtime.engine, log_id)
            why = e.response.get("error")
            ESCALATIONS.labels("post_failed").inc()
            log.error("could not post the escalation of %s to %s: %s", log_id, target, why)
            tell(f"{COULD_NOT} ({why})")
            return
        ESCALATIONS.labels("handed_over").inc()
        if not relayed:
            tell(ASKED_PRIVATELY.format(channel=target))
            return
        open_handover(
            slack.runtime.engine, log_id, (posted["channel"], posted["ts"]), (row["channel"], row["thread_ts"]), row["user_id"]
        )
        told = ASKED.format(channel=target)
        client.chat_postMessage(
            channel=row["channel"], thread_ts=row["thread_ts"], text=told, blocks=[section(told), *resolve_blocks(log_id)]
        )

    @app.action("resolve_handover")
    def on_resolve(ack, body, action, client, respond):
        ack()
        user = (body.get("user") or {}).get("id")
        team = (body.get("team") or {}).get("id")
        channel = (body.get("channel") or {}).get("id")
        tell = partial(tell_clicker, body, client, respond)
        try:
            handover = handover_of(slack.runtime.engine, int(action.get("value") or 0))
        except ValueError:
            return
        if handover is None or (handover.team and handover.team != team):
            return  # a forged value, or another workspace's
        if channel not in (handover.post_channel, handover.asker_channel):
            tell(NOT_YOURS)
            return
        if not resolve(slack.runtime.engine, handover.question_id, user):
            tell(RESOLVED_ALREADY)
            return
        ESCALATIONS.labels("resolved").inc()
        note = resolved_note(slack.people.name(client, user))  # and the review page learns the name
        for where, thread in ((handover.post_channel, handover.post_ts), (handover.asker_channel, handover.asker_thread)):
            try:
                client.chat_postMessage(channel=where, thread_ts=thread, text=note["elements"][0]["text"], blocks=[note])
            except SlackApiError as e:
                log.warning(
                    "could not say the hand-over of %s is resolved in %s: %s",
                    handover.question_id,
                    where,
                    e.response.get("error"),
                )
