"""The local answerer: a deterministic controller in the model's place, so the bot works with no API key.

It knows nothing about particular documents, only a method:
1. search with the question (plus the previous question's words, for a short follow-up);
2. while the evidence is thin and searches bring something new, search again in the
   documentation's own vocabulary, taken from the passages already read (pseudo-relevance
   feedback);
3. answer extractively: quote the few lines that best cover the question, each cited, or
   abstain when no line covers enough of it. The page the first search ranked first (BM25 and
   meaning, fused) always gets its best line in, since line scoring matches words only.
   Lines that speak to an assistant are never quoted.
Arithmetic questions go to the calculator.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from bot.agent.evidence import Passage
from bot.agent.loop import Draft, Reply
from bot.agent.tools import CALCULATOR, SEARCH_DOCS, Toolbox, ToolCall, ToolResult
from bot.agent.types import Citation, Segment
from kb.coverage import GENERIC_ZIPF, docs_weights, zipf
from kb.encoder import CLOSE, RELATED
from kb.screening import speaks_to_assistant
from kb.tokens import Tokenizer, plural_stem

INTRO = "From the docs (an extractive answer: the lines below are quoted as written):\n"
THIN = 0.6  # below this coverage of the question, search again
NUMBER_BONUS = 0.3  # a line with a number, when the question asks for an amount, a duration or a time
ENOUGH = 0.3  # below this coverage of the question by the best passage, abstain
HEADING_CREDIT = 0.5  # a question word found in the line's heading counts half
MAX_LINES = 3
LONG_LINE = 300  # characters: a longer line is quoted by its sentences that answer
MAX_SENTENCES = 2
# Words that shape a question but say nothing about its subject: they do not need covering.
QUESTION_WORDS = frozenset(
    "much many long often really mean means need needs get got like want know tell way ways possible exactly also "
    "still ever anything something somewhere thing things kind sort".split()
)
EXPANSION_TERMS = 3
RANK_FLOOR, RANK_DECAY = 0.5, 0.25  # a passage's relevance: its coverage, discounted by its search rank
HOP_MAX_DF, HOP_MAX_SHARE = 3, 0.01  # a name in more chunks than this is too common to search for
BAND = 0.7  # lines are quoted from the passages at least this relevant, relative to the best
# A quoted page must also be close in meaning: one of its chunks in the first search ranks within this share of
# the docs' chunks (at least MEANING_FLOOR) by dense similarity to the question. Words alone coincide ("jane@laptop"
# for "who do I ask for a new laptop"); on three docs sets the right pages ranked within 1%, coincidences 2.5%-none.
MEANING_SHARE, MEANING_FLOOR = 0.02, 10
# With the sentence encoder, meaning is judged line by line: the best quotable line of the first search's best pages,
# by its cosine with the question. Below RELATED nothing found is about the question; below CLOSE a question whose
# subject the docs never use is not answered (kb.encoder says how they were measured).
MEANING_PAGES = 3  # the lines judged are those of the first search's best pages

_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)"  # 1,200 or 1200, never a trailing comma
_NUM = rf"\(?[$€£]?{_DIGITS}(?:\.\d+)?%?\)?"
_OP = r"(?:[*/×÷x^+\-]|\bof\b)"
_EXPRESSION = re.compile(rf"{_NUM}(?:\s*{_OP}\s*{_NUM})+", re.IGNORECASE)
_ASKS_FOR_A_NUMBER = re.compile(
    r"\bhow (long|many|much|often|soon|far|big|old)\b|^\s*when\b|\bwhat (time|day|version|price)\b|\b(cost|price|fee)s?\b",
    re.IGNORECASE,
)
# A quantity only a number answers ("how many", "how long", "what does it cost"); "when" may be "on Fridays".
_ASKS_HOW_MUCH = re.compile(r"\bhow (long|many|much|often|old|big|far)\b|\b(cost|price|fee)s?\b", re.IGNORECASE)
_ASKS_TO_COMPUTE = re.compile(r"^\s*(what(?:'s|’s|s| is)|how much is|calculate|compute)\b|[*/×÷^=]|\d\s*x\s*\d|%\s*of\b", re.I)


_PCT, _AMOUNT = r"(\d+(?:\.\d+)?)\s*%", rf"[$€£]?({_DIGITS}(?:\.\d+)?)"
_ARTICLE = r"(?:(?:a|an|the|my|our|your|each)\s+)?"
_NOUN = r"(?:\s+[a-z]+){0,2}?"  # "order", "seats", "monthly plan": what an amount is of
_DISCOUNT = re.compile(rf"{_PCT}\s*(?:off|discount\s+on|less\s+than)\s+{_ARTICLE}{_AMOUNT}", re.IGNORECASE)
_MARKUP = re.compile(rf"{_AMOUNT}{_NOUN}\s+(?:plus|with|\+)\s+{_PCT}", re.IGNORECASE)
_PERCENT_OF = re.compile(rf"{_PCT}\s*of\s+{_ARTICLE}{_AMOUNT}", re.IGNORECASE)
_EACH = re.compile(rf"\b({_DIGITS}){_NOUN}\s+(?:at|for|x|×)\s+{_AMOUNT}\s*(?:each|apiece|a piece|per\s+\w+)", re.IGNORECASE)
_WORDS = (  # people's words for operators, between two numbers
    (re.compile(r"\bper\s*cent\b|\bpercent\b", re.I), "%"),
    (re.compile(r"(?<=\d)\s+(?:times|multiplied by)\s+(?=[$€£]?\d)", re.I), " * "),
    (re.compile(r"(?<=\d)\s+divided by\s+(?=[$€£]?\d)", re.I), " / "),
    (re.compile(r"(?<=\d)\s+plus\s+(?=[$€£]?\d[\d,.]*(?!\s*%))", re.I), " + "),
    (re.compile(r"(?<=\d)\s+minus\s+(?=[$€£]?\d)", re.I), " - "),
)


def arithmetic_in(question: str) -> str | None:
    """The arithmetic expression a question asks to compute, in people's words too ("12% of a $340 order": 12% of 340;
    "20 percent off 45": 45 - 20% of 45; "$340 plus 12%": 340 + 12% of 340; "3 seats at $12 each": 3 * 12)."""
    for words, op in _WORDS:
        question = words.sub(op, question)
    if not (
        _ASKS_TO_COMPUTE.search(question) or _DISCOUNT.search(question) or _MARKUP.search(question) or _EACH.search(question)
    ):
        return None
    question = _DISCOUNT.sub(lambda m: f"{m[2]} - {m[1]}% of {m[2]}", question)
    question = _MARKUP.sub(lambda m: f"{m[1]} + {m[2]}% of {m[1]}", question)
    question = _PERCENT_OF.sub(lambda m: f"{m[1]}% of {m[2]}", question)
    question = _EACH.sub(lambda m: f"{m[1]} * {m[2]}", question)
    found = [m.group(0) for m in _EXPRESSION.finditer(question)]
    return max(found, key=len).strip() if found else None


_CAPTION = re.compile(
    r"^(?:figure|fig\.|table|example)\s+[\d.]+\S*\s+(?:\S+\s+){0,9}\S+$", re.I
)  # "Figure 17.94. Video filter options"
_LETTER_OR_SPACE = re.compile(r"[^\W\d_]|\s")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
CONTEXT_ITEMS = 4  # list items quoted around the best one


def _quotable(text: str) -> bool:
    """Prose worth quoting: not an instruction to an assistant, not a bare heading, caption, rule or code."""
    if speaks_to_assistant(text) or len(text.split()) < 3 or set(text) <= set("|-: ") or _CAPTION.match(text):
        return False
    if text.startswith("|"):  # a table row: quotable when it has more than labels
        return any(ch.isdigit() for ch in text)
    return len(_LETTER_OR_SPACE.findall(text)) >= 0.7 * len(text)


def _is_separator(line: str) -> bool:
    return line.startswith("|") and set(line) <= set("|-: ")


def is_table_header(blocks: list[str], i: int) -> bool:
    return blocks[i].startswith("|") and i + 1 < len(blocks) and _is_separator(blocks[i + 1])


def header_of(blocks: list[str], i: int) -> int | None:
    """The header row of the Markdown table whose body line i is, if it is one."""
    if not blocks[i].startswith("|") or _is_separator(blocks[i]):
        return None
    row = i - 1
    while row >= 1 and blocks[row].startswith("|"):
        if _is_separator(blocks[row]):
            return row - 1 if blocks[row - 1].startswith("|") else None
        row -= 1
    return None


# "the firm that took over Northwind", "the headphones made by ...": something described, not named
_DESCRIPTION = re.compile(r"\bthe \w+(?: \w+)? (?:that|which|who|whose)\b|\b(?:made|owned|bought|run|built|sold) by\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(`\"'])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
_NAME = re.compile(r"\b[A-Z][\w+-]*(?:\s+[A-Z][\w+-]*)*")


def links_in(line: str) -> list[tuple[str, str]]:
    """The Markdown links of a line: (text, target)."""
    return [(m[1], m[2]) for m in _LINK.finditer(line)]


def names_in(line: str, question: str) -> list[str]:
    """Capitalised phrases a line names that the question does not, each with a word rarer than everyday
    English ("Fabrikam", not "In"); link texts first."""
    asked = set(re.findall(r"\w+", question.lower()))
    found = [text for text, _ in links_in(line)] + [m[0] for m in _NAME.finditer(_LINK.sub(" ", line))]
    out: list[str] = []
    for name in found:
        words = re.findall(r"\w+", name.lower())
        if words and not asked.intersection(words) and any(zipf(w) < GENERIC_ZIPF for w in words) and name not in out:
            out.append(name)
    return out


_SURFACE = Tokenizer(stem=None)  # words as written, stopwords dropped


class Candidate(NamedTuple):
    """A quotable line of a passage read, scored for how well it answers the question."""

    score: float
    passage: Passage
    i: int  # the line's index in passage.blocks

    @property
    def text(self) -> str:
        return self.passage.blocks[self.i]


def _has_amount(text: str) -> bool:
    """A number in the line's text, not just its list numbering."""
    return any(ch.isdigit() for ch in re.sub(r"^\s*(\d+[.)]|[-*])\s+", "", text))


