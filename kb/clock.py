"""Time as the database keeps it: aware UTC datetimes."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def as_utc(t: datetime) -> datetime:
    """A stored time as an aware one: SQLite hands timestamps back without their zone (they were written in UTC)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)
