"""A question that asks for things in turn ("crop my screenshot and then scale it down", "daily backup script that
also prunes, plus how to restore from it later"): its parts, each of which the docs may answer on another page.

Searched whole, such a question ranks the pages of both parts, but the lines quoted are the ones covering most of
its words, so they tend to come from the page of one part. Only the words people use to put one step after another
split a question, and "and" before a word taking an object as a verb does ("and export the key"); "and" alone does not
("black and white", "notes and the next slide").
"""

from __future__ import annotations

import re

# "and then", ", then", "then", "and later", "and also", "plus how ...": one step after another. Not a semicolon:
# in a chat message it as often joins what happened to what is asked ("upgraded to v2; now the build fails").
# "and" joins two steps where the word after it takes an object the way a verb does ("... and export the key", "and
# give it a button"): two things joined by "and" are mostly nouns or adjectives ("an asset and a liability account",
# "black and white"), and a noun is seldom followed straight by an article or an object pronoun.
_OBJECT = r"(?:the|a|an|my|our|your|its|their|this|these|those|some|it|them)\b"
_IN_TURN = re.compile(
    r"\s*[,;]?\s+and\s+(?:then|afterwards|after\s+that|later|also)\s+"
    r"|\s*[,;]?\s+(?:then|afterwards|after\s+that)\s+(?!again\b)"
    r"|\s*[,;]?\s+plus\s+(?=(?:how|what|where|when|why|which|who|can|could|do|does|is|are|should)\b)"
    rf"|\s+and\s+(?=(?!{_OBJECT}|then\b)\w+\s+{_OBJECT})",
    re.I,
)
# A "then" that is not the next step: "if it fails then ...", "since then", "by then", "until then", "back then".
_NOT_NEXT = re.compile(r"\bif\b|\b(?:since|by|until|till|back|now|even)\s*$", re.I)


def parts_in_turn(question: str) -> list[str]:
    """The question's parts when it asks for things in turn, in its order; [] when it asks for one thing."""
    parts: list[str] = []
    start = 0
    for marker in _IN_TURN.finditer(question):
        before = question[start : marker.start()]
        if not re.search(r"\band\b|[,;]", marker.group()) and _NOT_NEXT.search(before):
            continue
        if marker.group().strip().lower() == "and" and len(before.split()) < 2:  # "copy and paste the text": one step
            continue
        parts.append(before)
        start = marker.end()
    parts.append(question[start:])
    parts = [p.strip(" \t\n,;.?!") for p in parts]
    return parts if len(parts) > 1 and all(parts) else []
