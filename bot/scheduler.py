"""Re-syncing the docs on a schedule, beside the Slack app, without ever blocking an answer."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy import select

from bot.runtime import Runtime
from kb.models import sync_runs
from kb.sync import SyncBusy

log = logging.getLogger(__name__)


def sync_is_due(runtime: Runtime) -> bool:
    """An empty index, or no successful sync within the interval."""
    if runtime.index_is_empty():
        return True
    with runtime.engine.connect() as conn:
        last = conn.execute(
            select(sync_runs.c.finished_at).where(sync_runs.c.status == "ok").order_by(sync_runs.c.id.desc()).limit(1)
        ).scalar()
    if last is None:
        return True
    if last.tzinfo is None:
        last = last.replace(tzinfo=UTC)
    return datetime.now(UTC) - last > timedelta(minutes=runtime.settings.sync_interval_minutes)


def run_sync(runtime: Runtime) -> None:
    """One scheduled sync; a failure is logged and the previous index keeps serving."""
    try:
        report = runtime.sync()
    except SyncBusy:
        log.info("scheduled sync skipped: another sync is running")
        return
    except Exception:
        log.exception("scheduled sync failed; the previous index keeps serving")
        return
    log.info(
        "synced %s: %d added, %d changed, %d removed, %d skipped, index version %d",
        report.docs_dir, len(report.added), len(report.changed), len(report.removed), report.skipped, report.index_version,
    )  # fmt: skip
    if report.changed_anything:
        runtime.searcher.refresh()  # built here, beside the index that keeps answering, then swapped in


def start_scheduler(runtime: Runtime) -> BackgroundScheduler:
    scheduler = BackgroundScheduler(daemon=True, timezone="UTC")
    first = datetime.now(UTC) if sync_is_due(runtime) else None
    scheduler.add_job(
        run_sync, "interval", args=[runtime], id="sync", minutes=runtime.settings.sync_interval_minutes,
        max_instances=1, coalesce=True, next_run_time=first,
    )  # fmt: skip
    if runtime.settings.log_retention_days:
        scheduler.add_job(prune_logs, "interval", args=[runtime], id="prune", hours=24, next_run_time=datetime.now(UTC))
    scheduler.start()
    return scheduler


def prune_logs(runtime: Runtime) -> None:
    """LOG_RETENTION_DAYS, applied daily: the same as `supportbot logs prune --older-than Nd`."""
    from bot.logs.report import prune

    try:
        n = prune(runtime.engine, timedelta(days=runtime.settings.log_retention_days))
        log.info("pruned %d logged questions older than %d days", n, runtime.settings.log_retention_days)
    except Exception:
        log.exception("pruning the answer log failed")
