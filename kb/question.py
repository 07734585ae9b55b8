"""A question as the docs read it: its words, each weighted by its rarity in English, its typos, slips, names and
pasted data told apart, and whether the docs use its subject at all.

Rarity in general English does not depend on the docs folder: a word's weight is 8 - its Zipf frequency (wordfreq's
tables, shipped in the package, read through kb.frequency: "the" is about 7.7, "refund" 3.4, "vacation" 4.4), and
words as common as "days", "make" or "version" (Zipf >= 5) are never the focus of a question on their own.

When the question's rarest word (one wordfreq knows) is nowhere in the docs ("vacation", "smartwatch"), no passage can
answer it. A word neither wordfreq nor the docs know is a typo when one edit makes it a word of the docs
("dependancies"; a short word only when a slip of the fingers does, kb.slips: "lomg"), or two words a missed space ran
together ("haveto"): it is not counted against a passage. Otherwise it is a name the docs never mention ("netlify"), and
counts as a word like any other. Whatever its frequency, a word the docs never use that is a slip of a function word
("teh", "hwo", "wiht") is read as it, one with a letter held down ("sooo", "returnnn") as the word stretched
(kb.slips), and an irregular form ("hid", "shrank") in the form the docs use (kb.inflection). A word in the other
English's spelling than the docs' ("colour" where they write "color") is read in theirs (kb.spelling).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, replace

from kb.chatter import without_chatter
from kb.frequency import zipf
from kb.inflection import docs_form
from kb.shorthand import read_shorthand
from kb.slips import function_word, is_slip, missed_space, number_apart, spaced_apart, unstretched, written_apart
from kb.spelling import docs_spelling
from kb.tokens import STOPWORDS, Tokenizer

GENERIC_ZIPF = 5.0  # words at least this common are not a question's focus
MAX_WEIGHT = 8.0  # a word wordfreq has never seen


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


def one_edit_away(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion from the word (Norvig's edits1)."""
    letters = string.ascii_lowercase
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b[1:] for a, b in splits if b for c in letters}
        | {a + c + b for a, b in splits for c in letters}
    )


TYPO_ZIPF = 3.0  # a word rarer than this that the docs never use may be a typo of one they do
MIN_TYPO_LENGTH = 3  # "ok", "pr", "db": a two-letter word is as typed
# Below this length one edit reaches many words, a name's neighbours too ("nuxt": next), so a short word is read as a
# typo only of a word one slip of the fingers away (kb.slips: "lomg" is long, not log). A longer word may also be
# misspelt by ear ("seperate").
SHORT_TYPO = 5
# A misspelling English knows is far rarer than the word it misspells: of 28 common ones ("recieve", "seperate",
# "enviroment", "thru", "brach") the meant word is 1.8-4.7 Zipf more common. A real word one edit from a commoner one
# is meant as typed: "docker" (2.98) is not "locker" (3.95), "redis" is not "relis" (0), "offsite" not "offsete".
TYPO_MARGIN = 1.5
COMMON_ZIPF = 4.0  # a word English uses once in ten thousand or more: two run together are read apart


def correction(word: str, tokenizer: Tokenizer, df_many) -> str | None:
    """The docs' most used word one edit from this one ("detatched": "detached"), if any: of those sharing a stem
    (and so a count), the commonest in English ("differnce": "difference", not "differance"). A slip of the fingers
    (kb.slips) is likelier than any other edit ("setver" is server, not the docs' commoner semver), and the only one
    read in a short word. Or the two words a missed space bar ran together ("haveto", "pagesize"), each a word of the
    docs or a common one, whichever is likelier. A word English knows is read otherwise only where that is TYPO_MARGIN
    more common (the noisy channel's prior, Norvig's corrector): "inthe" is "in the", "redis" is not "red is", nor
    "quickbooks" "quick books". Nor is it read as a word with another first letter, which misspellings seldom get
    wrong (Pollock and Zamora, CACM 1984): "pimple" is not "simple".

    df_many(terms) -> array of each term's df here.
    """
    if len(word) < MIN_TYPO_LENGTH or not word.isalpha():
        return None
    typed = zipf(word)
    fix = _edited(word, tokenizer, df_many, same_start=typed > 0)
    edited = [(fix, zipf(fix))] if fix is not None and (typed == 0 or zipf(fix) - typed >= TYPO_MARGIN) else []
    split = missed_space(word, lambda part: is_word(part, tokenizer, df_many))
    apart = [split] if split is not None and (typed == 0 or split[1] - typed >= TYPO_MARGIN) else []
    return max(edited + apart, key=lambda c: c[1], default=(None, 0.0))[0]  # "alllocal": all local, not allocal


