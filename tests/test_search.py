"""Search: pages best first, filtered, held to the evidence rule, linked, and always from a current index."""

import json
import threading

import pytest

from kb.question import pasted_words
from kb.search import Searcher
from kb.sync import sync
from kb.tokens import DEFAULT_TOKENIZER
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


def test_a_search_shows_what_it_finds_each_hit_labelled_by_how_strongly_it_matches(searcher):
    uncovered = searcher.search("student discount", k=5)
    assert len(uncovered) == 5, "nothing is withheld"
    assert all(h.strength != "strong" for h in uncovered) and all("discount" in h.missing for h in uncovered)
    found = searcher.search("webhook signature HMAC", k=5)
    assert found[0].strength == "strong" and found[0].path == "api/webhooks.md"
    labels = {h.strength for h in searcher.search("battery", k=50)}
    assert "strong" in labels and len(labels) > 1, "labels tell hits apart"


def test_one_word_the_docs_never_use_does_not_void_the_words_they_do(searcher):
    assert searcher.unknown_words("webhook delivery failed timeout seconds") == ["timeout"]
    hits = searcher.search("webhook delivery failed timeout seconds", k=3)
    assert hits[0].path == "api/webhooks.md" and hits[0].strength == "strong"


def test_a_page_can_give_its_best_chunks_then_the_next_pages_one_each(searcher):
    hits = searcher.search("earbuds battery charging case", k=6, per_page=(3, 1))
    pages = [h.path for h in hits]
    assert pages[:3] == [pages[0]] * 3 and len(set(pages[3:])) == 3 and pages[0] not in pages[3:]


def test_a_word_only_a_removed_page_had_leaves_the_search_working(engine, docs):
    (docs / "zebras.md").write_text("# Zebras\n\nQuaggafoo stripes are unique to each zebra.\n")
    sync(engine, docs)
    (docs / "zebras.md").unlink()
    sync(engine, docs)
    hits = Searcher(engine).search("quaggafoo webhook signature", k=3)
    assert hits[0].path == "api/webhooks.md" and all(h.path != "zebras.md" for h in hits)


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
    assert "help/gift-cards.md" not in {h.path for h in searcher.search("gift cards")}
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


@pytest.mark.synced_database  # what it checks is the search, not a first sync
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
        "meaning_rank",
        "cosine",
        "strength",
    }
    assert out["hits"][0]["path"] == "api/webhooks.md"
    assert len(out["hits"]) <= 3


@pytest.mark.synced_database  # what it checks is the search, not a first sync
def test_search_command_with_a_collection_filter(docs, db_url):
    result = run_cli("search", "firmware", "--docs", str(docs), "--db", db_url, "--json", "--collection", "api")
    assert {h["collection"] for h in json.loads(result.stdout)["hits"]} == {"api"}


def test_the_words_only_in_pasted_code_and_paths_are_told_from_the_question_own():
    text = "why does npm ci fail for alice\n```\nError at /home/alice/acme-web/index.js:42\n```\nsee `bob@example.com`"
    assert pasted_words(text, DEFAULT_TOKENIZER) == {"error", "home", "acme", "web", "index", "js", "42", "bob", "example", "com"}
