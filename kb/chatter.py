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
_OPENING = re.compile(rf"^(?:\s*(?:{_GREETING}|{_ASKING}|{_KNOWS})\b[\s,.:;!?\-–—]*)+", re.IGNORECASE)

_THANKS = r"(?:thanks|thank\s+you|thx|thnx|thanx|ty|tia|cheers|pls|plz|please)"
_THANKS_MORE = rf"{_THANKS}(?:\s+(?:so\s+much|a\s+lot|a\s+bunch|in\s+advance|again|{_WHO}))*"
_HELP = r"any\s+(?:help|ideas|pointers|tips|hints)(?:\s+(?:is|are|would\s+be))?(?:\s+(?:much|greatly|really))?(?:\s+appreciated)?"
_SMILE = r"(?:[:;]-?[)(DPp]|\blol\b|\bhaha\b)"
_CLOSING = re.compile(rf"(?:[\s,.;!\-–—]*(?:\b{_THANKS_MORE}\b|\b{_HELP}\b|{_SMILE})[\s,.;!?]*)+$", re.IGNORECASE)


def without_chatter(text: str) -> str:
    """The question without the greeting, "quick question" or "does anyone know" it opens with and the thanks it
    closes with; the text as it is if nothing else is left."""
    core = _CLOSING.sub("", _OPENING.sub("", text)).strip()
    return core if any(c.isalnum() for c in core) else text
