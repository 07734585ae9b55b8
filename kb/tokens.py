"""Turning text into search terms.

Terms are stored as 64-bit hashes so that an index built in one process can be
loaded in another without a shared vocabulary table, and so incremental syncs
never have to coordinate term ids. The default (English stopwords dropped,
Snowball stemming) was chosen with hybrid page ranking on three docs sets
together: stemming cost one sample question at recall@3 with BM25 alone, but
folds "increments"/"increment" on real manuals; bench/retrieval.py prints the
figures and tests/test_retrieval.py recomputes them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field

import Stemmer

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
# A word the docs write with hyphens ("fast-forward", "USB-C", "e-mail", "utf-8") is also indexed joined, as people type
# it in chat ("fastforward", "usbc", "email", "utf8").
_HYPHENATED = re.compile(r"(?<![\w-])[^\W_]+(?:-[^\W_]+)+(?![\w-])", re.UNICODE)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he her here
    hers herself him himself his how i i'm if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own
    same she should shouldn't so some such than that that's the their theirs them themselves then
    there there's these they this those through to too under until up very was wasn't we were weren't
    what what's when where which while who whom why with won't would wouldn't you your yours yourself
    yourselves please thanks thank hi hello hey
    whats thats wont dont cant isnt doesnt didnt im ive youre theres hows wheres whos arent wasnt
    shouldnt wouldnt couldnt hasnt havent""".split()  # contractions as typed in chat, without the apostrophe
)


@dataclass
class Tokenizer:
    """Lower-cases, splits on non-word characters, drops stopwords, stems."""

    stem: str | None = None  # None, "plural" (an S-stemmer) or "snowball"
    stopwords: bool = True
    joined: bool = True  # the docs' hyphenated words are also terms joined ("fast-forward": fastforward)
    _stemmer: Stemmer.Stemmer | None = field(default=None, init=False, repr=False)
    _hashes: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.stem == "snowball":
            self._stemmer = Stemmer.Stemmer("english")
        elif self.stem not in (None, "plural"):
            raise ValueError(f"unknown stemmer {self.stem!r}")

    @property
    def name(self) -> str:
        """Stored with the index: postings made by another analyzer are rebuilt by the next sync."""
        return f"{self.stem or 'plain'}{'-stop' if self.stopwords else ''}{'-joined' if self.joined else ''}"

    def words(self, text: str) -> list[str]:
        words = [w.replace("’", "'") for w in _WORD.findall(text.lower())]
        if self.stopwords:
            words = [w for w in words if w not in STOPWORDS]
        words = [w.split("'")[0] if "'" in w else w for w in words]
        if self._stemmer is not None:
            words = self._stemmer.stemWords(words)
        elif self.stem == "plural":
            words = [plural_stem(w) for w in words]
        return [w for w in words if w]

    def stems(self, words: list[str]) -> list[str]:
        """The terms these single words index as, one each (no splitting, no stopwords)."""
        if self._stemmer is not None:
            return self._stemmer.stemWords(words)
        return [plural_stem(w) for w in words] if self.stem == "plural" else list(words)

    def hash(self, term: str, remember: bool = True) -> int:
        """remember=False for one-off terms (a typo's variants), which would only fill the cache."""
        h = self._hashes.get(term)
        if h is None:
            h = int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")
            if remember and len(self._hashes) < 2_000_000:
                self._hashes[term] = h
        return h

    def docs_words(self, text: str) -> list[str]:
        """A text of the docs' terms: its words, and each hyphenated word joined as well ("USB-C": usb, c, usbc), so
        that a question typed without the hyphen finds it. A question's own hyphens add nothing: a joined form the docs
        never use ("see-through": seethrough) would only be a word they lack."""
        return self.words(text) + self._joined(text)

    def _joined(self, text: str) -> list[str]:
        if not self.joined or "-" not in text:
            return []
        joined = (w.replace("-", "") for w in _HYPHENATED.findall(text.lower()))
        return self.words(" ".join(w for w in joined if not w.isdigit()))

    def term_hashes(self, text: str) -> list[int]:
        return [self.hash(w) for w in self.words(text)]

    def counts(self, text: str) -> tuple[Counter[int], int]:
        """How often each of the docs' terms occurs in the text (docs_words), and the text's length in words: a joined
        form is a second spelling, not more text, so it leaves BM25's length normalisation as it was."""
        words = self.words(text)
        hashes = [self.hash(w) for w in words + self._joined(text)]
        return Counter(hashes), len(words)


def plural_stem(word: str) -> str:
    """Harman's S-stemmer: folds plurals ("refunds", "batteries") and nothing else."""
    if len(word) <= 3 or not word.endswith("s") or word.isdigit():
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith(("us", "ss")):
        return word
    return word[:-1]


DEFAULT_TOKENIZER = Tokenizer(stem="snowball")


def content_words(text: str) -> set[str]:
    """A text's words that say what it is about: stemmed, plurals folded, stopwords and short words left out."""
    return {plural_stem(w) for w in DEFAULT_TOKENIZER.words(text) if len(w) > 2}


def page_words(title: str, path: str) -> set[str]:
    """What a page is about, by its title and its path ("help/returns-and-refunds.md")."""
    return content_words(f"{title} {path.replace('/', ' ').replace('-', ' ').replace('_', ' ')}")
