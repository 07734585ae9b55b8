"""Whether a word could be a typing slip for another: the errors fingers make on a QWERTY keyboard.

A short unknown word is one edit from many words, and from a name's neighbours as well: "lomg" is one edit from
"long" and "log", "nuxt" from "next". Of the four kinds of single-letter error (Damerau, "A technique for computer
detection and correction of spelling errors", CACM 1964), a slip of the fingers strikes a neighbouring key instead,
strikes one more key (the same or a neighbour), leaves a key out, or swaps two; and it seldom gets the first letter
wrong (Pollock and Zamora, "Automatic spelling correction in scientific and scholarly text", CACM 1984). "lomg" is a
slip for "long" (m beside n), not for "log"; "nuxt" is no slip for "next" (u is not beside e): a name as typed.
A missed space bar runs two words together ("haveto", "pagesize"): missed_space reads them apart; a word typed in
two ("data base", "pass word") is read as the docs' one word: spaced_apart, and one the docs write in two that the
asker typed as one ("whitespace") is read as their two: written_apart. A function word is typed so often that
its slips are the commonest of all ("teh", "hwo", "wiht"): function_word reads them. Two more habits of chat are read
back the same way: a letter held down for emphasis ("sooo", "pleaseee": unstretched) and a number typed against its
unit ("30mins", "3pm": number_apart).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable

from kb.frequency import zipf

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")  # each row sits half a key right of the one above
_KEYS = {c: (r, i) for r, row in enumerate(_ROWS) for i, c in enumerate(row)}


def neighbours(a: str, b: str) -> bool:
    """Keys that touch on a QWERTY keyboard."""
    if a not in _KEYS or b not in _KEYS:
        return False
    (ra, ia), (rb, ib) = _KEYS[a], _KEYS[b]
    if ra == rb:
        return abs(ia - ib) == 1
    return (rb == ra - 1 and ib in (ia, ia + 1)) or (rb == ra + 1 and ib in (ia - 1, ia))


def is_slip(typed: str, meant: str) -> bool:
    """Whether one slip of the fingers, past the first letter, turns `meant` into `typed`."""
    if not typed or not meant or typed[0] != meant[0] or typed == meant:
        return False
    if len(typed) == len(meant):
        wrong = [i for i in range(len(typed)) if typed[i] != meant[i]]
        if len(wrong) == 1:
            return neighbours(typed[wrong[0]], meant[wrong[0]])
        i = wrong[0]
        return len(wrong) == 2 and wrong[1] == i + 1 and typed[i] == meant[i + 1] and typed[i + 1] == meant[i]
    if len(typed) == len(meant) - 1:  # a key left out
        return any(meant[:i] + meant[i + 1 :] == typed for i in range(1, len(meant)))
    if len(typed) == len(meant) + 1:  # one more key struck: the same again, or one beside a letter it follows or leads
        return any(
            typed[:i] + typed[i + 1 :] == meant
            and any(typed[i] == c or neighbours(typed[i], c) for c in typed[i - 1 : i] + typed[i + 1 : i + 2])
            for i in range(1, len(typed))
        )
    return False


def missed_space(word: str, is_word: Callable[[str], bool]) -> tuple[str, float] | None:
    """The likeliest two words (`is_word`) a missed space bar ran together into this one, and their Zipf value, as
    Norvig segments text ("Natural Language Corpus Data", Beautiful Data, 2009): the words' probabilities multiplied.
    A Zipf value is log10 of a word's frequency per billion words, so a product of two is their sum less 9."""
    splits = [(word[:i], word[i:]) for i in range(1, len(word))]
    return max(
        ((f"{a} {b}", zipf(a) + zipf(b) - 9) for a, b in splits if is_word(a) and is_word(b)), key=lambda s: s[1], default=None
    )


# A given slip is about a thousand times rarer than the word typed right (Zipf values are log10 frequencies): a word
# that is a slip of a function word ("teh", 3.0) is read as it ("the", 7.7) when that is this much likelier, and as
# typed otherwise ("form" is not "from", "info" not "into", "fee" not "few").
SLIP_ODDS = 3.0
# A slip of a two-letter word, or into one, has an acronym's shape: "aws" is no slip for as, "iot" for it, "hw" for he.
FUNCTION_LENGTH = 3


def function_word(word: str, function_words: Iterable[str]) -> str | None:
    """The function word ("the", "with", "how") one slip of the fingers turned into this one ("teh", "wiht", "hwo"),
    when it is SLIP_ODDS likelier than the word as typed; the commonest, if several."""
    if len(word) < FUNCTION_LENGTH:
        return None
    typed = zipf(word)
    slipped = [
        f
        for f in function_words
        if len(f) >= FUNCTION_LENGTH and abs(len(f) - len(word)) <= 1 and is_slip(word, f) and zipf(f) - typed >= SLIP_ODDS
    ]
    return max(slipped, key=zipf, default=None)


