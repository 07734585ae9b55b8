"""/healthz, /readyz and /metrics: what a load balancer, an orchestrator and Prometheus ask of a running bot.

Served on the Slack events port in HTTP mode, and on HEALTH_PORT in Socket Mode. None of them needs a token:
they say whether the bot works, never what it was asked.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
from collections.abc import Callable

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.database import first_line
from bot.metrics import INDEX_CHUNKS, INDEX_VERSION, REGISTRY
from bot.runtime import Runtime
from kb.database import sqlite_path
from kb.state import chunk_count

PATHS = ("/healthz", "/readyz", "/metrics")
MIN_FREE_BYTES = 64 * 2**20  # below this a SQLite database's disk is about to refuse the answer log's writes
log = logging.getLogger(__name__)


class Health:
    def __init__(self, runtime: Runtime, stopping: threading.Event, slack_error: Callable[[], str | None] = lambda: None):
        self.runtime = runtime
        self.stopping = stopping
        self.slack_error = slack_error  # why Slack is not usable, or None

    def not_ready(self) -> list[str]:
        """Why this process should not be sent questions now (empty: it is ready)."""
        reasons = []
        if self.stopping.is_set():
            reasons.append("stopping")
        try:
            self._count_chunks()
            committed = self.runtime.committed_version()
        except Exception as e:  # why goes to the log: /readyz answers anyone, and must not name hosts or ports
            log.warning("readiness: the database is unreachable: %s", first_line(e))
            reasons.append(f"database unreachable ({type(e).__name__})")
        else:
            low = self._disk_low()
            if low:
                reasons.append(low)
            loaded = self.runtime.searcher.loaded_version
            if committed == 0:
                progress = self.runtime.sync_progress
                reasons.append(
                    "the first sync has not finished" + (f" ({progress[0]:,} of {progress[1]:,} pages)" if progress else "")
                )
            elif loaded != committed:  # the index this process answers from is not the newest: have it load that one
                reasons.append(f"loading index version {committed}" + (f" (serving {loaded})" if loaded else ""))
                self.runtime.searcher.index  # noqa: B018 - touching it starts the load in the background
        slack = self.slack_error()
        if slack:
            reasons.append(f"slack: {slack}")
        return reasons

    def _disk_low(self) -> str | None:
        """A SQLite database whose disk is nearly full cannot log answers: say so before it fails."""
        folder = sqlite_path(self.runtime.settings.database_url)
        if folder is None:
            return None
        try:
            free = shutil.disk_usage(folder.parent).free
        except OSError:
            return None
        return f"disk nearly full ({free / 2**20:.0f} MB free where the database is)" if free < MIN_FREE_BYTES else None

    def detail(self) -> str:
        """What a ready process still fills in: the re-ranking vectors, as they land."""
        index = self.runtime.searcher.index  # touching it reads the vectors that landed since, in the background
        encoded = index.encoded
        if encoded is None or encoded.complete:
            return ""
        return f"; re-ranking vectors {encoded.count:,} of {len(encoded.chunk_ids):,} passages (filling in)"

    def _count_chunks(self) -> int:
        """The index's size, read from the database (which this also proves reachable); kept as the gauge."""
        with self.runtime.engine.connect() as conn:
            n_chunks = chunk_count(conn)
        INDEX_CHUNKS.set(n_chunks)
        return n_chunks

    def metrics(self) -> bytes:
        version = self.runtime.searcher.loaded_version
        if version is not None:
            INDEX_VERSION.set(version)
        with contextlib.suppress(Exception):  # the database is away: the gauge keeps its last value, /readyz says why
            self._count_chunks()
        return generate_latest(REGISTRY)


def health_app(health: Health, fallback=None):
    """A WSGI app for the three paths; anything else goes to `fallback` (the Slack events handler), or 404."""

    def wsgi(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path not in PATHS or environ.get("REQUEST_METHOD", "GET") not in ("GET", "HEAD"):
            if fallback is not None:
                return fallback(environ, start_response)
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found"]
        if path == "/healthz":
            status, body, kind = "200 OK", b"ok\n", "text/plain"
        elif path == "/readyz":
            reasons = health.not_ready()
            status = "503 Service Unavailable" if reasons else "200 OK"
            text = ("not ready: " + "; ".join(reasons)) if reasons else "ready" + health.detail()
            body, kind = text.encode() + b"\n", "text/plain"
        else:
            status, body, kind = "200 OK", health.metrics(), CONTENT_TYPE_LATEST
        start_response(status, [("Content-Type", kind), ("Cache-Control", "no-store")])
        return [body]

    return wsgi
