"""How much of a question a passage covers, with each word weighted by its rarity in English.

BM25's IDF only knows the docs: on a four-page folder every word is common and a
one-word match can never reach a fixed score, while on a large manual a single
generic word ("days") scores high. Rarity in general English does not depend on
the docs folder: a word's weight is 8 - its Zipf frequency (wordfreq's tables,
shipped in the package: "the" is about 7.7, "refund" 3.4, "vacation" 4.4), and
words as common as "days", "make" or "version" (Zipf >= 5) are never the focus of
a question on their own.

Rarity in the docs matters too: "earbuds" in an earbuds help centre is rare in
English but tells no page from another. So in coverage a word weighs its English
rarity times its IDF in the docs relative to the IDF of a word in one chunk (a word
in no chunk keeps its full weight: no passage covers it).

When the question's rarest word (one wordfreq knows) is nowhere in the docs
("vacation", "smartwatch"), no passage can answer it. A word neither wordfreq nor
the docs know is most likely a typo: it is not counted against a passage.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from kb.index import lucene_idf
from kb.tokens import Tokenizer

GENERIC_ZIPF = 5.0  # words at least this common are not a question's focus
MAX_WEIGHT = 8.0  # a word wordfreq has never seen


@lru_cache(maxsize=100_000)
def zipf(word: str) -> float:
    from wordfreq import zipf_frequency  # loads its tables on first use

    return zipf_frequency(word, "en")


@dataclass(frozen=True)
class QuestionWord:
    word: str  # as asked, lower-cased
    term: str  # as indexed (stemmed)
    weight: float
    focus: bool  # rare enough to be what the question is about
    known: bool  # wordfreq knows it (an unknown word the docs never use is likely a typo)


def question_words(text: str, tokenizer: Tokenizer) -> list[QuestionWord]:
    """The question's content words, once each, with their weights."""
    out: dict[str, QuestionWord] = {}
    surface = Tokenizer(stem=None, stopwords=tokenizer.stopwords)
    for word in surface.words(text):
        terms = tokenizer.words(word)
        if not terms or terms[0] in out:
            continue
        z = zipf(word)
        out[terms[0]] = QuestionWord(word, terms[0], max(0.5, MAX_WEIGHT - z), z < GENERIC_ZIPF, z > 0)
    return list(out.values())


MIN_SHARE = 0.35  # a passage holding this much of the question's weight is evidence whatever its BM25 score
MIN_SHARE_WITH_SCORE = 0.2  # ... and with a BM25 score over the floor, this much


@dataclass(frozen=True)
class Coverage:
    share: float  # weighted share of the question's words the passage contains
    matched: tuple[str, ...]
    missing_focus: tuple[str, ...]  # focus words the passage lacks
    has_focus: bool  # it holds a focus word, or the question has none


def rarest_unknown(words: list[QuestionWord], df: dict[str, int]) -> str | None:
    """The question's rarest word, when the docs never use it."""
    known = [w for w in words if w.known]
    if not known:
        return None
    rarest = max(known, key=lambda w: w.weight)
    return rarest.word if rarest.focus and df.get(rarest.term, 0) == 0 else None


def docs_weights(words: list[QuestionWord], df: dict[str, int], chunks: int) -> dict[str, float]:
    """Each word's weight for coverage: English rarity times its IDF here over the IDF of a word in one chunk."""
    rarest = float(lucene_idf(chunks, 1)) or 1.0
    return {
        w.term: w.weight * min(1.0, float(lucene_idf(chunks, max(df.get(w.term, 0), 1))) / rarest) for w in words
    }


def coverage(words: list[QuestionWord], present: set[str], weights: dict[str, float]) -> Coverage:
    """present: the indexed terms a passage contains; weights: from docs_weights."""
    counted = [w for w in words if w.known or w.term in present]  # a typo the passage lacks weighs nothing
    total = sum(weights[w.term] for w in counted) or 1.0
    focus = [w for w in words if w.focus]
    return Coverage(
        share=sum(weights[w.term] for w in counted if w.term in present) / total,
        matched=tuple(w.word for w in words if w.term in present),
        missing_focus=tuple(w.word for w in focus if w.term not in present),
        has_focus=not focus or any(w.term in present for w in focus),
    )


def is_evidence(cover: Coverage, bm25_score: float, min_score: float) -> bool:
    """The evidence rule: enough of the question's weight, or some of it and a BM25 score over the floor.

    The floor alone fails at both ends: on a tiny folder IDF is small and a right one-word
    match scores under it; on a large one a single generic word ("days") scores far over it.
    """
    return cover.share >= MIN_SHARE or (bm25_score >= min_score and cover.share >= MIN_SHARE_WITH_SCORE)