def is_word(part: str, tokenizer: Tokenizer, df_many) -> bool:
    """A word of the docs, or one common in English ("hou", "andre" are not)."""
    return (len(part) > 1 or part in ("a", "i")) and (zipf(part) >= COMMON_ZIPF or df_many(tokenizer.stems([part]))[0] > 0)


FUNCTION_WORDS = sorted(w for w in STOPWORDS if w.isalpha())  # every page uses them, so the index counts none


def _edited(word: str, tokenizer: Tokenizer, df_many, same_start: bool = False) -> str | None:
    """The docs' word one edit from this one (keeping its first letter, if same_start): a slip's if any, the most
    used, the commonest spelling of its stem."""
    variants = sorted(v for v in one_edit_away(word) if not same_start or v[:1] == word[:1])
    stems = tokenizer.stems(variants)
    used = [(v, stem, n) for v, stem, n in zip(variants, stems, df_many(stems).tolist()) if n]
    slipped = {stem for v, stem, _ in used if is_slip(word, v)}  # a word's forms share its count: "blockly" is block's
    used = [u for u in used if u[1] in slipped] if slipped or len(word) < SHORT_TYPO else used
    if not used:
        return None
    most = max(n for *_, n in used)
    return max((v for v, _, n in used if n == most), key=zipf)


@dataclass(frozen=True)
class Question:
    """A question as the docs read it: its text, its words, each term's df here, and the typos it corrected (and
    the words it read in the docs' spelling)."""

    text: str  # as asked, without its chatter, its shorthand read as words (kb.shorthand)
    words: list[QuestionWord]
    df: dict[str, int]
    corrected: dict[str, str]  # typed word -> the docs' word (a typo's fix, the docs' spelling of it)
    pasted: frozenset[str] = frozenset()  # terms only in the asker's code or paths that the docs never use

    def unknown(self) -> list[str]:
        """Its focus words that no chunk contains: what the docs never talk about (typos aside)."""
        return [w.word for w in absent_words(self.words, self.df)]

    def query(self) -> str:
        """The text without its chatter and with its typos corrected, for ranking."""
        text = self.text
        for typo, fix in self.corrected.items():
            text = re.sub(rf"\b{re.escape(typo)}\b", fix, text, flags=re.IGNORECASE)
        return text


def read_question(text: str, tokenizer: Tokenizer, df_of, df_many, together) -> Question:
    """Weigh the question's words against the docs: a question in capitals is read in lower case; a number typed
    against its unit is read apart ("30mins"); chat shorthand they never use is read as its words ("smth": something)
    or not at all ("idk"); a word typed in two is read as the one they use ("data base"); a word in the other
    English's spelling is read in theirs ("equaliser": equalizer); a word they never use in an irregular form is read
    in the form they use ("hid": hide), one with a letter held down is the word stretched ("sooo": so), one a slip
    from a far commoner function word is that word ("teh": the); a rare word they never use is a compound they write
    in two ("whitespace": white space), a typo of one they do (one edit away) or two words run together ("haveto"),
    else a name they never mention ("netlify"), which counts like any known word.

    df_of(terms) -> list of df; df_many: the same, vectorised, for a typo's variants; together(terms) -> how many
    chunks hold them all.
    """

    def count(word: str) -> int:  # in how many chunks the docs use it
        return int(df_of(tokenizer.stems([word]))[0])

    def both(a: str, b: str) -> int:  # in how many chunks the docs use the two
        return together(tokenizer.stems([a, b]))

    def apart(word: str) -> str | None:  # a compound they write in two common words: "catchers" is no "catch ers"
        return written_apart(word, lambda part: zipf(part) >= COMMON_ZIPF, count, both)

    text = read_shorthand(number_apart(without_chatter(unshouted(text)), lambda word: count(word) > 0), count)
    text = spaced_apart(text, count, both, STOPWORDS)
    words = question_words(text, tokenizer)
    df = dict(zip([w.term for w in words], df_of([w.term for w in words])))
    out: dict[str, QuestionWord] = {}
    corrected: dict[str, str] = {}
    data = pasted_words(text, tokenizer)
    pasted = frozenset(w.term for w in words if w.word in data and df[w.term] == 0)
    literal = literal_words(text)
    for w in words:
        if w.term in pasted:
            continue
        fix = docs_spelling(w.word, df[w.term], tokenizer.stems, df_many)
        rare = zipf(w.word) < TYPO_ZIPF
        if fix is None and df[w.term] == 0:
            if w.word not in literal:  # "hid", "pleaseee", "teh" whatever their frequency; a typo only if rare
                fix = (
                    docs_form(w.word, tokenizer.stems, df_many)
                    or unstretched(w.word, lambda part: is_word(part, tokenizer, df_many))
                    or function_word(w.word, FUNCTION_WORDS)
                    or (apart(w.word) or correction(w.word, tokenizer, df_many) if rare else None)
                )
            if fix is None and rare:
                w = replace(w, known=True)  # a name the docs never mention
        if fix is None:
            out.setdefault(w.term, w)
            continue
        corrected[w.word] = fix
        for part in fix.split():  # a missed space: two words, or one beside a stopword, which reads as none
            for term in tokenizer.words(part):
                z = zipf(part)
                df[term] = df_of([term])[0]
                out.setdefault(term, QuestionWord(part, term, max(0.5, MAX_WEIGHT - z), z < GENERIC_ZIPF, True))
    return Question(text, list(out.values()), df, corrected, pasted)


