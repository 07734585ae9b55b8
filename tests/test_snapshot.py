"""A large index kept on disk: a restart reads it instead of building it again, and only for the very index version
it was made from."""

import logging
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update

from bot.runtime import Runtime
from bot.settings import load_settings
from kb import snapshot
from kb.models import chunks, index_state
from kb.search import Searcher
from kb.snapshot import Snapshots
from kb.sync import sync


@pytest.fixture
def kept(engine, docs, tmp_path):
    """The sample docs synced, and their index kept by a first start (every size is kept here, not only large ones)."""
    sync(engine, docs)
    snapshots = Snapshots(tmp_path / "snapshots", min_chunks=0)
    Searcher(engine, snapshots=snapshots).refresh()
    snapshots.wait()
    assert list(snapshots.folder.glob("index-*"))
    return snapshots


def pages(searcher: Searcher, query: str) -> list[str]:
    return [h.path for h in searcher.search(query, k=5)]


def by_words(searcher: Searcher, query: str) -> list[str]:
    """The pages the search found by their words (BM25), not by meaning alone."""
    return [h.path for h in searcher.search(query, k=5) if h.bm25_rank is not None]


def forget_the_postings(engine) -> None:
    """Empty every chunk's stored words without a new index version: what a start reads from the database no
    longer finds anything by its words."""
    with engine.begin() as conn:
        conn.execute(update(chunks).values(terms=b""))


def test_a_restart_serves_the_kept_index_without_reading_the_postings_again(engine, kept):
    """The snapshot holds the words the database no longer has: the restart read the snapshot."""
    forget_the_postings(engine)
    assert by_words(Searcher(engine), "webhook signature HMAC") == []
    assert by_words(Searcher(engine, snapshots=kept), "webhook signature HMAC")[0] == "api/webhooks.md"


def test_a_kept_index_answers_exactly_as_the_one_read_from_the_database(engine, kept):
    queries = ["webhook signature HMAC", "how long do I have to return my earbuds", "express delivery cost"]
    fresh, restarted = Searcher(engine), Searcher(engine, snapshots=kept)
    for query in queries:
        assert [(h.chunk_id, h.bm25_rank, h.dense_rank) for h in restarted.search(query, k=7)] == [
            (h.chunk_id, h.bm25_rank, h.dense_rank) for h in fresh.search(query, k=7)
        ]


def test_a_snapshot_of_an_older_version_is_not_served(engine, docs, kept):
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\nAuralis gift cards never expire.\n")
    sync(engine, docs)
    assert "help/gift-cards.md" in pages(Searcher(engine, snapshots=kept), "do gift cards expire")


def test_a_database_made_again_with_the_same_version_number_is_read_afresh(engine, kept):
    forget_the_postings(engine)
    with engine.begin() as conn:  # what a new database reaching the same version number looks like: another moment
        conn.execute(update(index_state).values(updated_at=datetime(2031, 1, 1, tzinfo=UTC)))
    assert by_words(Searcher(engine, snapshots=kept), "webhook signature HMAC") == []


@pytest.mark.parametrize("damage", ["truncated", "missing"])
def test_a_damaged_snapshot_is_reported_and_the_database_read_instead(engine, kept, caplog, damage):
    [snapshot] = kept.folder.glob("index-*")
    postings = snapshot / "weights.npy"
    if damage == "truncated":
        postings.write_bytes(postings.read_bytes()[: postings.stat().st_size // 2])
    else:
        postings.unlink()
    forget_the_postings(engine)
    with caplog.at_level(logging.WARNING, logger="kb.snapshot"):
        found = by_words(Searcher(engine, snapshots=kept), "webhook signature HMAC")
    assert found == [], "read from the database, which has no postings now"
    assert "could not be read" in caplog.text and "reading the index from the database" in caplog.text
    kept.wait()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kb.snapshot"):
        Searcher(engine, snapshots=kept).refresh()
    assert caplog.text == "", "the load after the damaged one kept a whole snapshot, which the next start reads"


def test_a_newer_snapshot_replaces_the_older_one(engine, docs, kept):
    [older] = kept.folder.glob("index-*")
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\nAuralis gift cards never expire.\n")
    sync(engine, docs)
    Searcher(engine, snapshots=kept).refresh()
    kept.wait()
    [newer] = kept.folder.glob("index-*")
    assert newer != older and not older.exists()


def test_the_first_start_after_a_sync_maps_the_index_the_sync_kept(db_url, docs, tmp_path, monkeypatch):
    """No process served the index before: the sync itself kept it, so the first start reads no postings."""
    monkeypatch.setattr(snapshot, "MIN_CHUNKS", 0)  # the sample docs count as a large index here
    settings = load_settings(database_url=db_url, docs_dir=docs, index_snapshot_dir=tmp_path / "kept", search_mode="hybrid")
    synced = Runtime(settings)
    synced.sync(encode=False)
    forget_the_postings(synced.engine)
    assert by_words(Runtime(settings).searcher, "webhook signature HMAC")[0] == "api/webhooks.md"


def test_a_small_index_is_not_kept(engine, docs, tmp_path):
    sync(engine, docs)
    snapshots = Snapshots(tmp_path / "snapshots")  # the default floor: 20,000 chunks
    Searcher(engine, snapshots=snapshots).refresh()
    snapshots.wait()
    assert not (tmp_path / "snapshots").exists()


def test_index_snapshot_dir_off_reads_the_database_at_every_start():
    assert load_settings(index_snapshot_dir="off").index_snapshot_dir is None
    assert load_settings().index_snapshot_dir.name == "index"


def test_a_snapshot_that_cannot_be_written_is_one_warning_and_the_index_serves(engine, docs, tmp_path, caplog):
    sync(engine, docs)
    (tmp_path / "not-a-folder").write_text("")
    snapshots = Snapshots(tmp_path / "not-a-folder", min_chunks=0)
    searcher = Searcher(engine, snapshots=snapshots)
    with caplog.at_level(logging.WARNING, logger="kb.snapshot"):
        searcher.refresh()
        snapshots.wait()
    assert "could not keep an index snapshot" in caplog.text
    assert pages(searcher, "webhook signature HMAC")[0] == "api/webhooks.md"


def test_a_user_with_no_home_directory_keeps_snapshots_in_the_temporary_folder(monkeypatch):
    def no_home(cls):
        raise RuntimeError("Could not determine home directory.")  # no HOME and no password entry, as some containers

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(no_home))
    assert load_settings().index_snapshot_dir == Path(tempfile.gettempdir()) / "supportbot" / "index"
