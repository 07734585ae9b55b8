"""English word frequencies come from a plain copy of wordfreq's table (kb.frequency), with wordfreq's own values."""

from __future__ import annotations

import logging
import random
import subprocess
import sys

import pytest
from wordfreq import get_frequency_list, zipf_frequency

from kb import frequency

OTHER_SHAPES = ["k8s", "don't", "café", "2fa", "e-mail", "xyzzyqq", "zzzzzzzzzzzzzzzzzzzzzz"]


@pytest.fixture
def kept_in(tmp_path, monkeypatch):
    """A fresh process's state: no copy read yet, kept in a folder of this test's own."""
    monkeypatch.setattr(frequency, "_table", None)
    monkeypatch.setattr(frequency, "_folder", None)
    frequency.keep_copy_in(tmp_path / "cache")
    return tmp_path / "cache"


def test_the_copy_gives_wordfreqs_value_for_words_of_every_band_and_shape(kept_in):
    rng = random.Random(7)
    words = [w for band in get_frequency_list("en") for w in rng.sample(band, min(3, len(band)))]
    words += [*OTHER_SHAPES, "refund", "earbuds", "the", "a", "zzz"]
    assert [frequency.zipf(w) for w in words] == [zipf_frequency(w, "en") for w in words]
    assert list(kept_in.glob("wordfreq-*-en.txt")), "the copy was kept"


def test_a_process_with_the_copy_never_loads_wordfreq(kept_in):
    frequency.zipf("refund")  # writes the copy
    script = (
        "import sys; sys.modules['wordfreq'] = None\n"  # importing wordfreq now fails
        "from pathlib import Path; from kb import frequency\n"
        f"frequency.keep_copy_in(Path({str(kept_in)!r}))\n"
        "print(frequency.zipf('refund'), frequency.zipf('the'), frequency.zipf('xyzzyqq'))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert [float(v) for v in out] == [zipf_frequency("refund", "en"), zipf_frequency("the", "en"), 0.0]


def test_a_damaged_copy_is_written_again(kept_in, monkeypatch, caplog):
    frequency.zipf("refund")
    (copy,) = kept_in.glob("wordfreq-*-en.txt")
    whole = copy.read_text()
    copy.write_text(whole[: len(whole) // 2])  # as a full disk would leave it
    monkeypatch.setattr(frequency, "_table", None)
    with caplog.at_level(logging.WARNING, logger="kb.frequency"):
        assert frequency.zipf("refund") == zipf_frequency("refund", "en")
        assert frequency.zipf("zoology") == zipf_frequency("zoology", "en")  # a word past the cut
    assert "damaged" in caplog.text
    assert copy.read_text() == whole


def test_a_folder_that_cannot_be_written_is_a_warning_and_wordfreqs_values_still_answer(tmp_path, monkeypatch, caplog):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(frequency, "_table", None)
    monkeypatch.setattr(frequency, "_folder", None)
    frequency.keep_copy_in(blocked / "cache")
    with caplog.at_level(logging.WARNING, logger="kb.frequency"):
        assert frequency.zipf("refund") == zipf_frequency("refund", "en")
    assert "could not keep the word-frequency copy" in caplog.text
    assert list(tmp_path.iterdir()) == [blocked]
