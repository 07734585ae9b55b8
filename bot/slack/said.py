"""What a person's Slack text says, read back from Slack's markup.

Slack sends a message's text as its own markup: people, groups and channels as <@U123>, <!subteam^S1|@oncall>,
<#C123|deploys>; links as <https://...|label>; emoji as :thinking_face:; and &, <, > escaped. Kept as a team answer,
a reply keeps its links and who it named; asked as a question, only what it asks is read: a mention of a colleague
or an emoji is not the subject, and read as words it decides the search ("u024be7lh", "thinking face").
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(r"<([^<>]*)>")
# :name: as Slack writes an emoji (and its :skin-tone-2:), between words: a time (10:30:45), a drive (C:) or a
# scope (std::vector) is not one.
_EMOJI = re.compile(r"(?<![\w:])(?::[a-z0-9_+'-]+:)+(?![\w:])")


def as_words(text: str, mention: Callable[[str, str, str], str], other: Callable[[str, str, str], str]) -> str:
    """Slack's <...> tokens rewritten: a mention by `mention(sign, name, label)`, "@" for a person, a group or @here
    and "#" for a channel; anything else (a link) by `other(target, label, token)`."""

    def each(m: re.Match) -> str:
        target, _, label = m.group(1).partition("|")
        if target.startswith(("@", "!")):
            return mention("@", label or target.removeprefix("!subteam^").lstrip("@!"), label)
        if target.startswith("#"):
            return mention("#", label or target[1:], label)
        return other(target, label, m.group(0))

    return _TOKEN.sub(each, text)


def unescaped(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def plain(text: str) -> str:
    """A person's Slack text as plain words, for keeping as a team answer: links as their addresses (with their
    label), mentions as words, Slack's escaping undone."""
    text = as_words(
        text,
        lambda sign, name, _: sign + name,
        lambda target, label, _: f"{label} ({target})" if label and label != target else target,
    )
    return unescaped(text)


def asked(text: str) -> str:
    """A person's Slack text as the question it asks, for searching, answering and the log: mentions of people and
    groups and emoji left out, a channel by its name, a link by its label (or its address), Slack's escaping undone."""
    text = as_words(
        text,
        lambda sign, _, label: f" #{label} " if sign == "#" and label else " ",
        lambda target, label, _: label or target,
    )
    text = unescaped(_EMOJI.sub(" ", text))
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines()).strip()
