"""Slack's feedback buttons under an answer: one vote per person (a changed mind is a change, not a second vote),
thanked privately; "not helpful" opens an optional "what was wrong?" form whose answer is kept with the vote."""

from __future__ import annotations

import logging
import re

from slack_bolt import App
from slack_sdk.models.blocks import InputBlock, PlainTextInputElement, PlainTextObject
from slack_sdk.models.views import View

from bot.database import retrying
from bot.logs.store import record_feedback, record_reason
from bot.metrics import FEEDBACK
from bot.slack.context import Slack
from bot.slack.replies import tell_clicker

log = logging.getLogger(__name__)

THANKS = {"up": "Thanks for the feedback!", "down": "Thanks: this helps us fix the docs."}
REASON_VIEW = "feedback_reason"


def reason_view(feedback_id: int) -> dict:
    return View(
        type="modal",
        callback_id=REASON_VIEW,
        private_metadata=str(feedback_id),
        title=PlainTextObject(text="Not helpful"),
        submit=PlainTextObject(text="Send"),
        close=PlainTextObject(text="Skip"),
        blocks=[
            InputBlock(
                block_id="reason",
                optional=True,
                label=PlainTextObject(text="What was wrong or missing? (optional)"),
                element=PlainTextInputElement(action_id="text", multiline=True, max_length=1000),
            )
        ],
    ).to_dict()


def register(app: App, slack: Slack) -> None:
    @app.action("feedback")  # Slack's feedback_buttons: value "up:LOG_ID" or "down:LOG_ID"
    @app.action(re.compile(r"^feedback_(up|down)$"))  # the plain buttons of answers posted before them
    def on_feedback(ack, body, action, client, respond):
        ack()
        raw = action.get("value") or ""
        value, _, log_id = raw.partition(":") if ":" in raw else (action["action_id"].removeprefix("feedback_"), "", raw)
        user = (body.get("user") or {}).get("id")
        team = (body.get("team") or {}).get("id")
        if value not in ("up", "down") or not log_id.isdigit() or len(log_id) > 18:  # not a value this bot wrote
            log.info("feedback with an unknown value %r from %s ignored", raw[:80], user)
            return
        try:
            vote = retrying(slack.db_retry_s)(record_feedback, slack.runtime.engine, int(log_id), value, user, team)
        except Exception:
            log.exception("could not record feedback %r", raw)
            return
        if vote is None:  # no person, another workspace's answer, or no such answer
            log.info("feedback %r from %s of %s matched no answer they may vote on", raw[:80], user, team)
            return
        feedback_id, kind = vote
        if kind != "same":
            FEEDBACK.labels(value).inc()
        log.info("feedback %s on %s by %s: %s", value, log_id, user, kind)
        asks_why = value == "down" and kind != "same" and bool(body.get("trigger_id"))
        if asks_why:
            client.views_open(trigger_id=body["trigger_id"], view=reason_view(feedback_id))  # within the trigger's 3 s
        slack.people.lookup(client, user)  # the review page says who voted
        if asks_why:
            return
        if kind != "same":
            try:
                tell_clicker(body, client, respond, THANKS[value])
            except Exception as e:  # a thank-you that cannot be shown is no reason to fail the vote
                log.info("could not thank %s for feedback: %s", user, e)

    @app.view(REASON_VIEW)
    def on_reason(ack, body, view):
        ack()
        text = ((view.get("state") or {}).get("values") or {}).get("reason", {}).get("text", {}).get("value") or ""
        user = (body.get("user") or {}).get("id")
        if text.strip() and not record_reason(slack.runtime.engine, int(view.get("private_metadata") or 0), user, text):
            log.warning("a feedback reason from %s matched no vote of theirs", user)
