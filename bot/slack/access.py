"""Which collections a channel may search, from a small YAML file (SLACK_CHANNELS_FILE).

default: [help]            # DMs and channels not listed; omit for every collection
channels:
  C0123ABCD: [help, api]   # by channel ID, which survives renames
  C0999ZZZZ:
    collections: [api]
    follow_ups: true       # answer replies in threads the bot answered, without a mention
    escalate_to: C0SUPPORT # "Ask a person" posts here (default: SLACK_ESCALATION_CHANNEL)
    escalate_mention: S0123ABCD  # and mentions this user group
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from kb.errors import SupportbotError


class AccessConfigError(SupportbotError, ValueError):
    pass


@dataclass(frozen=True)
class ChannelRule:
    collections: list[str] | None  # None: every collection
    follow_ups: bool = False
    escalate_to: str | None = None  # the channel "Ask a person" posts to (None: no button)
    escalate_mention: str | None = None  # a user group (S...) mentioned there


@dataclass
class Access:
    default: ChannelRule = field(default_factory=lambda: ChannelRule(None))
    channels: dict[str, ChannelRule] = field(default_factory=dict)

    def rule(self, channel: str, is_dm: bool) -> ChannelRule:
        return self.default if is_dm else self.channels.get(channel, self.default)

    @classmethod
    def load(cls, path: Path | None, escalate_to: str | None = None, escalate_mention: str | None = None) -> Access:
        """escalate_to / escalate_mention (SLACK_ESCALATION_CHANNEL / _MENTION): where a rule names none."""
        access = cls._read(path)
        if not escalate_to:
            return access
        fill = lambda r: (
            r if r.escalate_to else replace(r, escalate_to=escalate_to, escalate_mention=r.escalate_mention or escalate_mention)
        )
        return cls(fill(access.default), {cid: fill(r) for cid, r in access.channels.items()})

    @classmethod
    def _read(cls, path: Path | None) -> Access:
        if path is None:
            return cls()
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as e:
            raise AccessConfigError(f"SLACK_CHANNELS_FILE {path}: {e}") from e
        if not isinstance(data, dict):
            raise AccessConfigError(f"SLACK_CHANNELS_FILE {path}: expected a mapping with 'default' and 'channels'")
        return cls(
            _rule(data.get("default"), path, "default"),
            {str(cid): _rule(value, path, str(cid)) for cid, value in (data.get("channels") or {}).items()},
        )


def _rule(value, path, where) -> ChannelRule:
    if value is None:
        return ChannelRule(None)
    if isinstance(value, list):
        return ChannelRule([str(c) for c in value])
    if isinstance(value, dict):
        cols = value.get("collections")
        return ChannelRule(
            [str(c) for c in cols] if cols is not None else None,
            bool(value.get("follow_ups", False)),
            _slack_id(value.get("escalate_to"), path, where, "C"),
            _slack_id(value.get("escalate_mention"), path, where, "S"),
        )
    raise AccessConfigError(f"SLACK_CHANNELS_FILE {path}: '{where}' must be a list of collections or a mapping")


def _slack_id(value, path, where, kind: str) -> str | None:
    """A channel (C..., G...) or user group (S...) ID as Slack writes them; anything else is a config error."""
    if value is None:
        return None
    text = str(value)
    if not re.fullmatch(r"[A-Z0-9]{2,30}", text) or (kind == "S" and not text.startswith("S")):
        what = "a user group ID (S...)" if kind == "S" else "a channel ID (C...)"
        raise AccessConfigError(f"SLACK_CHANNELS_FILE {path}: '{where}' escalation must be {what}, not {text!r}")
    return text
