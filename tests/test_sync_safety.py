"""A killed sync leaves the previous index serving; two syncs never run at once."""

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest
from sqlalchemy import func, select

from bench.corpus import write_docs
from bot.database import open_database
from kb.models import documents, sync_runs
from kb.search import Searcher
from kb.state import index_version
from kb.sync import sync
from kb.sync_runs import SyncBusy, sync_lock_held, sync_transaction
from tests.conftest import ON_POSTGRES, REPO, postgres_schema, run_cli


def counts(engine):
    with engine.connect() as conn:
        return index_version(conn), conn.execute(select(func.count()).select_from(documents)).scalar_one()


def wait_until(predicate, timeout=60.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def test_a_sync_killed_halfway_leaves_the_previous_index_serving(engine, docs, db_url):
    sync(engine, docs)
    before = counts(engine)
    expected = [h.chunk_id for h in Searcher(engine).search("refund window", k=3)]
    write_docs(docs / "bulk", n_docs=1000, sections=5, words=100)

    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "sync", "--docs", str(docs), "--db", db_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
    )
    try:
        watchdog = threading.Timer(120, proc.kill)  # a hung child ends the read below
        watchdog.start()
        # Off a terminal the sync says when it starts indexing: then it is inside its transaction, thousands to go.
        started = next((line for line in proc.stderr if line.startswith(b"Indexing: 1 of")), None)
        watchdog.cancel()
        assert started and proc.poll() is None, "the sync never started indexing, or finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)

    assert counts(engine) == before, "nothing of the killed sync is visible"
    assert [h.chunk_id for h in Searcher(engine).search("refund window", k=3)] == expected
    with engine.connect() as conn:
        assert conn.execute(select(sync_runs.c.status).order_by(sync_runs.c.id.desc())).first()[0] == "running"

    for extra in sorted((docs / "bulk").rglob("*.md"))[10:]:  # the next sync redoes what was lost: ten pages show it
        extra.unlink()
    report = sync(engine, docs)
    assert report.status == "ok" and len(report.added) == 10 and report.index_version == before[0] + 1
    with engine.connect() as conn:
        statuses = conn.execute(select(sync_runs.c.status).order_by(sync_runs.c.id)).scalars().all()
    assert statuses == ["ok", "interrupted", "ok"]


def test_a_second_sync_in_this_process_is_refused_while_one_runs(engine, docs):
    with sync_transaction(engine), pytest.raises(SyncBusy, match="another sync is running"):
        sync(engine, docs, lock_timeout_s=0.2)
    assert sync(engine, docs).status == "ok"


@pytest.mark.skipif(not ON_POSTGRES, reason="schemas are PostgreSQL's: a SQLite file is a database of its own")
def test_a_sync_in_another_schema_of_the_same_postgresql_database_does_not_wait_for_this_one(engine, docs):
    with contextmanager(postgres_schema)() as other_url, sync_transaction(engine):
        other = open_database(other_url)
        try:
            assert sync(other, docs, lock_timeout_s=0.5).status == "ok"
        finally:
            other.dispose()


def test_a_sync_in_another_process_is_refused_while_one_runs(engine, docs, db_url):
    with sync_transaction(engine):
        result = run_cli("sync", "--docs", str(docs), "--db", db_url)
    assert result.returncode == 3
    assert "another sync is running" in result.stderr and "Traceback" not in result.stderr
    assert counts(engine) == (0, 0)
    assert sync(engine, docs).status == "ok", "once the other sync ends, a sync goes ahead"


def test_the_lock_is_released_when_its_holder_dies(engine, docs, db_url):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from bot.database import open_database; from kb.sync_runs import sync_transaction\n"
            "with sync_transaction(open_database(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)",
            db_url,
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert sync_lock_held(engine)
        holder.kill()
    finally:
        holder.wait(30)
    assert wait_until(lambda: not sync_lock_held(engine), timeout=10)
    assert sync(engine, docs).status == "ok"


