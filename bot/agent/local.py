"""The local answerer: a deterministic controller in the model's place, so the bot works with no API key.

It knows nothing about particular documents, only a method:
1. search with the question (plus the previous question's words, for a short follow-up);
2. when the question asks for things in turn ("crop it and then scale it down"), search for each part as well;
3. while the evidence is thin and searches bring something new, search again in the documentation's own
   vocabulary, taken from the passages already read (pseudo-relevance feedback);
4. answer extractively: quote the few lines that best cover the question, each cited, or abstain when no line
   covers enough of it. The page the first search ranked first (BM25 and meaning, fused) always gets its best
   line in, since line scoring matches words only, and so does the second when a ranking put it above the first
   (bot.agent.meaning.contested), and the page each part's search ranked first. Once the answer stands, the page
   each ranking the search fused (BM25, WordLlama, the sentence encoder) puts first gets its line in too: these never
   decide whether to answer. The pages are quoted in the order the searches ranked them, each line once, under the
   name of its page and section. Lines that speak to an assistant are never quoted.
Arithmetic questions go to the calculator.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from bot.agent import meaning
from bot.agent.evidence import Passage
from bot.agent.lines import (
    Candidate,
    docs_words,
    excerpt,
    header_of,
    is_table_header,
    linked_pages,
    names_in,
    once,
    quotable,
    quote,
    says_how,
    with_context,
)
from bot.agent.loop import Draft, Reply
from bot.agent.numbers import arithmetic_in, asked_amount, asks_how_much, has_amount
from bot.agent.parts import parts_in_turn
from bot.agent.tools import CALCULATOR, SEARCH_DOCS, Toolbox, ToolCall, ToolResult
from bot.agent.types import Segment
from kb.chatter import is_chatter, without_chatter
from kb.coverage import docs_weights
from kb.encoder import CLOSE
from kb.question import never_used
from kb.tokens import plural_stem

INTRO = "From the docs (an extractive answer: the lines below are quoted as written):\n"
THIN = 0.6  # below this coverage of the question, search again
NUMBER_BONUS = 0.3  # a line with a number, when the question asks for an amount, a duration or a time
# A line naming what to type, run, set or choose (bot.agent.lines.says_how), when the question asks for no amount: of
# the answers citing a right page without the key fact, the fact was most often a command, an option or a menu path
# ("--remote-ratelimit", "-d, --delete", "Transaction → Duplicate Transaction") in a line beside the quoted ones,
# which word coverage could not tell apart. On the eight sets of bench/retrieval.py (2026-12-05), right answers Git
# 25 -> 27, Borg 30 -> 32, GnuCash 31 -> 32, LibreOffice 17 -> 18, no set fewer; without menu paths written with
# dashes and key combinations, 0.08 and 0.3 gained one right answer less on Git (and 0.08 on Borg), none fewer either.
HOW_BONUS = 0.15
ENOUGH = 0.3  # below this coverage of the question by the best passage, abstain
HEADING_CREDIT = 0.5  # a question word found in the line's heading counts half
MAX_LINES = 3
# A line scoring within this share of the best is quoted in a place the others leave free, though it brings no
# question word of its own: word coverage cannot tell the two apart. On the five real docs sets of bench/retrieval.py
# (2026-12-04): npm, PostgreSQL and Borg one more right answer each at 0.7 and 0.8, none less; 0.9 one.
NEAR_TIE = 0.8
# Words that shape a question but say nothing about its subject: they do not need covering.
QUESTION_WORDS = frozenset(
    "much many long often really mean means need needs get got like want know tell way ways possible exactly also "
    "still ever anything something somewhere thing things kind sort".split()
)
EXPANSION_TERMS = 3
RANK_FLOOR, RANK_DECAY = 0.5, 0.25  # a passage's relevance: its coverage, discounted by its search rank
HOP_MAX_DF, HOP_MAX_SHARE = 3, 0.01  # a name in more chunks than this is too common to search for
HOP_LINES = 3  # the best lines read for a name
BAND = 0.7  # lines are quoted from the passages at least this relevant, relative to the best
# "the firm that took over Northwind", "the headphones made by ...": something described, not named
_DESCRIPTION = re.compile(r"\bthe \w+(?: \w+)? (?:that|which|who|whose)\b|\b(?:made|owned|bought|run|built|sold) by\b", re.I)


class LocalAnswerer:
    name = "local"
    model = None

    def __init__(self) -> None:
        self.usage: dict = {}

    def begin(self, question: str, history: list[tuple[str, str]], toolbox: Toolbox) -> None:
        self.toolbox = toolbox
        self.index = toolbox.searcher.index
        self.read = toolbox.searcher.read(question)  # its words against the docs: chatter left out, typos corrected
        question = self.read.query()
        words = self.index.tokenizer.words
        self.terms = list(dict.fromkeys(words(question)))
        # the earlier question: a "thanks!" in between is not one, and a greeting is not part of it
        previous = next((without_chatter(t) for role, t in reversed(history) if role == "user" and not is_chatter(t)), "")
        context = [t for t in dict.fromkeys(words(previous)) if t not in self.terms and t not in QUESTION_WORDS]
        context = context if len(self.terms) <= 4 else []
        self.query = " ".join([question, *context]) if context else question
        targets = [t for t in self.terms + context if t not in QUESTION_WORDS and t not in self.read.pasted]
        self.weights = self._rarity_weights(targets)
        for t in context:  # the follow-up's own words matter most
            self.weights[t] *= 0.5
        self.stems = {t: plural_stem(t) for t in self.weights}
        self._passage_words: dict[int, set[str]] = {}
        self._read_texts: dict[str, frozenset[str]] = {}
        self.question = question
        self.expression = arithmetic_in(question)
        self.gives_amount = asked_amount(question)  # a line with the kind of amount asked for is worth more
        self.needs_number = asks_how_much(question)
        self.calls = 0
        self.tried = {self.query}
        self.started = False
        self.stalled = False
        self.hopped = False
        self.linked = False
        self.describes = bool(_DESCRIPTION.search(question))
        self.value: str | None = None
        self.first_search: int | None = None  # passages the first search showed: the ones ranked for the question
        self.absent = never_used(self.read.words, self.read.df)  # the question's subject, if the docs never use it
        self.encoder = toolbox.searcher.encoder
        self.meant: set[str] | None = None  # with the encoder: the best pages holding a line about the question
        self.closest: str | None = None  # with the encoder: the line closest to the question, when it is close
        # the parts of a question asking for things in turn, each with a word to search for, and what each found
        parts = [p for p in parts_in_turn(question) if any(t in self.weights for t in words(p))]
        self.parts = parts if len(parts) > 1 and not self.expression else []
        self.part_hits: dict[str, list[int]] = {}  # a part's query -> the chunks its search ranked, best first

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
        if self.parts and not self.part_hits and self.toolbox.searches_left > 1:  # one search is kept for what follows
            why = f"The question asks for {len(self.parts)} things in turn: search for each on its own."
            self.part_hits = {part: [] for part in self.parts[: self.toolbox.searches_left - 1]}
            return Reply([self._call(SEARCH_DOCS, {"query": part}, why) for part in self.part_hits])
        if coverage < THIN and self.describes and not self.hopped and self.toolbox.searches_left > 0:
            hop = self._hop()
            if hop is not None:
                self.hopped = True
                name, query = hop
                self.tried.add(query)
                why = f"The best line names {name}, which the question only describes: search for it with the rest of it."
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
            elif r.call.input.get("query") in self.part_hits:  # a part's search: the pages it ranked, shown before or not
                found = [s for s in self.toolbox.searches if s.query == r.call.input["query"]]
                self.part_hits[r.call.input["query"]] = [h.chunk_id for h in found[-1].hits] if found else []
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
            words = self._read_texts[text] = frozenset(plural_stem(w) for w in self.index.tokenizer.docs_words(text))
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
            if is_table_header(p.blocks, i) or not quotable(text):
                continue
            if self.gives_amount is not None:
                bonus = NUMBER_BONUS if self.gives_amount(text) else 0.0
            else:
                bonus = HOW_BONUS if says_how(text) else 0.0
            header = header_of(p.blocks, i)
            words = self._words(text if header is None else f"{text} {p.blocks[header]}")  # a cell means what its column says
            yield Candidate(self._coverage(words, heading_words) + 0.5 * relevance + bonus, p, i)

    def _followed(self, p, i: int):
        """The best line of each passage read whose page this line links to ("covered in [Compatibility](...)")."""
        for _, path in linked_pages(p, i):
            best = self._best_line(path)
            if best is not None:
                yield best

    def _unread_link(self) -> tuple[str, str] | None:
        """The best line says where the rest is ("covered in [Compatibility](compatibility.md)"), on a page no
        search has shown: (the link's text, a search for it with the question)."""
        ranked = self._ranked()
        read = {q.hit.path for q in self.toolbox.ledger.passages}
        unread = [text for text, path in linked_pages(ranked[0].passage, ranked[0].i) if path not in read] if ranked else []
        return (unread[0], f"{unread[0]} {self.question}") if unread else None

    def _best_line(self, path: str, wanted: set[str] | None = None, quoted: AbstractSet[str] = frozenset()):
        """The best quotable line of a page among the passages read (holding one of `wanted`, if given), other than
        the lines already quoted."""
        lines = [
            c
            for q in self.toolbox.ledger.passages
            if q.hit.path == path
            for c in self._lines(q, 0.0)
            if (wanted is None or self._words(c.text) & wanted) and c.text not in quoted
        ]
        return max(lines, key=lambda c: (c.score, -c.passage.index, -c.i), default=None)

    @property
    def _first(self) -> list[Passage]:
        """The passages the first search showed: the ones ranked for the question itself."""
        return self.toolbox.ledger.passages[: self.first_search]

    def _best_coverage(self) -> float:
        return max((cover for _, cover, _ in self._passages()), default=0.0)

    def _hop(self) -> tuple[str, str] | None:
        """A second hop: one of the best lines answers part of the question and names something the question only
        describes ("the firm that took over Northwind": "Fabrikam"); search for that name with the question's
        words the line lacks. A name the docs use everywhere (the product's brand) tells nothing."""
        common = max(HOP_MAX_DF, HOP_MAX_SHARE * self.index.size)
        for _, p, i in self._ranked()[:HOP_LINES]:
            names = [
                n
                for n in names_in(p.blocks[i], self.question)
                if min(self.index.bm25.df(self.index.tokenizer.words(n)) or [0]) <= common
            ]
            if names:
                break
        else:
            return None
        have = self._words(p.blocks[i])
        rest = [w.word for w in self.read.words if w.term in self.weights and self.stems[w.term] not in have]
        return names[0], " ".join([names[0], *rest])

    def _reformulate(self) -> str | None:
        """The question plus the words the best passages use most, rare ones first, as the docs write them."""
        more = docs_words(self.toolbox.ledger.passages[:3], self.index, set(self.weights), EXPANSION_TERMS)
        return " ".join([self.query, *more]) if more else None

    def _far_from_meaning(self) -> str | None:
        """Why the docs cannot answer, judged line by line by the sentence encoder (bot.agent.meaning)."""
        if self.encoder is None:
            return None
        first = self._first
        judged = meaning.judge(self.question, first, self.encoder, self._excerpt, self.absent)
        if judged is None:
            return None
        self.meant = judged.pages
        self.closest = judged.closest if judged.best >= CLOSE else None
        if not self.absent and judged.best < CLOSE:
            self.absent = meaning.carried(self.question, self.read.unknown(), self.encoder)
        return meaning.why_far(judged, self.absent)

    def _compose(self) -> Draft:
        far = self._far_from_meaning()
        if far is not None:
            return Draft([], note=far)
        disowned = meaning.disowned(self._first)
        if disowned is not None:
            return Draft([], note=disowned)
        coverage = self._best_coverage()
        strong = any(  # the search's evidence rule weighs the docs' own rarity: either test will do, if meaning agrees
            p.hit.strength == "strong" and meaning.not_far(p) for p in self._first
        )
        if coverage < ENOUGH and not strong:
            return Draft(
                [], note=f"the best passage covers {coverage:.0%} of the question" if self.toolbox.ledger else "nothing found"
            )
        ranked = self._ranked()
        if not ranked:
            return Draft([], note="no quotable line in the passages found")
        chosen = self._choose(ranked)
        # the first page's line takes the last place; the second's is one more
        for n, lead in enumerate(self._leads({c.text for c in chosen})):
            if all(lead.passage.hit.path != c.passage.hit.path for c in chosen):
                chosen = [*chosen[: MAX_LINES - 1 + n], lead]
        # each part of a question asking for things in turn gets its page's line
        for lead in self._part_leads({c.text for c in chosen}):
            if all(lead.passage.hit.path != c.passage.hit.path for c in chosen):
                chosen.append(lead)
        for _, p, i in list(chosen):  # a line that points elsewhere for the rest: quote the page it points to
            for cand in self._followed(p, i):
                if len(chosen) < MAX_LINES and all(cand.text != c.text for c in chosen):
                    chosen.append(cand)
        chosen = once(with_context(chosen))
        meant = self._close_in_meaning()
        if meant is not None and not any(c.passage.hit.path in meant for c in chosen):
            closest = self._closest_line()
            if closest is None:
                return Draft([], note="the lines found share words with the question, but no page close to it in meaning")
            best = self._best_line(closest.passage.hit.path, set(self.stems.values()))
            chosen = once(with_context([closest] if best is None or best[1:] == closest[1:] else [closest, best]))
        if self.needs_number and not any(has_amount(c.text) for c in chosen):
            return Draft([], note="the question asks for a number and no line found gives one")
        # each ranking's first page, added to an answer that stands: these lines never decide whether to answer
        for ranking in meaning.RANKINGS:
            theirs = self._ranking_lead(chosen, ranking)
            if theirs is not None:
                chosen = once(with_context([*chosen, theirs]))
        segments, headed = [Segment(INTRO)], set()
        # The pages come in the order the searches ranked them, so the answer leads with the page the first search
        # put first by words and meaning rather than with the line sharing most words: of the answers citing a right
        # page on the eight sets of bench/retrieval.py, the first source was a right one for 148 of 245, now 188. A
        # page's passages stay together; for a question asking for things in turn, those serving its first part lead.
        page: dict[str, int] = {}  # a page's place: where the searches first showed it (the ledger keeps their order)
        for p in self.toolbox.ledger.passages:
            page.setdefault(p.hit.path, p.index)
        step: dict[int, int] = {}
        for c in chosen:
            step[c.passage.index] = min(step.get(c.passage.index, len(self.part_hits)), self._step_of(c.text))
        place = {c.passage.index: (step[c.passage.index], page[c.passage.hit.path], c.passage.index) for c in chosen}
        section = None  # the section the last line quoted came from: each section is named once, above its lines
        for _, p, i in sorted(chosen, key=lambda c: (place[c.passage.index], c.i)):
            header = header_of(p.blocks, i)
            shown = self._excerpt(p.blocks[i])
            segments.append(quote(p, i, None if (p.index, header) in headed else header, shown, p.title != section))
            section = p.title
            segments.append(Segment("\n"))
            headed.add((p.index, header))
        return Draft(segments)

    def _choose(self, ranked: list[Candidate]) -> list[Candidate]:
        """The best line, the lines that bring what it lacks, then, in the places left, the lines scoring within
        NEAR_TIE of it: word coverage cannot tell those apart, and the fact may be in any of them."""
        chosen = [ranked[0]]
        for cand in ranked[1:]:
            if len(chosen) == MAX_LINES or cand.score < ranked[0].score * 0.6:
                break
            if self._adds_something(chosen, cand):
                chosen.append(cand)
        quoted = {c.text for c in chosen}
        ties = [c for c in ranked[1:] if c.score >= ranked[0].score * NEAR_TIE and c.text not in quoted]
        ties = once(ties)
        return chosen + ties[: MAX_LINES - len(chosen)]

    def _closest_line(self) -> Candidate | None:
        """The line of the first search's best pages closest to the question in meaning, when it is close (CLOSE)."""
        if self.closest is None:
            return None
        for p in self._first:
            if self.closest in p.blocks:
                return Candidate(0.0, p, p.blocks.index(self.closest))
        return None

    def _close_in_meaning(self) -> set[str] | None:
        """Pages the first search found close to the question in meaning as well as in words (None: no vectors)."""
        if self.meant is not None:
            return self.meant
        if self.toolbox.searcher.mode == "bm25":
            return None
        return meaning.close_by_rank(self._first, self.index.size)

    def _leads(self, quoted: AbstractSet[str]) -> list[Candidate]:
        """The best line of the page the first search ranked first (the fused ranking's choice), and of the second
        when a ranking put it above the first (meaning.contested), each holding a word of the question: line scoring
        is lexical, and a page found by meaning would otherwise go unquoted."""
        first = self._first
        paths = [first[0].hit.path, meaning.contested(first)] if first else []
        wanted = set(self.stems.values())
        return [line for path in paths if path and (line := self._best_line(path, wanted, quoted))]

    def _ranking_lead(self, chosen: list[Candidate], ranking: str) -> Candidate | None:
        """The line of the page one of the search's rankings puts first (meaning.ranking_first), when no line quoted is
        from it: its best line holding a word of the question, or else its line closest to the question in meaning."""
        path = meaning.ranking_first(self._first, ranking)
        if path is None or any(c.passage.hit.path == path for c in chosen):
            return None
        quoted = {c.text for c in chosen}
        return self._best_line(path, set(self.stems.values()), quoted) or self._closest_on(path, quoted)

    def _closest_on(self, path: str, quoted: AbstractSet[str]) -> Candidate | None:
        """The quotable line of a page read that the encoder finds closest to the question, other than those quoted."""
        lines = [
            c for q in self.toolbox.ledger.passages if q.hit.path == path for c in self._lines(q, 0.0) if c.text not in quoted
        ]
        if self.encoder is None or not lines:
            return None
        vectors = self.encoder.embed([self.question, *(self._excerpt(c.text) for c in lines)])
        return lines[int((vectors[1:] @ vectors[0]).argmax())]

    def _part_leads(self, quoted: AbstractSet[str]) -> list[Candidate]:
        """For a question asking for things in turn, the best line holding a word of each part on the page that
        part's own search ranked first: the lines covering most of the whole question tend to come from one part's
        page. (Ranked by the part's words first, the line naming the page's subject beat the one saying how.)"""
        words = self.index.tokenizer.words
        leads = []
        for part, chunk_ids in self.part_hits.items():
            first = next((p for c in chunk_ids if (p := self.toolbox.ledger.of_chunk(c)) is not None), None)
            wanted = {self.stems[t] for t in words(part) if t in self.stems}
            line = self._best_line(first.hit.path, wanted, quoted) if first is not None else None
            if line is not None:
                leads.append(line)
        return leads

    def _serves(self, text: str, part: str) -> float:
        """How much of a part of the question the line covers, by the question's word weights."""
        have = self._words(text)
        terms = dict.fromkeys(self.index.tokenizer.words(part))
        return sum(w for t in terms if (w := self.weights.get(t)) and self.stems[t] in have)

    def _step_of(self, text: str) -> int:
        """Which part of a question asking for things in turn the line serves: the one whose words it covers most
        (0 for a question asking for one thing, and after the parts for a line serving none)."""
        served = [self._serves(text, part) for part in self.part_hits]
        best = max(served, default=0.0)
        return served.index(best) if best > 0 else len(served)

    def _excerpt(self, text: str) -> str:
        wanted = set(self.stems.values())
        return excerpt(text, lambda sentence: len(self._words(sentence) & wanted))

    def _adds_something(self, chosen, cand) -> bool:
        """A further line must bring a question word the chosen lines lack, or come from another page that is
        about as relevant as the first."""
        if any(cand.text == c.text for c in chosen):  # the same words on another page (or chunk) say nothing new
            return False
        wanted = set(self.stems.values())
        covered = set().union(*(self._words(c.text) for c in chosen)) & wanted
        new = self._words(cand.text) & wanted - covered
        other_page = all(cand.passage.hit.path != c.passage.hit.path for c in chosen)
        return bool(new) or (other_page and cand.score >= chosen[0].score * 0.9)
