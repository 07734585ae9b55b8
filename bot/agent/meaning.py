"""Whether what the local answerer found is about the question in meaning, not only in words.

Words alone coincide ("jane@laptop" for "who do I ask for a new laptop"), so a page is quoted only when it is also
close in meaning: with the sentence encoder, line by line; without it, by the dense ranking of the first search.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from bot.agent.evidence import Passage
from bot.agent.lines import quotable
from kb.chunking import unnumbered
from kb.embedding import Embedder
from kb.encoder import CLOSE, RELATED
from kb.hits import Hit, HitRecord

# Without the encoder: one of a page's chunks in the first search ranks within this share of the docs' chunks (at
# least MEANING_FLOOR) by dense similarity to the question. On three docs sets the right pages ranked within 1%,
# coincidences 2.5%-none.
MEANING_SHARE, MEANING_FLOOR = 0.02, 10
# With the encoder: the best quotable line of the first search's best pages, by its cosine with the question. Below
# RELATED nothing found is about the question; below CLOSE a question whose subject the docs never use is not
# answered (kb.encoder says how they were measured).
MEANING_PAGES = 3  # the lines judged are those of the first search's best pages
# The rankings kb.search fuses, as each hit records them: the encoder's first, as the one that orders the top pages.
RANKINGS = ("meaning_rank", "bm25_rank", "dense_rank")


class Meaning(NamedTuple):
    best: float  # the best cosine of a line found with the question
    pages: set[str]  # the pages holding a line about the question
    # With absent words: how much closer the closest line is to the question with them than without them
    gain: float | None = None
    closest: str = ""  # the line with the best cosine


def judge(
    question: str, first: Sequence[Passage], encoder: Embedder, as_quoted: Callable[[str], str], absent: Sequence[str] = ()
) -> Meaning | None:
    """The lines of the first search's best pages against the question, each as it would be quoted (a long
    paragraph by its answering sentences) and read under its section's name; None when they hold no quotable line.
    With the words of the question the docs never use (absent), the lines against the question without them too."""
    pages = list(dict.fromkeys(p.hit.path for p in first))[:MEANING_PAGES]  # the same lines however many a search shows
    sections: dict[str, str] = {}  # each quotable line, the section it is read in
    for p in first:
        if p.hit.path in pages:
            name = section(p.hit.heading)  # one per passage: its lines share its heading
            for text in filter(quotable, p.blocks):
                sections.setdefault(text, name)
    if not sections:
        return None
    lines = list(sections)
    read = (": ".join(filter(None, [sections[t], as_quoted(t).replace("…", " ")])) for t in lines)
    vectors = encoder.embed([question, *read])
    cosines = vectors[1:] @ vectors[0]
    related = {text for text, c in zip(lines, cosines.tolist()) if c >= RELATED}
    gain = None
    if absent:  # the two questions encoded together, so that they are read alike (int8 activations are batch-scaled)
        whole, without = encoder.embed([question, left_out(question, absent)])
        gain = float((vectors[1:] @ whole).max() - (vectors[1:] @ without).max())
    about = {p.hit.path for p in first if related.intersection(p.blocks)}
    return Meaning(float(cosines.max()), about, gain, lines[int(cosines.argmax())])


def section(heading: str) -> str:
    """A line's own section, which it is read in: "The default is 20 and the maximum is 100" says what about only under
    "Page size". The last part of the heading path, without its numbering ("3.7.3. Options": "Options")."""
    return unnumbered(heading.rsplit(" > ", 1)[-1])


# A word the docs never use carries the question when leaving it out moves the question's vector this far. Over the
# six docs sets of bench/retrieval.py, of 36 uncovered questions with such a word 22 fell under 0.8 ("install postgres
# on my iphone" 0.76, "webpack" 0.73); of 34 answerable ones 4 did, 3 of them unanswered already and the fourth's best
# line close in meaning ("skip a song" 0.75); incidental words ("biggest", "plug", "anymore") leave 0.85-0.99.
CARRIES = 0.8


def carried(question: str, unknown: Sequence[str], encoder: Embedder) -> list[str]:
    """The words the docs never use, when the question's meaning rests on them: without them it is another question.
    Rarity alone misses a subject beside a rarer word the docs do use ("install postgres on my iphone")."""
    if not unknown:
        return []
    whole, without = encoder.embed([question, left_out(question, unknown)])
    return list(unknown) if float(whole @ without) < CARRIES else []


def left_out(question: str, words: Sequence[str]) -> str:
    """The question without these words."""
    return re.sub(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b", " ", question, flags=re.I)


def why_far(meaning: Meaning, absent: Sequence[str]) -> str | None:
    """Why the docs cannot answer: no line is about the question, or its subject is a word the docs never use and
    no line is close to it ("skip a song" finds "Tap twice: next track"), or none is closer to the question for
    that word than to the question without it: the lines found answer the rest of it ("is there a gnucash app for
    my android phone" finds the macOS app's language setting, closer to the question without "android")."""
    if meaning.best < RELATED:
        return f"no line found is about the question (best cosine {meaning.best:.2f})"
    if absent and meaning.best < CLOSE:
        return f"the docs never use {', '.join(absent)} and no line is close in meaning (best cosine {meaning.best:.2f})"
    if absent and meaning.gain is not None and meaning.gain <= 0:
        return (
            f"the docs never use {', '.join(absent)} and no line found is closer to the question for it "
            f"(best cosine {meaning.best:.2f}, {-meaning.gain:.2f} closer without it)"
        )
    return None


def close_by_rank(first: Sequence[Passage], docs_chunks: int) -> set[str]:
    """Without the encoder: the pages of the first search whose chunk ranks near the top by dense similarity."""
    cutoff = max(MEANING_FLOOR, MEANING_SHARE * docs_chunks)
    return {p.hit.path for p in first if p.hit.dense_rank is not None and p.hit.dense_rank <= cutoff}


def not_far(p: Passage) -> bool:
    """Not known to be far from its search's query in meaning: the encoder's cosine is at least RELATED, or the
    chunk has no vector yet."""
    return p.hit.cosine is None or p.hit.cosine >= RELATED


def contested(first: Sequence[Passage]) -> str | None:
    """The second page of the first search among those close to the question in meaning, when one of the rankings
    the search fused put it ahead of the first: the rankings disagree on which page answers. When the right page
    was second to fifth, an answer quoting only the first was right 9 times in 36 (bench/retrieval.py, three real
    docs sets)."""
    pages = list(dict.fromkeys(p.hit.path for p in first if not_far(p)))
    if len(pages) < 2:
        return None
    return pages[1] if any(place(first, pages[1], r) < place(first, pages[0], r) for r in RANKINGS) else None


def place(first: Sequence[Passage], path: str, ranking: str) -> float:
    """A page's place in one of the rankings (RANKINGS): its best passage's there, infinite when none is ranked."""
    ranks = [getattr(p.hit, ranking) for p in first if p.hit.path == path]
    return min((r for r in ranks if r is not None), default=float("inf"))


def disowned(first: Sequence[Passage]) -> str | None:
    """Why the first search's first page is not to be quoted: neither the words nor the meaning put it first. BM25
    ranks none of its chunks first and the sentence encoder ranks it below its own first MEANING_PAGES, so it leads
    only by the fusion of the rankings. On the nine sets of bench/retrieval.py and their held-out questions
    (2026-12-07) it withholds 36 answers: 10 right, 17 wrong, 9 to questions the docs do not cover. BM25's first page is
    kept: of the 12 such answers the encoder's rank alone would withhold, 9 were right."""
    if not first or among_meanings_first(first[0].hit):
        return None
    if place(first, first[0].hit.path, "bm25_rank") == 1:
        return None
    rank = first[0].hit.meaning_rank
    return f"the page found first is neither the words' first nor among the first {MEANING_PAGES} in meaning (number {rank})"


def among_meanings_first(hit: Hit | HitRecord) -> bool:
    """Not known to rank below the sentence encoder's first MEANING_PAGES pages of its search: the encoder put its
    page among them, or did not rank it (no vector yet, or a search without the encoder)."""
    return hit.meaning_rank is None or hit.meaning_rank <= MEANING_PAGES


def ranking_first(first: Sequence[Passage], ranking: str) -> str | None:
    """The page one of the rankings the search fused (RANKINGS) puts first among the first search's pages not far
    from the question in meaning, when the fused order put another first. contested() looks at the second page only;
    a ranking's own choice can stand third or lower where the others point elsewhere ("test how fast borg runs on my
    disks": the encoder's borg benchmark crud; "empty a table fast but keep the table itself": BM25's TRUNCATE). An
    answer quoting the encoder's beside the fused ranking's choice was right 4 times more on the eight sets of
    bench/retrieval.py and their held-out questions, and never wrong where it had been right; BM25's and the dense
    ranking's as well, 6 more (2026-12-07)."""
    ranked = [p for p in first if getattr(p.hit, ranking) is not None and not_far(p)]
    if not ranked:
        return None
    best = min(ranked, key=lambda p: (getattr(p.hit, ranking), p.index))
    return None if best.hit.path == first[0].hit.path else best.hit.path
