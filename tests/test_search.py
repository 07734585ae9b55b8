"""Search: pages best first, filtered, held to the evidence rule, linked, and always from a current index."""

import json
import threading

import pytest

from kb.search import Searcher
from kb.sync import sync
from tests.conftest import run_cli


@pytest.fixture
def searcher(engine, docs):
    sync(engine, docs)
    return Searcher(engine, recheck_seconds=0)


def test_hits_come_best_first_with_their_page_and_heading(searcher):
    hits = searcher.search("webhook signature HMAC", k=3)
    assert hits[0].path == "api/webhooks.md"
    assert hits[0].heading == "Webhooks > Verifying signatures"
    assert hits[0].bm25_rank == 1


def test_k_limits_the_number_of_hits(searcher):
    assert len(searcher.search("earbuds case battery", k=2)) == 2


def test_collection_filter_keeps_other_collections_out(searcher):
    hits = searcher.search("firmware update", k=10, collections=["api"])
    assert hits and {h.collection for h in hits} == {"api"}
    assert any(h.collection == "help" for h in searcher.search("firmware update", k=10))


def test_hits_without_evidence_are_left_out_unless_the_closest_pages_are_asked_for(searcher):
    assert searcher.search("student discount", k=5) == []
    weak = searcher.search("battery", k=50, min_score=0)
    kept = searcher.search("battery", k=50)
    assert kept and len(weak) > len(kept), "the evidence rule really cuts something"
    assert all(h.score >= searcher.min_score or h.coverage >= 0.35 for h in kept)


def test_urls_join_base_url_path_and_anchor(engine, docs):
    sync(engine, docs)
    hits = Searcher(engine, base_url="https://help.auralis.example/").search("express shipping cost", k=1)
    assert hits[0].url == "https://help.auralis.example/help/shipping.html#delivery-times"
    hits = Searcher(engine, base_url="https://help.auralis.example").search("webhook retries backoff", k=1)
    assert hits[0].url == "https://help.auralis.example/api/webhooks#retries"


def test_front_matter_url_overrides_the_base_url(engine, docs):
    (docs / "help" / "gift-cards.md").write_text(
        "---\ntitle: Gift cards\nurl: https://store.example/gift\n---\n\n## Expiry\n\nGift cards never expire.\n"
    )
    sync(engine, docs)
    hit = Searcher(engine, base_url="https://help.auralis.example").search("gift cards expire", k=1)[0]
    assert hit.url == "https://store.example/gift#expiry"


def test_a_sync_is_seen_by_a_running_searcher(engine, docs, searcher):
    assert searcher.search("gift cards") == []
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\nGift cards never expire.\n")
    sync(engine, docs)
    searcher.search("warm-up")  # notices the new version and rebuilds beside the old index
    searcher.wait_for_rebuild()
    assert searcher.search("gift cards expire")[0].path == "help/gift-cards.md"


def test_searches_keep_being_answered_while_the_index_rebuilds(engine, docs, searcher, monkeypatch):
    old = searcher.index
    started, release = threading.Event(), threading.Event()
    import kb.search as search_module

    real_load = search_module.load_index

    def slow_load(*args, **kwargs):
        started.set()
        release.wait(10)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(search_module, "load_index", slow_load)
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\nGift cards never expire.\n")
    sync(engine, docs)
    searcher.search("warranty")
    assert started.wait(10)
    hits = searcher.search("warranty length", k=1)  # answered by the old index mid-rebuild
    assert hits and searcher.index is old
    release.set()
    searcher.wait_for_rebuild()
    assert searcher.index is not old and searcher.index.version == old.version + 1


def test_search_command_prints_the_documented_json(docs, db_url):
    result = run_cli("search", "how do I verify webhook signatures", "--docs", str(docs), "--db", db_url, "--json", "--k", "3")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["query"] == "how do I verify webhook signatures"
    assert set(out["hits"][0]) == {
        "chunk_id",
        "path",
        "collection",
        "title",
        "heading",
        "url",
        "score",
        "bm25_rank",
        "dense_rank",
    }
    assert out["hits"][0]["path"] == "api/webhooks.md"
    assert len(out["hits"]) <= 3


def test_search_command_with_a_collection_filter(docs, db_url):
    result = run_cli("search", "firmware", "--docs", str(docs), "--db", db_url, "--json", "--collection", "api")
    assert {h["collection"] for h in json.loads(result.stdout)["hits"]} == {"api"}
