"""A question's word in the docs' spelling of it: British or American.

No stemmer reads "colour" as "color" or "greyscale" as "grayscale". A question typed in British English about docs
written in American English (or the other way round) found nothing by that word, and a word the docs never use is
taken for a subject they lack: "how do i change the equaliser" was declined over docs with an Equalizer section.
The pairs come from breame's lists of British and American spellings, not from the docs.
"""

from __future__ import annotations

from collections.abc import Callable

import breame.spelling

# A word is read in the docs' other spelling of it when they use it at most this share as often: "colour" in a
# manual that says it once in a quote and "color" on 900 pages. Both spellings of some pairs are words of their own
# ("check" / "cheque", "tire" / "tyre", "story" / "storey"), so a word the docs use in its own right keeps it.
SPELLING_SHARE = 0.1
MIN_PART = 4  # the shortest first part of a compound read in its other spelling ("grey" of "greyscale")


def other_spelling(word: str) -> str | None:
    """The word's American spelling if it is British, its British one if it is American (breame's lists), or a
    compound's whose first part has one ("greyscale": grayscale)."""
    word = word.lower()
    for end in range(len(word), MIN_PART - 1, -1):
        head = word[:end]
        for other in (breame.spelling.get_american_spelling(head), breame.spelling.get_british_spelling(head)):
            if other != head:
                return other + word[end:]
    return None


def docs_spelling(word: str, df: int, stems: Callable[[list[str]], list[str]], df_many) -> str | None:
    """The docs' spelling of this word when it is not the asker's and theirs is the one they use (SPELLING_SHARE);
    None if the word stands.

    df: the word's term's count of chunks; stems(words) -> their terms; df_many(terms) -> an array of their counts.
    """
    other = other_spelling(word)
    if other is None:
        return None
    theirs = int(df_many(stems([other]))[0])
    return other if theirs > 0 and df <= SPELLING_SHARE * theirs else None