class LocalAnswerer:
    name = "local"
    model = None

    def __init__(self) -> None:
        self.usage: dict = {}

    def begin(self, question: str, history: list[tuple[str, str]], toolbox: Toolbox) -> None:
        self.toolbox = toolbox
        self.index = toolbox.searcher.index
        self.read = toolbox.searcher.read(question)  # the question's words against the docs, typos corrected
        question = self.read.query(question)
        words = self.index.tokenizer.words
        self.terms = list(dict.fromkeys(words(question)))
        previous = next((text for role, text in reversed(history) if role == "user"), "")
        context = [t for t in dict.fromkeys(words(previous)) if t not in self.terms and t not in QUESTION_WORDS]
        context = context if len(self.terms) <= 4 else []
        self.query = " ".join([question, *context]) if context else question
        targets = [t for t in self.terms + context if t not in QUESTION_WORDS]
        self.weights = self._rarity_weights(targets)
        for t in context:  # the follow-up's own words matter most
            self.weights[t] *= 0.5
        self.stems = {t: plural_stem(t) for t in self.weights}
        self._passage_words: dict[int, set[str]] = {}
        self._read_texts: dict[str, frozenset[str]] = {}
        self.question = question
        self.expression = arithmetic_in(question)
        self.wants_number = bool(_ASKS_FOR_A_NUMBER.search(question))
        self.needs_number = bool(_ASKS_HOW_MUCH.search(question))
        self.calls = 0
        self.tried = {self.query}
        self.started = False
        self.stalled = False
        self.hopped = False
        self.linked = False
        self.describes = bool(_DESCRIPTION.search(question))
        self.value: str | None = None
        self.first_search: int | None = None  # passages the first search showed: the ones ranked for the question
        self.absent = toolbox.searcher.absent_subject(question)  # the question's subject, if the docs never use it
        self.encoder = toolbox.searcher.encoder
        self.meant: set[str] | None = None  # with the encoder: the best pages holding a line about the question

    def _rarity_weights(self, targets: list[str]) -> dict[str, float]:
        """Rare in English and rare in these docs (kb.coverage): the same weights the evidence rule uses."""
        words = [w for w in self.read.words if w.term in targets]
        known = {w.term for w in words}
        extra = [t for t in targets if t not in known]  # a follow-up's context words
        weights = docs_weights(words, self.read.df, self.index.bm25.size)
        weights.update(zip(extra, (i / 2 for i in self.index.idf(extra))))
        return {t: weights[t] for t in targets if t in weights}

    def step(self) -> Reply:
        if not self.started:
            self.started = True
            if self.expression:
                return Reply([self._call(CALCULATOR, {"expression": self.expression}, "The question asks for arithmetic.")])
            return Reply([self._call(SEARCH_DOCS, {"query": self.query}, "Search with the question's own words first.")])
        if self.expression:
            return Reply(draft=Draft([Segment(self.value or f"I could not compute {self.expression}.")]))
        coverage = self._best_coverage()
        if coverage < THIN and self.describes and not self.hopped and self.toolbox.searches_left > 0:
            hop = self._hop()
            if hop is not None:
                self.hopped = True
                name, query = hop
                self.tried.add(query)
                why = (
                    f"The best line names {name}, which the question only describes: search for it with the rest of the question."
                )
                return Reply([self._call(SEARCH_DOCS, {"query": query}, why)])
        link = self._unread_link() if not self.linked and self.toolbox.searches_left > 0 else None
        if link is not None:
            self.linked = True
            text, query = link
            self.tried.add(query)
            why = f"The best line points to “{text}” for the rest, a page not read yet: search for it."
            return Reply([self._call(SEARCH_DOCS, {"query": query}, why)])
        if coverage < THIN and not self.stalled and self.toolbox.searches_left > 0:
            reformulated = self._reformulate()
            if reformulated and reformulated not in self.tried:
                self.tried.add(reformulated)
                why = f"The best passage covers {coverage:.0%} of the question: search again in the docs' own words."
                return Reply([self._call(SEARCH_DOCS, {"query": reformulated}, why)])
        return Reply(draft=self._compose())

    def observe(self, results: list[ToolResult]) -> None:
        for r in results:
            if r.call.name == CALCULATOR:
                self.value = r.observation if not r.is_error else None
            else:
                self.stalled = r.stalled or r.is_error
                if self.first_search is None:
                    self.first_search = len(self.toolbox.ledger.passages)

    # -- the method -------------------------------------------------------------------------

    def _call(self, name: str, args: dict, thought: str) -> ToolCall:
        self.calls += 1
        return ToolCall(f"local_{self.calls}", name, args, thought)

    def _words(self, text: str) -> frozenset[str]:
        """Words for matching lines to the question: plurals folded ("costs" answers "cost"). Each text is read
        once a question: the method rescans the same lines several times."""
        words = self._read_texts.get(text)
        if words is None:
            words = self._read_texts[text] = frozenset(plural_stem(w) for w in self.index.tokenizer.words(text))
        return words

    def _coverage(self, words: AbstractSet[str], heading_words: AbstractSet[str] = frozenset()) -> float:
        """How much of the question (by IDF weight) these words cover; a heading word counts half."""
        total = sum(self.weights.values()) or 1.0
        got = 0.0
        for t, w in self.weights.items():
            stem = self.stems[t]
            got += w if stem in words else HEADING_CREDIT * w if stem in heading_words else 0
        return got / total

    def _passages(self):
        """Passages read so far with their relevance: coverage of the question, tempered by search rank."""
        passages = self.toolbox.ledger.passages
        for p in passages:
            if p.index not in self._passage_words:  # passages never change: read each once
                self._passage_words[p.index] = self._words(" ".join([p.title, *p.blocks]))
            cover = self._coverage(self._passage_words[p.index])
            rank_weight = RANK_FLOOR + (1 - RANK_FLOOR) / (1 + RANK_DECAY * p.index)  # the ledger keeps the ranked order
            yield cover * rank_weight, cover, p

    def _candidates(self):
        """Quotable lines of the most relevant passages: (score, passage, block index)."""
        ranked = sorted(self._passages(), key=lambda x: -x[0])
        if not ranked:
            return
        best = ranked[0][0]
        for relevance, _, p in ranked:
            if relevance < BAND * best:
                break
            yield from self._lines(p, relevance)

    def _ranked(self) -> list[Candidate]:
        """The candidate lines, best first (ties: the earlier passage, then the earlier line)."""
        return sorted(self._candidates(), key=lambda c: (-c.score, c.passage.index, c.i))

    def _lines(self, p: Passage, relevance: float) -> Iterator[Candidate]:
        """A passage's quotable lines, scored by how much of the question each covers."""
        heading_words = self._words(p.title)
        for i, text in enumerate(p.blocks):
            if is_table_header(p.blocks, i) or not _quotable(text):
                continue
            bonus = NUMBER_BONUS if self.wants_number and _has_amount(text) else 0.0
            header = header_of(p.blocks, i)
            words = self._words(text if header is None else f"{text} {p.blocks[header]}")  # a cell means what its column says
            yield Candidate(self._coverage(words, heading_words) + 0.5 * relevance + bonus, p, i)

    def _followed(self, p, i: int):
        """The best line of each passage read whose page this line links to ("covered in [Compatibility](...)")."""
        here = posixpath.dirname(p.hit.path)
        for _, target in links_in(p.blocks[i]):
            if not target or "://" in target or target.startswith(("#", "mailto:")):
                continue
            best = self._best_line(posixpath.normpath(posixpath.join(here, target.split("#")[0])))
            if best is not None:
                yield best

    def _unread_link(self) -> tuple[str, str] | None:
        """The best line says where the rest is ("covered in [Compatibility](compatibility.md)"), on a page no
        search has shown: (the link's text, a search for it with the question)."""
        ranked = self._ranked()
        if not ranked:
            return None
        _, p, i = ranked[0]
        read = {q.hit.path for q in self.toolbox.ledger.passages}
        here = posixpath.dirname(p.hit.path)
        for text, target in links_in(p.blocks[i]):
            if not target or "://" in target or target.startswith(("#", "mailto:")):
                continue
            if posixpath.normpath(posixpath.join(here, target.split("#")[0])) not in read:
                return text, f"{text} {self.question}"
        return None

    def _best_line(self, path: str, wanted: set[str] | None = None):
        """The best quotable line of a page among the passages read (holding one of `wanted`, if given)."""
        lines = [
            c
            for q in self.toolbox.ledger.passages
            if q.hit.path == path
            for c in self._lines(q, 0.0)
            if wanted is None or self._words(c.text) & wanted
        ]
        return max(lines, key=lambda c: (c.score, -c.passage.index, -c.i), default=None)

    def _best_coverage(self) -> float:
        return max((cover for _, cover, _ in self._passages()), default=0.0)

    def _hop(self) -> tuple[str, str] | None:
        """A second hop: the best line answers part of the question and names something the question only
        describes ("the firm that took over Northwind": "Fabrikam"); search for that name with the question's
        words the line lacks. A name the docs use everywhere (the product's brand) tells nothing."""
        ranked = self._ranked()
        if not ranked:
            return None
        _, p, i = ranked[0]
        common = max(HOP_MAX_DF, HOP_MAX_SHARE * self.index.size)
        names = [
            n
            for n in names_in(p.blocks[i], self.question)
            if min(self.index.bm25.df(self.index.tokenizer.words(n)) or [0]) <= common
        ]
        if not names:
            return None
        have = self._words(p.blocks[i])
        rest = [w.word for w in self.read.words if w.term in self.weights and self.stems[w.term] not in have]
        return names[0], " ".join([names[0], *rest])

    def _reformulate(self) -> str | None:
        """The question plus the words the best passages use most, rare ones first, as the docs write them."""
        tokenizer = self.index.tokenizer
        seen: Counter[str] = Counter()
        surface: dict[str, str] = {}
        for p in self.toolbox.ledger.passages[:3]:
            for text in p.blocks:
                if speaks_to_assistant(text):
                    continue
                words = _SURFACE.words(text)
                for word, term in zip(words, tokenizer.stems(words)):
                    seen[term] += 1
                    surface.setdefault(term, word)
        for t in self.weights:
            seen.pop(t, None)
        if not seen:
            return None
        idf = dict(zip(seen, self.index.idf(list(seen))))
        ranked = sorted(seen, key=lambda t: -seen[t] * idf[t])
        return " ".join([self.query, *(surface[t] for t in ranked[:EXPANSION_TERMS])])

    def _far_from_meaning(self) -> str | None:
        """Why the docs cannot answer, judged by meaning: no line the first search found is about the question,
        or its subject is a word the docs never use and no line is close to it ("skip a song" finds "Tap twice:
        next track"; "the price of the smartwatch" finds only prices of other things)."""
        if self.encoder is None:
            return None
        first = self.toolbox.ledger.passages[: self.first_search]
        pages = list(dict.fromkeys(p.hit.path for p in first))[:MEANING_PAGES]  # the same lines however many a search shows
        lines = list(dict.fromkeys(t for p in first if p.hit.path in pages for t in p.blocks if _quotable(t)))
        if not lines:
            return None
        quoted = [self._excerpt(text).replace("…", " ") for text in lines]  # a long paragraph as it would be quoted
        vectors = self.encoder.embed([self.question, *quoted])
        cosines = vectors[1:] @ vectors[0]
        related = {text for text, c in zip(lines, cosines.tolist()) if c >= RELATED}
        self.meant = {p.hit.path for p in first if related.intersection(p.blocks)}
        best = float(cosines.max())
        if best < RELATED:
            return f"no line found is about the question (best cosine {best:.2f})"
        if self.absent and best < CLOSE:
            return f"the docs never use {', '.join(self.absent)} and no line is close in meaning (best cosine {best:.2f})"
        return None

    def _compose(self) -> Draft:
        far = self._far_from_meaning()
        if far is not None:
            return Draft([], note=far)
        coverage = self._best_coverage()
        strong = any(  # the search's evidence rule weighs the docs' own rarity: either test will do, if meaning agrees
            p.hit.strength == "strong" and (p.hit.cosine is None or p.hit.cosine >= RELATED)
            for p in self.toolbox.ledger.passages[: self.first_search]
        )
        if coverage < ENOUGH and not strong:
            return Draft(
                [], note=f"the best passage covers {coverage:.0%} of the question" if self.toolbox.ledger else "nothing found"
            )
        ranked = self._ranked()
        if not ranked:
            return Draft([], note="no quotable line in the passages found")
        chosen = [ranked[0]]
        for cand in ranked[1:]:
            if len(chosen) == MAX_LINES or cand.score < ranked[0].score * 0.6:
                break
            if self._adds_something(chosen, cand):
                chosen.append(cand)
        lead = self._lead()
        if lead is not None and all(lead.passage.hit.path != c.passage.hit.path for c in chosen):
            chosen = [*chosen[: MAX_LINES - 1], lead]
        for _, p, i in list(chosen):  # a line that points elsewhere for the rest: quote the page it points to
            for cand in self._followed(p, i):
                if len(chosen) < MAX_LINES and all(cand[1:] != c[1:] for c in chosen):
                    chosen.append(cand)
        chosen = self._with_context(chosen)
        meant = self._close_in_meaning()
        if meant is not None and not any(c.passage.hit.path in meant for c in chosen):
            return Draft([], note="the lines found share words with the question, but no page close to it in meaning")
        if self.needs_number and not any(_has_amount(c.text) for c in chosen):
            return Draft([], note="the question asks for a number and no line found gives one")
        segments, headed = [Segment(INTRO)], set()
        # A passage's place is where its best line ranks, so the answer leads with the line that answers best.
        first: dict[int, int] = {}
        for _, p, _ in chosen:
            first.setdefault(p.index, len(first))
        for _, p, i in sorted(chosen, key=lambda c: (first[c.passage.index], c.i)):
            header = header_of(p.blocks, i)
            segments.append(self._quote(p, i, None if (p.index, header) in headed else header, self._excerpt(p.blocks[i])))
            segments.append(Segment("\n"))
            headed.add((p.index, header))
        return Draft(segments)

    def _with_context(self, chosen):
        """The best line with the lines around it that complete it: a rule is often stated over two lines ("free
        over $50" / "otherwise $5"), and a list item is read with its list ("tap once" / "tap twice"). Neighbours
        come from the same passage, only when quotable and short, and never a table's."""
        _, p, i = chosen[0]
        if p.blocks[i].startswith("|"):
            return chosen
        near = [i - 1, i + 1]
        anchor = i if _LIST_ITEM.match(p.blocks[i]) else i - 1  # a list item, or the line right after a list
        if anchor >= 0 and _LIST_ITEM.match(p.blocks[anchor]):  # that list, up to CONTEXT_ITEMS items around it
            run = range(max(0, anchor - CONTEXT_ITEMS), min(len(p.blocks), anchor + CONTEXT_ITEMS + 1))
            items = [j for j in run if all(_LIST_ITEM.match(p.blocks[k]) for k in range(min(anchor, j), max(anchor, j) + 1))]
            near = sorted({*items, i + 1} - {i})
        taken = {(c.passage.index, c.i) for c in chosen}
        extra = [
            Candidate(chosen[0].score, p, j)
            for j in near
            if 0 <= j < len(p.blocks)
            and (p.index, j) not in taken
            and _quotable(p.blocks[j])
            and len(p.blocks[j]) <= LONG_LINE
            and not p.blocks[j].startswith("|")
        ]
        return chosen + extra

    def _close_in_meaning(self) -> set[str] | None:
        """Pages the first search found close to the question in meaning as well as in words: with the sentence
        encoder, its best pages holding a line about the question (_far_from_meaning); else by the dense ranking
        (None: no vectors at all)."""
        if self.meant is not None:
            return self.meant
        if self.toolbox.searcher.mode == "bm25":
            return None
        cutoff = max(MEANING_FLOOR, MEANING_SHARE * self.index.size)
        first = self.toolbox.ledger.passages[: self.first_search]
        return {p.hit.path for p in first if p.hit.dense_rank is not None and p.hit.dense_rank <= cutoff}

    def _lead(self):
        """The best line of the page the first search ranked first (the hybrid ranking's choice), when it holds a
        word of the question: line scoring is lexical, and a page found by meaning would otherwise go unquoted."""
        passages = self.toolbox.ledger.passages
        return self._best_line(passages[0].hit.path, set(self.stems.values())) if passages else None

    @staticmethod
    def _quote(p, i: int, header: int | None, excerpt: str) -> Segment:
        """One cited line; a table's first quoted row comes with the table's header, cited too, so its cells keep
        their meaning (later rows of the same table follow it without repeating the header). Prose shows the
        excerpt that answers; the citation covers the whole line."""
        text = p.blocks[i]
        row = Citation(p.index, i, i + 1, text, p.source)
        if text.startswith("|"):
            if header is None:
                return Segment(text, (row,))
            head = p.blocks[header : header + 2]
            return Segment("\n".join([*head, text]), (Citation(p.index, header, header + 2, "".join(head), p.source), row))
        return Segment(f"> {excerpt}", (row,))

    def _excerpt(self, text: str) -> str:
        """A long line's sentences that hold the question's words (at most MAX_SENTENCES, "…" where some are left
        out); a short line whole."""
        if len(text) <= LONG_LINE or text.startswith("|"):
            return text
        sentences = _SENTENCE.split(text)
        wanted = set(self.stems.values())
        hits = [len(self._words(x) & wanted) for x in sentences]
        keep = sorted(sorted(range(len(sentences)), key=lambda n: (-hits[n], n))[:MAX_SENTENCES])
        keep = [n for n in keep if hits[n]] or [0]
        out, last = [], -1
        for n in keep:
            if n != last + 1:
                out.append("…")
            out.append(sentences[n])
            last = n
        if last != len(sentences) - 1:
            out.append("…")
        return " ".join(out)

    def _adds_something(self, chosen, cand) -> bool:
        """A further line must bring a question word the chosen lines lack, or come from another page that is
        about as relevant as the first."""
        wanted = set(self.stems.values())
        covered = set().union(*(self._words(c.text) for c in chosen)) & wanted
        new = self._words(cand.text) & wanted - covered
        other_page = all(cand.passage.hit.path != c.passage.hit.path for c in chosen)
        return bool(new) or (other_page and cand.score >= chosen[0].score * 0.9)
