"""People's names, for what the bot writes about them without pinging them."""

from __future__ import annotations

import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

log = logging.getLogger(__name__)


class People:
    """People's names, from users.info once each (the scope users:read): a relay says who wrote, without pinging."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def name(self, client: WebClient, user: str | None) -> str:
        if not user:
            return "Someone"
        if user not in self._names:
            try:
                profile = (client.users_info(user=user).get("user") or {}).get("profile") or {}
                found = profile.get("display_name") or profile.get("real_name")
            except SlackApiError as e:
                log.info("users.info failed for %s: %s", user, e.response.get("error"))
                return "Someone"
            self._names[user] = found or "Someone"
        return self._names[user]
