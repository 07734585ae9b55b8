"""How `serve` writes its log: plain lines for a person at a terminal, one JSON object a line for a log
pipeline (LOG_FORMAT=json). Either way only supportbot's own loggers go below INFO: a library's debug
output can hold request headers, and so tokens."""

from __future__ import annotations

import logging
import sys

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        from pythonjsonlogger.json import JsonFormatter

        # Fields: time, level, logger, message, and whatever a call adds with extra= (event, log_id, channel, ms...).
        handler.setFormatter(
            JsonFormatter(
                "{asctime}{levelname}{name}{message}",
                style="{",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
                datefmt="%Y-%m-%dT%H:%M:%S%z",
            )
        )
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("bot").setLevel(level)
    # APScheduler says "Running job ... executed successfully" at INFO for every beat of the lease heartbeat
    # (several a second): its own warnings and errors are what an operator needs of it.
    logging.getLogger("apscheduler").setLevel(
        max(logging.WARNING, logging.getLevelName(level) if isinstance(level, str) else level)
    )