def child_runtime(db_url, docs, **limits):
    from bot.runtime import Runtime
    from bot.settings import load_settings

    return Runtime(load_settings(database_url=db_url, docs_dir=docs, **limits))


def test_a_sync_in_a_child_process_indexes_the_folder(db_url, docs):
    from bot.scheduler import sync_in_child

    report = sync_in_child(child_runtime(db_url, docs))
    assert len(report["added"]) == 24 and report["status"] == "ok"


def test_a_child_sync_past_its_time_is_stopped_and_the_previous_index_keeps_serving(db_url, docs):
    from bot.scheduler import SyncFailed, sync_in_child

    rt = child_runtime(db_url, docs)
    rt.sync()
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\nGift cards never expire.\n")
    slow = child_runtime(db_url, docs, sync_timeout_seconds=0.05)
    with pytest.raises(SyncFailed, match=r"stopped after 0\.05 s"):
        sync_in_child(slow)
    assert rt.searcher.search("warranty length")[0].path == "help/warranty.md"
    assert "help/gift-cards.md" not in {h.path for h in rt.searcher.search("gift cards expire")}, "nothing half-done serves"


def test_a_child_sync_over_its_memory_is_stopped_with_a_reason(db_url, docs):
    from bot.scheduler import SyncFailed, sync_in_child

    with pytest.raises(SyncFailed) as failed:
        sync_in_child(child_runtime(db_url, docs, sync_memory_mb=64))
    assert str(failed.value), "the reason is logged, not an empty error"


def _open_each_at_the_barrier(paths, barrier, opened) -> None:
    """One process's part: connect to each new file at the same moment as the others."""
    from kb.database import create_db_engine

    for path in paths:
        barrier.wait()
        try:
            engine = create_db_engine(f"sqlite:///{path}")
            engine.connect().close()
            engine.dispose()
            opened.put("ok")
        except Exception as e:  # the outcome is the test's evidence, whatever it is
            opened.put(f"{type(e).__name__}: {e}")


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's own lock on a new file")
def test_processes_opening_a_new_sqlite_file_together_all_get_it(tmp_path):
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")
    paths = [tmp_path / f"new{n}.db" for n in range(300)]
    barrier, opened = spawn.Barrier(3), spawn.Queue()
    workers = [spawn.Process(target=_open_each_at_the_barrier, args=(paths, barrier, opened)) for _ in range(3)]
    for w in workers:
        w.start()
    outcomes = [opened.get(timeout=120) for _ in range(3 * len(paths))]
    for w in workers:
        w.join(30)
    assert [o for o in outcomes if o != "ok"] == [], "switching a new file to WAL waits for the lock, as any write does"


def test_three_syncs_at_once_on_a_new_sqlite_file_each_succeed_or_say_busy(tmp_path, docs):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "sync", "--db", url, "--docs", str(docs)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outcomes = [(p.wait(120), p.stderr.read()) for p in procs]
    assert all(code in (0, 3) for code, _ in outcomes), outcomes
    assert any(code == 0 for code, _ in outcomes)


def test_a_timed_out_git_sync_leaves_no_git_process_and_no_half_clone(db_url, tmp_path):
    import os
    import socket
    import threading

    from bot.scheduler import SyncFailed, sync_in_child

    silent = socket.create_server(("127.0.0.1", 0))  # a remote that accepts and never answers
    held = []
    threading.Thread(target=lambda: [held.append(silent.accept()) for _ in range(5)], daemon=True).start()
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/docs.git"
    rt = child_runtime(
        db_url, tmp_path / "unused", docs_git_url=url, docs_git_checkout=tmp_path / "checkout", sync_timeout_seconds=4
    )
    with pytest.raises(SyncFailed, match="stopped after 4 s"):
        sync_in_child(rt)

    def running_git() -> list[str]:
        out = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if url in cmd:
                out.append(cmd)
        return out

    assert running_git() == [], "the sync's whole process group ended with it"
    assert not list(tmp_path.glob(".clone-*")), "its half-done clone was removed"
    silent.close()
