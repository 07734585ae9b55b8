"""English word frequencies on the Zipf scale: wordfreq's values, from a plain copy of its table kept on disk.

wordfreq decodes its whole English table (321k words, a gzipped msgpack) the first time a process asks for one
word: with its import, about 0.3-0.5 s in every process that reads a question, a one-off CLI search as much as a
restarted bot. Its plain lower-case words, kept once as sorted text beside the index snapshots ("word zipf" a
line) and looked up by bisection, are read in a few hundredths of a second. A word of any other shape (digits, an
apostrophe, an accent) is still asked of wordfreq itself, so every value is wordfreq's own.

The copy is named for wordfreq's version, written under a temporary name and renamed into place whole; one that
does not read back whole is written again. With no folder, or one that cannot be written, wordfreq answers.
"""

from __future__ import annotations

import logging
import re
import threading
from bisect import bisect_left
from importlib.metadata import version
from pathlib import Path

from kb.files import replace_whole

log = logging.getLogger(__name__)

PLAIN = re.compile(r"[a-z]+")  # wordfreq's tokenizer keeps such a word whole, so its value is its band's
_folder: Path | None = None
_table: list[str] | None = None  # "word zipf" lines, sorted
_lock = threading.Lock()


def keep_copy_in(folder: Path | None) -> None:
    """Where the plain copy is kept (None: nowhere, ask wordfreq); set once, by whoever serves the index."""
    global _folder
    _folder = folder


def zipf(word: str) -> float:
    """The word's frequency on the Zipf scale (wordfreq's zipf_frequency in English: 0 for a word it never saw)."""
    if _folder is not None and PLAIN.fullmatch(word):
        table = _table if _table is not None else _load(_folder)
        if table is not None:
            i = bisect_left(table, word + " ")  # a space sorts before every letter: "ab 4.1" < "abc 3.2"
            found = table[i] if i < len(table) else ""
            return float(found[len(word) + 1 :]) if found.startswith(word + " ") else 0.0
    return _zipf_frequency(word)


def _zipf_frequency(word: str) -> float:
    from wordfreq import zipf_frequency  # loads its tables on first use

    return zipf_frequency(word, "en")


def _load(folder: Path) -> list[str]:
    global _table
    with _lock:
        if _table is None:
            path = folder / f"wordfreq-{version('wordfreq')}-en.txt"
            _table = _read(path) or _write(path)
    return _table


def _read(path: Path) -> list[str] | None:
    """The copy's lines ("word zipf", sorted), or None when there is none or it is not whole (its first line
    counts the lines after it)."""
    try:
        count, *lines = path.read_text().split("\n")
    except OSError:
        return None
    if not count.isdigit() or len(lines) != int(count):
        log.warning("the word-frequency copy %s is damaged; writing it again", path)
        return None
    return lines


def _write(path: Path) -> list[str]:
    """wordfreq's English table, its plain words only, each with its band's Zipf value (asked of wordfreq for the
    band's first word, so it is wordfreq's own rounding); kept at `path` if the folder can be written."""
    from wordfreq import get_frequency_list

    values: dict[str, float] = {}
    for band in get_frequency_list("en"):
        words = [w for w in band if PLAIN.fullmatch(w)]
        if words:
            values.update(dict.fromkeys(words, _zipf_frequency(words[0])))
    lines = sorted(f"{word} {value}" for word, value in values.items())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_whole(path, "\n".join([str(len(lines)), *lines]))  # whole or not at all, for a process starting meanwhile
    except OSError as e:  # only saves time: the table is in memory either way
        log.warning("could not keep the word-frequency copy in %s (%s)", path.parent, e)
    return lines
