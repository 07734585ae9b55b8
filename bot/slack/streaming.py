"""Claude's answer streamed into its Slack thread as it is written (chat.startStream, appendStream, stopStream).

Only verified text arrives here (bot.agent.stream). The stream starts with the first verified sentence and ends
with the sources and buttons. When the finished answer is not what was streamed - a later turn rewrote it, or
the model failed and the docs answered instead - the message is corrected in place (chat.update), so the
thread never holds two versions. When Slack refuses to stream, nothing was shown and the answer is posted whole.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.web.chat_stream import ChatStream

from bot.agent.types import Answer
from bot.metrics import SLACK_ERRORS
from bot.slack.claims import Job
from bot.slack.mrkdwn import escape
from bot.slack.render import answer_messages, context, trailer_blocks

log = logging.getLogger(__name__)

STREAM_LIMIT = 12_000  # Slack takes this much markdown_text a call; past it in total, the rest waits for the finish


class SlackStream:
    def __init__(self, client: WebClient, job: Job, on_start: Callable[[str], None] | None = None) -> None:
        """on_start: told the streamed message's ts once it exists (stored with the claim)."""
        self.client = client
        self.job = job
        self.on_start = on_start
        self.shown = ""  # verified answer text sent so far
        self.held = ""  # verified text not sent yet: the start of a table row
        self.broken = False  # Slack refused or dropped the stream: show nothing more through it
        self._stream: ChatStream | None = None

    @property
    def started(self) -> bool:
        return self._stream is not None and self._stream.ts is not None

    def append(self, text: str) -> None:
        """Verified text from the model: on its way to the thread at once, but a table row only when it is whole
        (half a row shows as a garbled line). What is held back goes with the next text, or with the finish."""
        self.held += text
        text, self.held = whole_rows(self.held)
        if not text or self.broken or len(self.shown) + len(text) > STREAM_LIMIT:
            return
        try:
            if self._stream is None:
                self._stream = self.client.chat_stream(
                    channel=self.job.channel,
                    thread_ts=self.job.root,
                    recipient_team_id=self.job.team,
                    recipient_user_id=self.job.user,
                    buffer_size=1,  # every verified block is sent when it is ready
                )
            self._stream.append(markdown_text=escape(text))
            if not self.shown and self.on_start is not None and self._stream.ts:
                self.on_start(self._stream.ts)
            self.shown += text
        except SlackApiError as e:
            SLACK_ERRORS.labels("chat.stream").inc()
            log.info("streaming to %s stopped (%s): the answer will be posted whole", self.job.channel, e.response.get("error"))
            self.broken = True

    def finish(self, answer: Answer, notice: str | None = None, escalate: bool = False) -> bool:
        """End the streamed message with the sources and buttons (or correct it to the finished answer). False when
        nothing reached the thread, so the caller posts the answer whole."""
        stream = self._stream
        if stream is None or stream.ts is None:
            return False
        trailer = trailer_blocks(answer, escalate)
        if notice:
            trailer.insert(0, context([escape(notice)]))
        if not self.broken and answer.status == "answered" and answer.answer.startswith(self.shown):
            rest = answer.answer[len(self.shown) :]
            try:
                stream.stop(markdown_text=escape(rest) if rest else None, blocks=trailer)
                return True
            except SlackApiError as e:  # the stream expired, say: put the whole answer in the message instead
                SLACK_ERRORS.labels("chat.stopStream").inc()
                log.info(
                    "chat.stopStream failed in %s (%s): updating the message instead", self.job.channel, e.response.get("error")
                )
        else:
            try:
                stream.stop()
            except SlackApiError as e:
                log.info("chat.stopStream failed in %s: %s", self.job.channel, e.response.get("error"))
        first, *more = answer_messages(answer, notice, escalate)
        self.client.chat_update(channel=self.job.channel, ts=stream.ts, **first)
        for message in more:
            self.client.chat_postMessage(channel=self.job.channel, thread_ts=self.job.root, unfurl_links=False, **message)
        return True


def whole_rows(text: str) -> tuple[str, str]:
    """(what may be shown now, what waits): a last line that is an unfinished table row waits for its newline."""
    start = text.rfind("\n") + 1
    if text[start:].lstrip().startswith("|"):
        return text[:start], text[start:]
    return text, ""
