"""Sections become chunks with heading paths, line numbers and a findable index text."""

import itertools

import pytest

from kb.chunking import chunk_document, encoder_text, index_text, unnumbered
from kb.loaders.markdown import load_markdown


def test_each_section_becomes_a_chunk_with_its_heading_path():
    doc = load_markdown("# Refunds\n\nIntro.\n\n## Refund window\n\n30 days.\n\n### Exceptions\n\nSale items.\n", "r")
    assert [c.heading for c in chunk_document(doc)] == [
        "Refunds",
        "Refunds > Refund window",
        "Refunds > Refund window > Exceptions",
    ]


def test_a_page_without_h1_is_headed_by_its_title():
    doc = load_markdown("---\ntitle: Rate limits\n---\n\n## Per key\n\n600 a minute.\n", "r")
    assert [c.heading for c in chunk_document(doc)] == ["Rate limits > Per key"]


def test_headings_without_body_make_no_chunk():
    doc = load_markdown("# Title\n\n## Empty\n\n## Full\n\ntext\n", "t")
    assert [c.heading for c in chunk_document(doc)] == ["Title > Full"]


def test_a_long_section_is_cut_into_overlapping_windows_of_whole_lines():
    body = "\n\n".join(f"line {i} " + "word " * 20 for i in range(30))  # 30 paragraphs of 22 words
    doc = load_markdown(f"# Long\n\n{body}\n", "long")
    chunks = chunk_document(doc, max_words=100, overlap_words=30)
    assert len(chunks) > 1
    assert all(sum(len(line.text.split()) for line in c.lines) <= 100 for c in chunks)
    for a, b in itertools.pairwise(chunks):
        assert b.start_line <= a.end_line, "consecutive windows overlap"
    covered = {line.number for c in chunks for line in c.lines}
    assert covered == set(range(3, 62, 2)), "every line lands in some chunk"


def test_one_enormous_line_is_split_but_keeps_its_line_number():
    doc = load_markdown("# T\n\n" + "word " * 1000 + "\n", "t")
    chunks = chunk_document(doc, max_words=200, overlap_words=0)
    assert len(chunks) >= 5
    assert {line.number for c in chunks for line in c.lines} == {3}


def test_a_paragraph_too_long_for_a_chunk_is_cut_where_a_sentence_ends():
    sentences = [f"Sentence {n} says {'more ' * 12}here." for n in range(20)]  # 20 sentences of 16 words
    doc = load_markdown("# T\n\n" + " ".join(sentences) + "\n", "t")
    pieces = [line.text for c in chunk_document(doc, max_words=100, overlap_words=0) for line in c.lines]
    assert len(pieces) > 1
    assert all(p.startswith("Sentence ") and p.endswith("here.") for p in pieces), "no piece starts or ends mid-sentence"
    assert " ".join(pieces) == " ".join(sentences), "every word kept, in order"
    assert all(len(p.split()) <= 50 for p in pieces)


def test_index_text_carries_title_and_heading_so_short_chunks_are_found():
    doc = load_markdown("# Refunds\n\n## Refund window\n\n30 days.\n", "r")
    chunk = chunk_document(doc)[0]
    assert index_text(doc.title, chunk) == "Refunds\nRefund window\n30 days."


def test_a_chunk_ending_in_a_wrapped_paragraph_ends_at_its_last_source_line():
    (chunk,) = chunk_document(load_markdown("# T\n\nfirst\nsecond\nthird\n", "t"))
    assert (chunk.start_line, chunk.end_line) == (3, 5), "a change on 'third' is a change to this chunk"


@pytest.mark.parametrize(
    ("heading", "read"),
    [
        ("3.7. Pixelize > 3.7.3. Options", "Pixelize > Options"),
        ("Chapter 3. Developing with Git > Fixing mistakes", "Developing with Git > Fixing mistakes"),
        ("Install > 2.1 Writing", "Install > Writing"),
        ("2 ways to pair > 3-Way Merge", "2 ways to pair > 3-Way Merge"),  # numbers that belong to the name
    ],
)
def test_a_headings_section_numbers_are_left_out_and_numbers_in_its_names_kept(heading, read):
    assert unnumbered(heading) == read


def test_the_encoder_reads_a_chunk_without_its_section_numbers():
    doc = load_markdown("# 3.7. Pixelize\n\n## 3.7.3. Options\n\nBlock width and height.\n", "p")
    chunk = chunk_document(doc)[0]
    assert encoder_text(doc.title, chunk) == "Pixelize\nOptions\nBlock width and height."
    assert index_text(doc.title, chunk) == "3.7. Pixelize\n3.7.3. Options\nBlock width and height.", "BM25 reads them"
