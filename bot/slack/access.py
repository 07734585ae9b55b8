"""Which collections a channel may search, from a small YAML file (SLACK_CHANNELS_FILE).

default: [help]            # DMs and channels not listed; omit for every collection
channels:
  C0123ABCD: [help, api]   # by channel ID, which survives renames
  C0999ZZZZ:
    collections: [api]
    follow_ups: true       # answer replies in threads the bot answered, without a mention
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kb.errors import SupportbotError


class AccessConfigError(SupportbotError, ValueError):
    pass


@dataclass(frozen=True)
class ChannelRule:
    collections: list[str] | None  # None: every collection
    follow_ups: bool = False


@dataclass
class Access:
    default: ChannelRule = field(default_factory=lambda: ChannelRule(None))
    channels: dict[str, ChannelRule] = field(default_factory=dict)

    def rule(self, channel: str, is_dm: bool) -> ChannelRule:
        return self.default if is_dm else self.channels.get(channel, self.default)

    @classmethod
    def load(cls, path: Path | None) -> Access:
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
        return ChannelRule([str(c) for c in cols] if cols is not None else None, bool(value.get("follow_ups", False)))
    raise AccessConfigError(f"SLACK_CHANNELS_FILE {path}: '{where}' must be a list of collections or a mapping")