# A word written as a name: in `code`, as a file's extension or a dotfile (".atn", ".env"), or an acronym (up to four
# capitals: "ATN", "SSO"; a longer word in capitals is an error code or a shout, read as any word: "ERESOLVE").
_LITERAL = re.compile(r"`[^`]*`|(?<![\w.])\.\w+|\b[A-Z][A-Z0-9]{1,3}\b")


def literal_words(text: str) -> set[str]:
    """The words the asker wrote as names, lower-cased: read as typed, never as a typo of a word the docs use
    ("can i import my photoshop actions (.atn)" is not about an "ant")."""
    return {w.lower() for w in re.findall(r"\w+", " ".join(_LITERAL.findall(text)))}


def unshouted(text: str) -> str:
    """The question in lower case if it is typed in capitals ("HWO DO I RESET IT"): capitals mark no acronym there, and
    the word embedder reads case (WordLlama's cosine between a question and itself in capitals: 0.43)."""
    letters = [c for c in text if c.isalpha()]
    return text.lower() if sum(c.isupper() for c in letters) > len(letters) / 2 else text


# What the asker pasted rather than wrote: a fenced code block (an error log), a path, an address or a package spec
# (/home/alice/acme-web/index.js, ~/.cache/x, C:\\Users\\bob, https://..., bob@example.com, react@18.2.0). A word of
# theirs the docs never use is the asker's data (a user, a project, a file), not the question's subject: it is neither
# weighed nor taken for a subject the docs lack, though the search still reads it. A name in `backticks` or two
# alternatives ("netlify/vercel") are the asker's words: a tool the docs never mention is still what is asked about.
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_EMAIL_OR_SPEC = re.compile(r"[^@]+@[^@.]+(?:\.[^@.]+)+")


def _is_pathlike(token: str) -> bool:
    """A path, an address or a package spec, as one whitespace-separated token."""
    token = token.strip("`'\"()[]<>,;")
    return (
        token.startswith(("/", "~/", "./", "../"))
        or re.match(r"[A-Za-z]:\\", token) is not None
        or "://" in token
        or token.count("/") >= 2
        or _EMAIL_OR_SPEC.fullmatch(token) is not None
    )


def pasted_words(text: str, tokenizer: Tokenizer) -> set[str]:
    """The words that appear only in the question's fenced code and path-like tokens, as question_words spells them."""
    surface = Tokenizer(stem=None, stopwords=tokenizer.stopwords)
    code = _FENCED.findall(text)
    tokens = _FENCED.sub(" ", text).split()
    code += [t for t in tokens if _is_pathlike(t)]
    prose = " ".join(t for t in tokens if not _is_pathlike(t))
    return set(surface.words(" ".join(code))) - set(surface.words(prose))


def absent_words(words: list[QuestionWord], df: dict[str, int]) -> list[QuestionWord]:
    """The focus words English knows (or names the docs never mention) that no chunk contains."""
    return [w for w in words if w.known and w.focus and df.get(w.term, 0) == 0]


RAREST_SHARE = 0.25  # the docs never use the rarest word, and it holds this much of the weight: they don't cover it
ABSENT_SHARE = 0.45  # or words they never use hold this much of it, whichever is the rarest


def never_used(words: list[QuestionWord], df: dict[str, int]) -> list[str]:
    """The question's focus words the docs never use, when they show the docs cannot answer it.

    A question's subject is its rarest word: when the docs never use it ("vacation policy") and it
    holds RAREST_SHARE of the question's English weight, or when absent words hold ABSENT_SHARE of
    it ("Dolby Atmos spatial audio"), nothing here answers the question. An absent everyday word
    beside a present subject ("warranty length") is only the asker's phrasing.
    """
    known = [w for w in words if w.known]
    absent = absent_words(known, df)
    if not absent:
        return []
    rarest = max(known, key=lambda w: w.weight)
    share = sum(w.weight for w in absent) / sum(w.weight for w in known)
    return [w.word for w in absent] if (rarest in absent and share >= RAREST_SHARE) or share >= ABSENT_SHARE else []
