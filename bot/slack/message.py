"""A Slack message event read once, at the listener: the rest of the code takes this record, never the raw event."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.slack.claims import Job

ANSWERED_SUBTYPES = (None, "file_share", "bot_message")  # a plain message, one with files, another bot's (if allowed)


def is_dm_channel(channel: str | None, channel_type: str | None = None) -> bool:
    """A direct message: Slack says so, or the channel ID is a DM's (D...)."""
    return channel_type == "im" or str(channel or "").startswith("D")


def thread_link(workspace_url: str | None, channel: str, ts: str, root: str) -> str | None:
    """A message's permalink, as Slack spells them (https://team.slack.com/archives/C123/p1712345678000100, with
    ?thread_ts=...&cid=... for a reply), made here rather than by a chat.getPermalink call
    (the log's link to each question, the hand-over's to the asker's thread, a team answer's to its reply)."""
    if not workspace_url:
        return None
    link = f"{workspace_url.rstrip('/')}/archives/{channel}/p{ts.replace('.', '')}"
    return link + (f"?thread_ts={root}&cid={channel}" if root != ts else "")


def mention_pattern(bot_user_id: str | None) -> re.Pattern:
    return re.compile(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>" if bot_user_id else r"(?!x)x")


def without_mention(text: str | None, bot_user_id: str | None) -> str:
    """The text as the asker meant it: the bot's own @mention removed."""
    return mention_pattern(bot_user_id).sub("", text or "").strip()


@dataclass(frozen=True)
class SlackMessage:
    channel: str
    ts: str
    root: str  # the thread's parent: the message's own ts when it starts one
    is_dm: bool
    channel_type: str | None  # as Slack said: "channel" (public), "group" (private), "im", "mpim"; None on app_mention
    text: str  # with the bot's @mention removed
    user: str | None
    team: str | None
    event_id: str | None
    has_files: bool
    file_names: tuple[str, ...]  # what a person attached: a relayed message names them
    subtype: str | None
    bot_id: str | None  # set when a bot (or an app) posted it
    hidden: bool
    mentions_bot: bool
    bot_user_id: str | None  # the bot's own user id in this workspace

    @classmethod
    def parse(cls, event: dict, body: dict, bot_user_id: str | None) -> SlackMessage:
        ts = event.get("ts") or ""
        channel = str(event.get("channel") or "")
        return cls(
            channel=channel,
            ts=ts,
            root=event.get("thread_ts") or ts,
            is_dm=is_dm_channel(channel, event.get("channel_type")),
            channel_type=event.get("channel_type"),
            text=without_mention(event.get("text"), bot_user_id),
            user=event.get("user"),
            team=body.get("team_id") or event.get("team"),
            event_id=body.get("event_id"),
            has_files=bool(event.get("files")),
            file_names=tuple(
                str(f.get("name") or f.get("title") or "a file") for f in event.get("files") or [] if isinstance(f, dict)
            ),
            subtype=event.get("subtype"),
            bot_id=event.get("bot_id"),
            hidden=bool(event.get("hidden")),
            mentions_bot=bool(mention_pattern(bot_user_id).search(event.get("text") or "")),
            bot_user_id=bot_user_id,
        )

    @property
    def in_thread(self) -> bool:
        """A reply inside a thread (not the thread's first message)."""
        return self.root != self.ts

    def why_ignore(self, answer_bots: bool) -> str | None:
        """A reason to stay quiet, or None to answer."""
        if self.subtype not in ANSWERED_SUBTYPES or (self.subtype == "bot_message" and not answer_bots):
            return f"subtype {self.subtype}"  # edits, deletions, joins, topics... and bots' posts unless SLACK_ANSWER_BOTS
        if self.bot_user_id and self.user == self.bot_user_id:
            return "own message"
        if self.bot_id and not answer_bots:
            return "another bot"
        if self.hidden:
            return "hidden"
        return None

    def job(self) -> Job:
        """The message as a durable job: what answering it needs, from any process."""
        return Job(
            channel=self.channel,
            ts=self.ts,
            root=self.root,
            text=self.text,
            user=self.user,
            team=self.team,
            is_dm=self.is_dm,
            has_files=self.has_files,
            bot_user_id=self.bot_user_id,
            channel_type=self.channel_type,
        )
