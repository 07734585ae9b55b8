"""The words a chat message wraps a question in: a greeting, "quick question", "anyone know", a closing "thx".

In a help channel people open and close a question the way they would a conversation. Read as words, "folks",
"thx" or "tia" are rare in the docs, and a rare word the docs never use is taken for the question's subject (the
docs cannot cover it) or decides the ranking. Only the opening and the closing are read, never the middle, and a
message that is nothing but chatter is left as it is.
"""

from __future__ import annotations

import re

_WHO = r"(?:all|everyone|everybody|folks|team|guys|y'?all|there|people|friends)"
_GREETING = rf"(?:hey|hi|hello|hiya|heya|yo|howdy|greetings|morning|good\s+(?:morning|afternoon|evening))(?:\s+{_WHO})?"
_KIND = r"(?:quick|small|short|dumb|stupid|silly|random|newbie|noob|basic|general)"
_ASKING = rf"(?:{_KIND}\s+(?:question|q)|qq|question)"
_ANYONE = r"(?:anyone|anybody|someone|somebody|you|u)(?:\s+here)?"
_KNOWS = rf"(?:(?:does|do|can|could|would)\s+{_ANYONE}\s+(?:know|tell\s+me|help(?:\s+me)?|explain)|{_ANYONE}\s+knows?)"
_MARKER = r"(?:ok(?:ay)?|so|btw|fyi|um+|uh+|hmm+|also|oh|sorry|apologies)"
# "sorry if this is a dumb question, but", "this might be a silly q but", "not sure this is the right channel but"
_HEDGE = r"(?:sorry|apologies|this\s+(?:might|may)\s+be|probably|maybe|not\s+sure)\b[^.!?]{0,60}?\bbut"
# One opening at a time, at the start, and one closing at a time in the message's last TAIL characters: a regular
# expression repeating them itself backtracks quadratically over a long run of spaces.
_OPENER = re.compile(
    rf"\s*(?:{_GREETING}|{_ASKING}|{_KNOWS}|{_HEDGE}|{_MARKER})(?![\w'’-])[\s,.:;!?\-–—]*", re.IGNORECASE
)  # a whole word: "oh-my-zsh", "so-called", "hi-res" open no chatter

_THANKS = r"(?:thanks|thank\s+you|thx|thnx|thanx|ty|tia|cheers|pls|plz|please)"
_THANKS_MORE = rf"{_THANKS}(?:\s+(?:so\s+much|a\s+lot|a\s+bunch|in\s+advance|again|{_WHO}))*"
_HELP = r"any\s+(?:help|ideas|pointers|tips|hints)(?:\s+(?:is|are|would\s+be))?(?:\s+(?:much|greatly|really))?(?:\s+appreciated)?"
_SMILE = r"(?:[:;]-?[)(DPp]|\blol\b|\bhaha\b)"
_CC = r"/?cc:?"  # "cc @bob", whose mention Slack's reading leaves out
_CLOSER = re.compile(rf"(?:\b{_THANKS_MORE}\b|\b{_HELP}\b|{_SMILE}|(?<!\w){_CC}(?!\w))[\s,.;!?]*\Z", re.IGNORECASE)
TAIL = 200
# What is left of a reply that only acknowledges an answer ("ok thanks, that worked", "got it!"), or asks how to ask
# ("help"); never left out of a question, where "great" or "nice" may be what it asks about.
_ACK = re.compile(
    rf"(?:{_THANKS_MORE}|\+1|(?:that|it|this)(?:'?s|\s+is)?\s+(?:worked|works|helped|helps|perfect|great)|got\s+it|perfect|great|awesome|"
    r"cool|nice|makes\s+sense|will\s+try(?:\s+(?:that|it))?|all\s+good|no\s+worries|np|ok(?:ay)?|sure|yes|yep|no|nope|help)"
    r"(?:[\s,.;!?]+|\Z)",
    re.IGNORECASE,
)


def without_chatter(text: str) -> str:
    """The question without the greeting, "quick question" or "does anyone know" it opens with and the thanks it
    closes with; the text as it is if nothing else is left."""
    core = _core(text)
    return core if any(c.isalnum() for c in core) else text


def is_chatter(text: str) -> bool:
    """Nothing but a greeting, thanks or an acknowledgement ("hi", "thanks!", "ok thanks, that worked"): no question
    to search the docs for."""
    core = _core(text)
    while (ack := _ACK.match(core)) and ack.end():
        core = core[ack.end() :]
    return not any(c.isalnum() for c in core)


def thanked(text: str) -> bool:
    """It says thanks or that an answer worked, rather than hello."""
    return bool(re.search(rf"\b(?:{_THANKS}|worked|works|helped|helps|got\s+it)\b|\+1", text, re.IGNORECASE))


def _core(text: str) -> str:
    core = text
    while (opening := _OPENER.match(core)) and opening.end():
        core = core[opening.end() :]
    while closing := _CLOSER.search(core, max(0, len(core) - TAIL)):
        core = core[: closing.start()].rstrip(" \t\n,.;!-–—")
    return core.strip()
