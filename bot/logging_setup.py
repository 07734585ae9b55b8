"""How `serve` writes its log: plain lines for a person at a terminal, one JSON object a line for a log
pipeline (LOG_FORMAT=json).

What an operator reads is the bot's own lines. Other libraries speak only at WARNING and above: their INFO
chatter (APScheduler's line per job run, Alembic's line per migration, slack_sdk's retries) says nothing an
operator acts on, and a library's debug output can hold request headers, and so tokens. The bot's event lines
(an answer, a sync, an encoding pass: the records logged with `extra={"event": ...}`) are kept at INFO whatever
LOG_LEVEL says, so LOG_LEVEL=WARNING quiets the bot's detail without hiding what it did."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from datetime import UTC, datetime

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# Bolt reads SLACK_BOT_TOKEN from the environment even when it is handed a client, then warns that it ignores it.
BOLT_TOKEN_WARNING = "As you gave `client` as well, `token` will be unused."


class KeepEvents(logging.Filter):
    """Below `level`, let through only the bot's event lines at INFO."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= self.level:
            return True
        return record.levelno >= logging.INFO and getattr(record, "event", None) is not None


class DropLines(logging.Filter):
    """Leaves out a library's lines that `unwanted` picks by their message."""

    def __init__(self, unwanted: Callable[[str], bool]) -> None:
        super().__init__()
        self.unwanted = unwanted

    def filter(self, record: logging.LogRecord) -> bool:
        return not self.unwanted(record.getMessage())


# APScheduler's line when a job is due while its last run goes on. Every job of the bot runs one at a time on purpose
# (max_instances=1, coalesce): the skip is the design, and a heartbeat slower than its beat is reported by the bot
# itself (bot.slack.app.keep_leases), in words an operator can act on.
OVERLAP_SKIP = "skipped: maximum number of running instances reached"


def _iso_ms(record: logging.LogRecord) -> str:
    """2026-12-01T14:41:44.768+00:00: milliseconds, and the zone, for a pipeline that orders and joins lines."""
    return datetime.fromtimestamp(record.created, UTC).astimezone().isoformat(timespec="milliseconds")


def configure_logging(level: str, fmt: str) -> None:
    threshold = logging.getLevelName(level) if isinstance(level, str) else level
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        from pythonjsonlogger.json import JsonFormatter

        class Formatter(JsonFormatter):
            def formatTime(self, record, datefmt=None):
                return _iso_ms(record)

        # Fields: time, level, logger, message, and whatever a call adds with extra= (event, log_id, channel, ms...).
        handler.setFormatter(
            Formatter(
                "{asctime}{levelname}{name}{message}",
                style="{",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    handler.addFilter(KeepEvents(threshold))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    logging.getLogger("bot").setLevel(min(threshold, logging.INFO))
    logging.getLogger("kb").setLevel(min(threshold, logging.INFO))
    logging.getLogger("slack_bolt.App").addFilter(DropLines(BOLT_TOKEN_WARNING.__eq__))
    logging.getLogger("apscheduler.scheduler").addFilter(DropLines(lambda message: OVERLAP_SKIP in message))
