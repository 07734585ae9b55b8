"""Re-syncing the docs on a schedule, beside the Slack app, without ever blocking an answer."""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler

from bot.metrics import LAST_SYNC_OK, LAST_SYNC_SECONDS, LAST_SYNC_TIME, SYNC_RUNS
from bot.runtime import Runtime
from kb.clock import as_utc
from kb.errors import SupportbotError
from kb.state import last_good_sync_at
from kb.sync_runs import SyncBusy

log = logging.getLogger(__name__)


def sync_is_due(runtime: Runtime) -> bool:
    """An empty index, or no successful sync within the interval."""
    if runtime.index_is_empty():
        return True
    with runtime.engine.connect() as conn:
        last = last_good_sync_at(conn)
    if last is None:
        return True
    return datetime.now(UTC) - as_utc(last) > timedelta(minutes=runtime.settings.sync_interval_minutes)


def run_sync(runtime: Runtime) -> None:
    """One scheduled sync, in a child process: a failure is logged and the previous index keeps serving. Then, in a
    second child, the re-ranking vectors the index lacks (the index already serves without them)."""
    started = time.monotonic()
    try:
        report = sync_in_child(runtime)
    except SyncBusy:
        SYNC_RUNS.labels("busy").inc()
        log.info("scheduled sync skipped: another sync is running")
        return
    except Exception as e:
        _sync_ended("failed", started)
        log.error("scheduled sync failed; the previous index keeps serving: %s", e, extra={"event": "sync", "result": "failed"})
        return
    finally:
        runtime.sync_progress = None
    _sync_ended("ok", started)
    if report["added"] or report["changed"] or report["removed"] or report["embedded"]:
        runtime.searcher.refresh()  # built here, beside the index that keeps answering, then swapped in
    version = runtime.searcher.loaded_version or report["index_version"]
    log.info(
        "synced %s: %d added, %d changed, %d removed, %d skipped; serving index version %d",
        report["docs_dir"],
        len(report["added"]),
        len(report["changed"]),
        len(report["removed"]),
        report["skipped"],
        version,
        extra={"event": "sync", "result": "ok", "seconds": report["seconds"], "index_version": version},
    )
    if runtime.encoder is not None:
        run_encode(runtime)


def run_encode(runtime: Runtime) -> None:
    """Fill in the re-ranking vectors in a child process, for SYNC_TIMEOUT_SECONDS at most (a pass stopped there
    keeps what it encoded; the next sync's pass goes on). Search picks them up as they land."""
    try:
        done = run_child(
            runtime, ["encode", "--json", "--seconds", str(max(1, int(runtime.settings.sync_timeout_seconds * 0.9)))]
        )
    except Exception as e:
        log.error("encoding the re-ranking vectors failed; search goes on without the missing ones: %s", e)
        return
    report = json.loads(done) or {}
    index = runtime.searcher.loaded
    if index is not None and index.encoded is not None:
        index.encoded.load_new(runtime.engine)  # the last batches, read now rather than at the next search
    if report.get("encoded") or report.get("left"):
        log.info(
            "re-ranking vectors: %d of %d passages (%d encoded in %.0f s)",
            report["done"],
            report["total"],
            report["encoded"],
            report["seconds"],
            extra={"event": "encode", "done": report["done"], "total": report["total"]},
        )


def _sync_ended(result: str, started: float) -> None:
    SYNC_RUNS.labels(result).inc()
    LAST_SYNC_SECONDS.set(time.monotonic() - started)
    LAST_SYNC_TIME.set_to_current_time()
    LAST_SYNC_OK.set(result == "ok")


class SyncFailed(SupportbotError, RuntimeError):
    pass


_children: set[subprocess.Popen] = set()  # the sync and encode children running now
_children_lock = threading.Lock()


def stop_children() -> None:
    """End the running sync or encode child and everything it started (serve is stopping)."""
    with _children_lock:
        running = list(_children)
    for child in running:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGTERM)


