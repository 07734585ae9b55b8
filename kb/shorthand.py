"""Chat shorthand read as the words it stands for: "smth" as "something", "w/o" as "without", "repo" as "repository".

People type a help channel's questions as they type chat. Read as words, "idk", "smth" or "asap" are rare words the
docs never use, and such a word is taken for the question's subject, one the docs cannot cover: "idk how to undo smth i
commited" was declined over Git's manual ("the docs never use idk, smth"), and "undo my last commit asap, lmk" too.
A shorthand is read as its words only where the docs never use it themselves (a manual may say "repo" or "pwd"), as a
British spelling is read in the docs' American one (kb.spelling). Those that only hedge, press or react ("idk",
"tbh", "asap", "lmk") stand for nothing the docs could answer and are not read at all, as chatter is not
(kb.chatter). contractions' slang table (MIT) was looked at and not taken: it reads "diff" as "different" and "r"
as "are", and has none of the clippings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# What each stands for; "" for those that stand for nothing a page could answer.
SHORTHAND = {
    # words
    "u": "you",
    "ur": "your",
    "w/": "with",
    "w/o": "without",
    "b/c": "because",
    "bc": "because",
    "cuz": "because",
    "coz": "because",
    "bcuz": "because",
    "thru": "through",
    "tho": "though",
    "altho": "although",
    "smth": "something",
    "sth": "something",
    "smthg": "something",
    "abt": "about",
    "ppl": "people",
    "prolly": "probably",
    "rly": "really",
    "b4": "before",
    "tmrw": "tomorrow",
    "2day": "today",
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "have to",
    "lemme": "let me",
    "gimme": "give me",
    # clipped words
    "repo": "repository",
    "repos": "repositories",
    "msg": "message",
    "msgs": "messages",
    "pw": "password",
    "pwd": "password",
    "acct": "account",
    "accts": "accounts",
    "pic": "picture",
    "pics": "pictures",
    "vid": "video",
    "vids": "videos",
    "pref": "preference",
    "prefs": "preferences",
    "perms": "permissions",
    "dir": "directory",
    "dirs": "directories",
    "env": "environment",
    "num": "number",
    "qty": "quantity",
    "amt": "amount",
    "pct": "percent",
    "yr": "year",
    "yrs": "years",
    "hr": "hour",
    "hrs": "hours",
    "mins": "minutes",
    "secs": "seconds",
    "wk": "week",
    "wks": "weeks",
    # nothing to answer: a hedge, a nudge or a reaction
    "idk": "",
    "dunno": "",
    "tbh": "",
    "iirc": "",
    "afaik": "",
    "imo": "",
    "imho": "",
    "fwiw": "",
    "fyi": "",
    "btw": "",
    "asap": "",
    "lmk": "",
    "pls": "",
    "plz": "",
    "thx": "",
    "ty": "",
    "tia": "",
    "nvm": "",
    "rn": "",
    "ngl": "",
    "lol": "",
    "omg": "",
    "smh": "",
    "ofc": "",
    "kinda": "",
    "sorta": "",
}
# A whole word: not part of a name, a path, an option or a shortcut ("pw-reset", "Ctrl+U", "--env=dev").
_TOKEN = re.compile(
    r"(?<![\w/'’+=@#$%.-])(" + "|".join(re.escape(k) for k in sorted(SHORTHAND, key=len, reverse=True)) + r")(?![\w/'’+=@#$%-])",
    re.IGNORECASE,
)

# Where a word was left out, in turn: one space for two, none before a stop or a comma, one separator for a run of
# them ("idk, tbh, it broke" -> ", , it broke" -> ", it broke"), none at either end.
_TIDY = [
    (re.compile(r"[ \t]{2,}"), " "),
    (re.compile(r"\s+([,.;:!?])"), r"\1"),
    (re.compile(r"([,;:])(?:\s*[,;:])+"), r"\1"),
    (re.compile(r"^[\s,.;:]+|[\s,;:]+$"), ""),
]


def read_shorthand(text: str, used: Callable[[str], bool]) -> str:
    """The text with each shorthand the docs never use read as what it stands for, or left out.

    used(word) -> whether the docs use the word themselves.
    """

    def expand(match: re.Match) -> str:
        word = match.group(1)
        return match.group(0) if used(word.lower()) else SHORTHAND[word.lower()]

    read = _TOKEN.sub(expand, text)
    if read == text:
        return text
    for pattern, replacement in _TIDY:
        read = pattern.sub(replacement, read)
    return read if any(c.isalnum() for c in read) else text
