"""The sentence encoder: it loads offline, its vectors fill in after a sync has committed, search uses them as they
land, and it orders the hybrid's top pages by fusion with the hybrid's own order."""

import json
import socket

import numpy as np
import pytest
from sqlalchemy import text

from bot.database import open_database
from kb.encode import encode_missing
from kb.encoder import MiniLMEncoder, default_encoder
from kb.rerank import EncodedRows
from kb.search import Searcher
from kb.sync import sync
from tests.conftest import run_cli


def test_the_encoder_loads_and_embeds_with_the_network_refused(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network refused by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    vectors = MiniLMEncoder().embed(
        ["how do I get my money back?", "Refunds go back to your original payment method.", "The case holds three charges."]
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > 0.5 > 0.2 > vectors[0] @ vectors[2]  # it reads meaning: no word is shared


def test_a_text_embeds_the_same_alone_or_in_a_batch_of_longer_texts():
    encoder = default_encoder()
    alone = encoder.embed(["refund window"])[0]
    batched = encoder.embed(["a much longer text about charging cases and batteries and firmware", "refund window"])[1]
    assert alone @ batched > 0.98  # the padding is masked, though it shares the batch's int8 scale: close, not equal


def test_the_shipped_graphs_weights_fit_in_seven_bits_so_no_cpu_overflows_their_int8_products():
    """A CPU without VNNI sums pairs of activation x weight products into int16, which 8-bit weights overflow
    (255 x 127 x 2) and 7-bit ones cannot (255 x 64 x 2): kb/weights/export_minilm.py's reduce_range."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    from kb.encoder import WEIGHTS

    graph = onnx.load(str(WEIGHTS / "minilm-l6-int8.onnx")).graph
    weights = [numpy_helper.to_array(t) for t in graph.initializer if t.data_type == onnx.TensorProto.INT8]
    assert len(weights) >= 36, "every MatMul's weights are int8"
    assert max(int(np.abs(w.astype(np.int32)).max()) for w in weights) <= 64


def test_the_index_serves_before_the_vectors_and_search_uses_them_as_they_land(engine, docs):
    sync(engine, docs)
    searcher = Searcher(engine, encoder=default_encoder(), recheck_seconds=0)
    before = searcher.search("How long do I have to return my earbuds?")
    assert before and all(h.cosine is None and h.meaning_rank is None for h in before), "the hybrid's results, at once"
    report = encode_missing(engine, default_encoder())
    assert report.encoded == report.total == report.done and report.left == 0
    searcher.search("warm-up")  # notices the vectors that landed and reads them beside the serving index
    searcher.wait_for_rebuild()
    after = searcher.search("How long do I have to return my earbuds?")
    assert all(h.cosine is not None for h in after) and after[0].meaning_rank is not None
    assert searcher.index.encoded.complete


def test_encoding_is_incremental_and_a_pass_stopped_at_its_deadline_keeps_its_work(engine, docs):
    sync(engine, docs)
    first = encode_missing(engine, default_encoder(), batch=8, seconds=0)  # past its deadline: still one batch
    assert first.encoded == 8 and first.left == first.total - 8
    rest = encode_missing(engine, default_encoder())
    assert rest.encoded == first.left and rest.left == 0
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\n## Expiry\n\nGift cards never expire.\n")
    report = sync(engine, docs)
    again = encode_missing(engine, default_encoder())
    assert again.encoded == len([c for c in report.added]) and again.left == 0


def test_vectors_of_what_an_older_version_read_of_a_chunk_are_encoded_again(engine, docs):
    sync(engine, docs)
    first = encode_missing(engine, default_encoder())
    with engine.begin() as conn:  # as an index encoded before the encoder read chunks without section numbers
        conn.execute(text("UPDATE kb_encodings SET model = 'all-MiniLM-L6-v2-int8'"))
    again = encode_missing(engine, default_encoder())
    assert again.encoded == again.total == first.total and again.left == 0


def test_a_page_edited_in_one_section_is_encoded_again_only_there(engine, docs):
    sync(engine, docs)
    encode_missing(engine, default_encoder())
    page = docs / "help" / "warranty.md"
    page.write_text(page.read_text().replace("We ship a replacement", "We send a replacement"))
    report = sync(engine, docs)
    assert report.changed == ["help/warranty.md"] and report.vectors_kept > 0
    again = encode_missing(engine, default_encoder())
    assert again.encoded == 1 and again.left == 0, "the claim section changed; the warranty's other sections read the same"


def test_a_moved_page_keeps_its_vectors(engine, docs):
    sync(engine, docs)
    encode_missing(engine, default_encoder())
    (docs / "help" / "warranty.md").rename(docs / "api" / "warranty.md")
    report = sync(engine, docs)
    assert report.removed == ["help/warranty.md"] and report.added == ["api/warranty.md"]
    assert encode_missing(engine, default_encoder()).encoded == 0


def test_a_loaders_change_reindexes_every_page_and_encodes_none_that_reads_the_same(docs, db_url):
    first = run_cli("sync", "--docs", str(docs), "--db", db_url, "--json")
    assert first.returncode == 0, first.stderr
    chunks = json.loads(first.stdout)["chunks"]
    engine = open_database(db_url)
    with engine.begin() as conn:  # as an index written by an older version of the loaders
        conn.execute(text("UPDATE kb_index_state SET analyzer = 'an older analyzer'"))
    again = run_cli("sync", "--docs", str(docs), "--db", db_url)
    assert again.returncode == 0, again.stderr
    assert f"{chunks} re-ranking vectors kept for passages that read as before" in again.stdout
    assert "Re-ranking vectors: all passages; 0 encoded" in again.stdout


def test_the_encoders_order_is_fused_with_the_hybrids_and_a_page_without_vectors_keeps_its_place():
    pages = np.array([10, 10, 20, 30, 40])  # document id per row
    rows = EncodedRows(np.array([1, 2, 3, 4, 5]), pages, "test", 2)
    rows.codes[:] = [[127, 0], [127, 0], [0, 127], [90, 90], [0, 0]]
    rows.scales[:] = 1 / 127
    rows.have[:] = [True, True, True, True, False]  # page 40's vector has not landed
    query = np.array([0.0, 1.0], dtype=np.float32)  # the encoder likes page 20 best, then 30, then 10
    order, meaning = rows.order([10, 30, 20, 40], query)
    assert meaning == {20: 1, 30: 2, 10: 3}
    # RRF, k=5: 10 = 1/6 + 1/8, 30 = 1/7 + 1/7, 20 = 1/8 + 1/6, 40 = 1/9 + 1/9 (its hybrid place in both)
    assert order == [10, 20, 30, 40], "20 (hybrid 3rd, encoder 1st) overtakes 30 and ties 10, which keeps its place"


def test_a_page_whose_lead_is_about_the_query_outranks_one_that_only_mentions_it_on_the_way():
    pages = np.array([10, 10, 20, 20])  # document id per row
    codes = [[0, 127], [127, 0], [0, 127], [127, 0]]  # each page holds one chunk right on the query
    query = np.array([1.0, 0.0], dtype=np.float32)
    by_place = EncodedRows(np.array([1, 2, 3, 4]), pages, "test", 2, ordinals=np.array([1, 0, 0, 1]))
    by_id = EncodedRows(np.array([1, 2, 3, 4]), pages, "test", 2)
    for rows in (by_place, by_id):
        rows.codes[:], rows.scales[:], rows.have[:] = codes, 1 / 127, True
    assert by_place.order([20, 10], query)[1] == {10: 1, 20: 2}, "page 10 opens with it (ordinal 0); 20 comes to it later"
    assert by_id.order([20, 10], query)[1] == {20: 1, 10: 2}, "taken in id order, neither lead is on it: a tie"


def test_sync_reports_the_vectors_and_encode_fills_in_what_is_missing(docs, db_url):
    synced = run_cli("sync", "--docs", str(docs), "--db", db_url, "--no-encode", "--json")
    assert synced.returncode == 0, synced.stderr
    assert json.loads(synced.stdout)["encoding"] is None
    encoded = run_cli("encode", "--db", db_url, "--json")
    assert encoded.returncode == 0, encoded.stderr
    report = json.loads(encoded.stdout)
    assert report["encoded"] == report["total"] > 0 and report["left"] == 0
    again = run_cli("sync", "--docs", str(docs), "--db", db_url)
    assert "Re-ranking vectors: all passages; 0 encoded" in again.stdout


@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_other_search_modes_need_no_encoder(docs, db_url, mode):
    result = run_cli("sync", "--docs", str(docs), "--db", db_url, env={"SEARCH_MODE": mode})
    assert result.returncode == 0, result.stderr
    assert "Re-ranking vectors" not in result.stdout


def test_the_encoders_own_best_pages_join_the_pool_with_their_closest_rows():
    pages = np.array([10, 20, 20, 30, 40, 50])  # document id per row
    rows = EncodedRows(np.arange(1, 7), pages, "test", 2)
    rows.codes[:] = [[0, 127], [10, 120], [0, 127], [127, 0], [0, 127], [0, 127]]
    rows.scales[:] = 1 / 127
    rows.have[:] = [True, True, True, True, False, True]  # page 40's vector has not landed
    query = np.array([0.0, 1.0], dtype=np.float32)
    excluded = np.array([False, False, False, False, False, True])  # page 50 is another collection's
    assert rows.top_pages(query, 1, have={10}, excluded=excluded) == [(20, [2, 1])], "10 is in the pool already"
    assert rows.top_pages(query, 5, have={10}, excluded=excluded) == [(20, [2, 1]), (30, [3])], (
        "the far page 30 last; 40 has no vector yet and 50 is another collection's"
    )


def test_vectors_that_cannot_be_read_in_the_background_leave_a_warning_and_the_index_serving(engine, docs, caplog):
    sync(engine, docs)
    searcher = Searcher(engine, encoder=default_encoder(), recheck_seconds=0)
    searcher.search("warm-up")
    searcher.wait_for_rebuild()
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE kb_encodings"))  # the next background read of new vectors fails
    searcher.search("How long do I have to return my earbuds?")  # the recheck starts that read
    searcher.wait_for_rebuild()
    assert "the index's database could not be read" in caplog.text, "one warning, not a thread's traceback"
    assert searcher.search("How long do I have to return my earbuds?"), "the index keeps serving"