def _die_with_parent() -> None:
    """In a child: the kernel kills it if the serving process dies (kill -9 included), so no sync outlives it."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)


_PROGRESS = re.compile(r"^Indexing: ([\d,]+) of ([\d,]+) documents")


def sync_in_child(runtime: Runtime) -> dict:
    """`supportbot sync --json --no-encode` in a child process (run_child). Its progress lines are read as they
    come, so a question held for the first index can say how far the sync is."""

    def progress(line: str) -> None:
        m = _PROGRESS.match(line)
        if m:
            runtime.sync_progress = (int(m[1].replace(",", "")), int(m[2].replace(",", "")))

    return json.loads(run_child(runtime, ["sync", "--json", "--no-encode", "--progress-every", "1"], on_line=progress))


def run_child(runtime: Runtime, args: list[str], on_line=None) -> str:
    """`supportbot ARGS` in a child process with SYNC_MEMORY_MB of address space, as much CPU time as two cores
    give in SYNC_TIMEOUT_SECONDS, and that long on the clock; its stdout. Whatever a document does to a parser,
    the answering process keeps its memory and its threads; a sync stopped halfway leaves the previous index
    serving (its transaction is never committed). on_line: each stderr line as it comes."""
    settings = runtime.settings
    limit = int(settings.sync_memory_mb * 2**20)
    seconds = max(1, int(settings.sync_timeout_seconds))

    def limits() -> None:  # in the child, before it runs Python
        _die_with_parent()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CPU, (2 * seconds, 2 * seconds + 5))  # the encoder runs on two threads
        os.nice(5)  # answering comes first

    env = os.environ | {"DATABASE_URL": settings.database_url, "DOCS_DIR": str(settings.docs_dir)}  # not argv: ps shows that
    if settings.docs_git_url:  # the docs' repository as this process sees it (a token in its URL stays out of argv)
        env |= {
            "DOCS_GIT_URL": settings.docs_git_url,
            "DOCS_GIT_BRANCH": settings.docs_git_branch,
            "DOCS_GIT_SUBDIR": settings.docs_git_subdir,
            "DOCS_GIT_CHECKOUT": str(settings.docs_git_checkout),
        }
    child = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limits,
        start_new_session=True,  # its own process group: git and whatever else it started end with it
    )
    with _children_lock:
        _children.add(child)
    out: list[str] = []
    err: list[str] = []
    piped_out, piped_err = child.stdout, child.stderr
    assert piped_out is not None and piped_err is not None  # both piped above

    def read_err() -> None:
        for line in piped_err:
            err.append(line)
            if on_line is not None:
                on_line(line)

    readers = [
        threading.Thread(target=lambda: out.append(piped_out.read()), daemon=True),
        threading.Thread(target=read_err, daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        child.wait(timeout=settings.sync_timeout_seconds)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        if settings.docs_git_url:
            from kb.git_source import remove_staging

            remove_staging(settings.docs_git_checkout, child.pid)
        raise SyncFailed(f"the {args[0]} was stopped after {settings.sync_timeout_seconds:g} s (SYNC_TIMEOUT_SECONDS)") from None
    finally:
        for reader in readers:
            reader.join(5)
        with _children_lock:
            _children.discard(child)
    stderr = "".join(err).strip()
    if child.returncode == SyncBusy.exit_code:
        raise SyncBusy(stderr)
    if child.returncode != 0:
        why = (stderr.splitlines() or [f"exit status {child.returncode}"])[-1]
        if child.returncode < 0:
            why = f"killed by signal {-child.returncode} (over SYNC_MEMORY_MB or SYNC_TIMEOUT_SECONDS?)"
        raise SyncFailed(why)
    return "".join(out)


# A sync that fails before any index was committed leaves the bot with nothing to answer from (a docs checkout that
# could not be fetched at start, a database restarting): it is tried again after this many seconds, doubling up to
# SYNC_INTERVAL_MINUTES, not a whole interval later.
FIRST_SYNC_RETRY_S = 5.0


def start_scheduler(runtime: Runtime) -> BackgroundScheduler:
    scheduler = BackgroundScheduler(daemon=True, timezone="UTC")
    # Due now, or one interval from now. (APScheduler reads next_run_time=None as "paused": a bot started
    # right after a sync would never have re-synced again.)
    first = {"next_run_time": datetime.now(UTC)} if sync_is_due(runtime) else {}
    failures = 0

    def sync_job() -> None:
        nonlocal failures
        run_sync(runtime)
        try:
            committed = runtime.committed_version()
        except Exception:  # the database is away: try again soon as well
            committed = 0
        if committed:
            failures = 0
            return
        delay = min(FIRST_SYNC_RETRY_S * 2**failures, runtime.settings.sync_interval_minutes * 60)
        failures += 1
        log.info("no index has been committed yet: the sync is tried again in %.0f s", delay)
        scheduler.modify_job("sync", next_run_time=datetime.now(UTC) + timedelta(seconds=delay))

    scheduler.add_job(
        sync_job,
        "interval",
        id="sync",
        minutes=runtime.settings.sync_interval_minutes,
        max_instances=1,
        coalesce=True,
        **first,
    )
    if runtime.settings.log_retention_days:
        scheduler.add_job(prune_logs, "interval", args=[runtime], id="prune", hours=24, next_run_time=datetime.now(UTC))
    scheduler.start()
    return scheduler


def prune_logs(runtime: Runtime) -> None:
    """LOG_RETENTION_DAYS, applied daily: the same as `supportbot logs prune --older-than Nd`."""
    from bot.logs.report import prune

    days = runtime.settings.log_retention_days
    if days is None:  # scheduled only when set
        return
    try:
        n = prune(runtime.engine, timedelta(days=days))
        log.info("pruned %d logged questions older than %d days", n, days)
    except Exception:
        log.exception("pruning the answer log failed")
