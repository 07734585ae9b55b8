"""Chat shorthand read as the words it stands for: "smth" as "something", "w/o" as "without", "repo" as "repository".

People type a help channel's questions as they type chat. Read as words, "idk", "smth" or "asap" are rare words the
docs never use, and such a word is taken for the question's subject, one the docs cannot cover: "idk how to undo smth i
commited" was declined over Git's manual ("the docs never use idk, smth"), and "undo my last commit asap, lmk" too.
A shorthand is read as its words only where the docs do not use it themselves (a manual may say "repo" or "pwd"), or,
for a clipped word, use it at most a tenth as often as the word in full ("deps" and "dependencies"), as a British
spelling is read in the docs' American one (kb.spelling). Those that only hedge, press or react ("idk",
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
    # clipped words of software and its help: each meant one way in a question ("dev" and "auth" are left out: each
    # stands for two words; "app" and "admin" too: words of their own, as common in English as the words they clip,
    # and an app for a phone is not any application)
    "dep": "dependency",
    "deps": "dependencies",
    "pkg": "package",
    "pkgs": "packages",
    "lib": "library",
    "libs": "libraries",
    "db": "database",
    "dbs": "databases",
    "cmd": "command",
    "cmds": "commands",
    "arg": "argument",
    "args": "arguments",
    "param": "parameter",
    "params": "parameters",
    "var": "variable",
    "vars": "variables",
    "func": "function",
    "funcs": "functions",
    "config": "configuration",
    "configs": "configurations",
    "cfg": "configuration",
    "info": "information",
    "img": "image",
    "imgs": "images",
    "err": "error",
    "errs": "errors",
    "col": "column",
    "cols": "columns",
    "tbl": "table",
    "txn": "transaction",
    "txns": "transactions",
    "attr": "attribute",
    "attrs": "attributes",
    "addr": "address",
    "org": "organization",
    "orgs": "organizations",
    "perf": "performance",
    "ver": "version",
    "creds": "credentials",
    "cert": "certificate",
    "certs": "certificates",
    "notif": "notification",
    "notifs": "notifications",
    "btn": "button",
    "avg": "average",
    "approx": "approximately",
    "convo": "conversation",
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


# A phrase of everyday English that manuals say in one word, by the phrase's own word: "get rid of a dependency" is
# "remove a dependency". Read as typed, "rid" weighs as a word rare in English that the docs never or seldom use (npm's,
# GnuCash's and LibreOffice's never; Borg's 11 chunks, "remove" 141), and the question was declined beside the page
# that removes one. Read so where the docs use the phrase's word at most CLIPPING_SHARE as often as the one word. (Read
# as whichever of "remove" and "delete" the docs use more, LibreOffice's "get rid of the page number on the cover page"
# found Delete Page's page first, and its ranking fell: 32/48 .478 -> 31/48 .468.)
IDIOMS = (("rid", "remove", re.compile(r"\b(?:get|gets|got|gotten|getting)\s+rid\s+of\b", re.IGNORECASE)),)


def read_shorthand(text: str, count: Callable[[str], int]) -> str:
    """The text with each shorthand the docs do not use as their own read as what it stands for, or left out, and
    each everyday phrase for one of their words (IDIOMS) read as that word.

    count(word) -> in how many of the docs' chunks the word is.
    """
    for word, meant, phrase in IDIOMS:
        if theirs(word, meant, count):
            text = phrase.sub(meant, text)

    def expand(match: re.Match) -> str:
        word = match.group(1).lower()
        meant = SHORTHAND[word]
        return meant if theirs(word, meant, count) else match.group(0)

    read = _TOKEN.sub(expand, text)
    if read == text:
        return text
    for pattern, replacement in _TIDY:
        read = pattern.sub(replacement, read)
    return read if any(c.isalnum() for c in read) else text


# The docs say it in full and the clipping is not theirs: they use it at most this share as often as the word it
# stands for (npm's docs write "deps" in 28 chunks and "dependencies" in 362), the rule kb.spelling applies to the
# other English's spelling. Read as typed, such a clipping weighs as a word rare in English and in the docs, and a
# passage saying it in full covered little of the question: "check my deps for known security holes" was declined
# beside npm-audit's page.
CLIPPING_SHARE = 0.1


def theirs(word: str, meant: str, count: Callable[[str], int]) -> bool:
    """Whether the shorthand is read as what it stands for: the docs never use it, or (for a clipped word) say the
    word in full at least 1 / CLIPPING_SHARE times as often."""
    used = count(word)
    if not used:
        return True
    return " " not in meant and bool(meant) and used <= CLIPPING_SHARE * count(meant)
