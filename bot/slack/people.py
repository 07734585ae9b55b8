"""People's names, for what the bot writes about them without pinging them, and for the review page."""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

log = logging.getLogger(__name__)


class People:
    """People's names, from users.info once each per process (the scope users:read); each one learned is handed to
    `remember` (the log's people table, bot.logs.names, which never raises)."""

    def __init__(self, remember: Callable[[str, str], None] | None = None) -> None:
        self._names: dict[str, str | None] = {}
        self._remember = remember

    def lookup(self, client: WebClient, user: str | None) -> str | None:
        if not user:
            return None
        if user not in self._names:
            try:
                profile = (client.users_info(user=user).get("user") or {}).get("profile") or {}
            except (SlackApiError, OSError) as e:
                log.info(
                    "users.info failed for %s: %s",
                    user,
                    getattr(e, "response", {}).get("error") if isinstance(e, SlackApiError) else e,
                )
                return None
            found = profile.get("display_name") or profile.get("real_name") or None
            self._names[user] = found
            if found and self._remember is not None:
                self._remember(user, found)
        return self._names[user]

    def name(self, client: WebClient, user: str | None) -> str:
        return self.lookup(client, user) or "Someone"