_HELD = re.compile(r"([a-z])\1\1+")  # a letter three times or more: no English word has one


def unstretched(word: str, is_word: Callable[[str], bool]) -> str | None:
    """The word a letter held down for emphasis stretched ("sooo": so, "pleaseee": please, "helppp": help), each such
    run read as one letter or two, the commonest in English that is_word; None if the word has no such run or no
    reading is a word. Word lengthening in chat: Brody and Diakopoulos, "Cooooooooooooooollllllllllllll!!!!!!!!!!!!!!",
    EMNLP 2011."""
    runs = list(_HELD.finditer(word))
    if not runs:
        return None
    readings = [""]
    at = 0
    for run in runs:
        letter = run.group(1)
        readings = [r + word[at : run.start()] + held for r in readings for held in (letter, letter * 2)]
        at = run.end()
    words = [r + word[at:] for r in readings if is_word(r + word[at:])]
    return max(words, key=zipf, default=None)


# A number typed against its unit, one whitespace-separated token: "30mins", "2hrs", "3pm", "10gb"; not a version, a
# path or an address ("1.2.3rc1", "/tmp/3pm.log", "v2", "me@2fa.io").
_GLUED = re.compile(r"(?<![\w./\\:@-])(\d+(?:[.,]\d+)?)([^\W\d_]+)(?![\w/\\@-]|[.:]\w)")


def number_apart(text: str, used: Callable[[str], bool]) -> str:
    """The text with each number typed against its unit read apart, as the docs would write it ("30mins": 30 mins,
    "3pm": 3 pm), where the docs never use the two as typed (a manual may write "2fa" or "4k" as a name).

    used(word) -> whether the docs use the word themselves."""
    return _GLUED.sub(lambda m: m[0] if used(m[0].lower()) else f"{m[1]} {m[2]}", text)


_ALPHA = re.compile(r"(?<![\w./\\@'’-])[^\W\d_]+(?![\w/\\@'’-]|\.\w)")


def spaced_apart(
    text: str, count: Callable[[str], int], together: Callable[[str, str], int], function_words: Collection[str]
) -> str:
    """The text with each word typed in two read as the docs write it: "data base", "pass word", "spread sheet",
    "short cut", a compound's spelling being a matter of habit. Two neighbouring words are read as one where the docs
    use it in more chunks than hold the two at all (an upper bound on their use as a phrase: PostgreSQL's manual has
    "database" in 1,780 of its chunks, "data" and "base" together in 222); a pair the docs write apart as often stays
    ("filename" in 89, "file" and "name" together in 467), as does one with a function word ("set up", "log in"),
    which a search does not read.

    count(word) -> in how many of the docs' chunks the word is; together(a, b) -> how many hold both."""
    words = list(_ALPHA.finditer(text))
    out, at, n = [], 0, 0
    while n < len(words) - 1:
        a, b = words[n], words[n + 1]
        first, second = a[0].lower(), b[0].lower()
        apart = text[a.end() : b.start()] == " " and first not in function_words and second not in function_words
        if apart and count(first + second) > together(first, second):
            out += [text[at : a.start()], a[0] + b[0]]
            at, n = b.end(), n + 2
            continue
        n += 1
    return "".join([*out, text[at:]])


# A compound's parts are words of three letters or more: "white space", "time out", "drop down"; a split off one or two
# letters ("a way", "re set") is a prefix or an article, no second word.
OPEN_PART = 3
# Of the chunks with a compound's rarer part, the share that hold the other as well for the docs to be taken to write
# the compound as two words. Words the docs use apart by chance share a chunk far less often: "web" and "pack" in
# npm's docs, "side" and "ways" in GIMP's.
APART_SHARE = 0.5


def written_apart(
    word: str, is_word: Callable[[str], bool], count: Callable[[str], int], together: Callable[[str, str], int]
) -> str | None:
    """The two words (`is_word`) the docs write where the asker typed one compound they never use ("whitespace":
    white space, as GNU diffutils' manual writes it): the split whose rarer part shares the most chunks with the
    other, if that share is over APART_SHARE. A compound's spelling is a matter of habit, as in spaced_apart, which
    reads the other way.

    count(word) -> in how many of the docs' chunks the word is; together(a, b) -> how many hold both."""
    best, share = None, APART_SHARE
    for i in range(OPEN_PART, len(word) - OPEN_PART + 1):
        a, b = word[:i], word[i:]
        rarer = min(count(a), count(b))
        if rarer and is_word(a) and is_word(b) and (kept := together(a, b) / rarer) > share:
            best, share = f"{a} {b}", kept
    return best
