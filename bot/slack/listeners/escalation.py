"""The "Ask a person" button (under answers, abstentions, failures and private /ask answers): the question, the
asker, where it was asked, the bot's answer with its sources and a link to the thread go to the channel's
escalation channel (mentioning its support group), once per question however often it is clicked."""

from __future__ import annotations

import logging
from functools import partial

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.logs.store import escalate, unescalate
from bot.metrics import ESCALATIONS
from bot.slack.context import Slack
from bot.slack.message import is_dm_channel
from bot.slack.render import escalation_message, section
from bot.slack.replies import tell_clicker

log = logging.getLogger(__name__)

# Only what is true: a person can reply in a channel's thread; a DM with the bot, or a private /ask answer, they
# cannot see, so they will write to the asker themselves. channel: a configured ID.
ASKED = "I've asked the support team in <#{channel}> to help with this; they can reply in this thread."
ASKED_PRIVATELY = "I've asked the support team in <#{channel}> to help with this; someone will message you directly."
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
        asked_in = row["channel"] or channel
        rule = slack.access.rule(asked_in, is_dm=is_dm_channel(asked_in))
        target = rule.escalate_to
        if not target:
            ESCALATIONS.labels("no_channel").inc()
            log.warning("escalation of %s: no escalation channel is configured", log_id)
            return
        permalink = None
        if thread and not private and not is_dm_channel(channel):
            try:
                permalink = client.chat_getPermalink(channel=channel, message_ts=thread).get("permalink")
            except SlackApiError as e:
                log.warning("chat.getPermalink failed in %s: %s", channel, e.response.get("error"))
        try:
            client.chat_postMessage(
                channel=target, unfurl_links=False, **escalation_message(row, user, permalink, rule.escalate_mention)
            )
        except SlackApiError as e:  # e.g. the bot is not in that channel: undo, so a later click can succeed
            unescalate(slack.runtime.engine, log_id)
            why = e.response.get("error")
            ESCALATIONS.labels("post_failed").inc()
            log.error("could not post the escalation of %s to %s: %s", log_id, target, why)
            tell(f"{COULD_NOT} ({why})")
            return
        ESCALATIONS.labels("handed_over").inc()
        if private or is_dm_channel(channel):
            told = ASKED_PRIVATELY.format(channel=target)
            if private:
                tell(told)
                return
        else:
            told = ASKED.format(channel=target)
        client.chat_postMessage(channel=channel, thread_ts=thread, text=told, blocks=[section(told)])
