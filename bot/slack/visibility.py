"""Who could read a question where it was asked. Known from Slack, never guessed from a channel ID: a message
event says its channel_type; an app_mention does not, so conversations.info (channels:read) is asked once an hour
per channel. Anything Slack does not confirm as a public channel counts as private."""

from __future__ import annotations

import logging
import threading
import time
from typing import Literal

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

log = logging.getLogger(__name__)

Visibility = Literal["public", "private"]
PRIVATE_TYPES = ("im", "mpim", "group")  # a DM, a group DM, a private channel
KEEP_S = 3600.0  # a channel can be made private: ask again after this


class ChannelVisibility:
    """A cache of what conversations.info said, shared by the answer workers."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[Visibility, float]] = {}
        self._lock = threading.Lock()

    def of(self, client: WebClient, channel: str, channel_type: str | None, is_dm: bool) -> Visibility | None:
        """ "public", "private", or None when Slack could not say (treated as private by every reader)."""
        if is_dm or channel_type in PRIVATE_TYPES:
            return "private"
        if channel_type == "channel":
            return "public"
        with self._lock:
            known = self._known.get(channel)
        if known and time.monotonic() - known[1] < KEEP_S:
            return known[0]
        try:
            info = client.conversations_info(channel=channel).get("channel") or {}
        except SlackApiError as e:  # a private channel (no groups:read), or Slack away: not known to be public
            log.debug("conversations.info %s: %s", channel, e.response.get("error"))
            return None
        except OSError as e:
            log.debug("conversations.info %s: %s", channel, e)
            return None
        public = info.get("is_channel") and not any(info.get(k) for k in ("is_private", "is_im", "is_mpim", "is_ext_shared"))
        seen: Visibility = "public" if public else "private"
        with self._lock:
            self._known[channel] = (seen, time.monotonic())
        return seen
