"""How much of a question (kb.question) a passage covers, with each word weighted by its rarity in English and here.

BM25's IDF only knows the docs: on a four-page folder every word is common and a one-word match can never reach a
fixed score, while on a large manual a single generic word ("days") scores high. A question's words carry their rarity
in English (kb.question), which does not depend on the docs folder.

Rarity in the docs matters too: "earbuds" in an earbuds help centre is rare in English but tells no page from another.
So in coverage a word weighs its English rarity times its IDF in the docs relative to the IDF of a word in one chunk
(a word in no chunk keeps its full weight: no passage covers it).
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.index import lucene_idf
from kb.question import QuestionWord

MIN_SHARE = 0.35  # a passage holding this much of the question's weight is evidence whatever its BM25 score
MIN_SHARE_WITH_SCORE = 0.2  # ... and with a BM25 score over the floor, this much


@dataclass(frozen=True)
class Coverage:
    share: float  # weighted share of the question's words the passage contains
    matched: tuple[str, ...]
    missing_focus: tuple[str, ...]  # focus words the passage lacks
    has_focus: bool  # it holds a focus word, or the question has none


def docs_weights(words: list[QuestionWord], df: dict[str, int], chunks: int) -> dict[str, float]:
    """Each word's weight for coverage: English rarity times its IDF here over the IDF of a word in one chunk."""
    rarest = float(lucene_idf(chunks, 1)) or 1.0
    return {w.term: w.weight * min(1.0, float(lucene_idf(chunks, max(df.get(w.term, 0), 1))) / rarest) for w in words}


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


STRENGTHS = ("strong", "partial", "weak")


def strength(cover: Coverage, bm25_score: float, min_score: float, close_in_meaning: bool) -> str:
    """How strongly a passage matches a query, for the reader to weigh (search never withholds one):
    strong: it holds the query's subject and passes the evidence rule; partial: it holds the subject, or is
    close to the query in meaning; weak: neither."""
    if cover.has_focus and is_evidence(cover, bm25_score, min_score):
        return "strong"
    return "partial" if cover.has_focus or close_in_meaning else "weak"
