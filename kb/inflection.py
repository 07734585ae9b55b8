"""A question's word in the form the docs use: an irregular verb or noun no stemmer joins to its other forms.

A stemmer strips regular endings ("deleting", "deleted": delet) but cannot know that "hid" is "hide", "threw" is
"throw", "shrank" is "shrink" or "mice" is "mouse". Asked in the past tense ("i hid a layer", "i threw away my
changes", "someone overwrote my branch"), such a word was one the docs never use, taken for the question's subject,
and the question declined. The forms come from lemminflect's English dictionary (Jascob, MIT), not from the docs.
"""

from __future__ import annotations

from collections.abc import Callable

from lemminflect import getAllInflections, getAllLemmas

from kb.frequency import zipf


def lemmas(word: str) -> set[str]:
    """The word's dictionary forms ("hid": hide; "newest": new; "mice": mouse), none for a word the dictionary lacks."""
    return {lemma for found in getAllLemmas(word).values() for lemma in found if lemma.isalpha() and lemma != word}


def docs_form(word: str, stems: Callable[[list[str]], list[str]], df_many) -> str | None:
    """Another form of this word that the docs use: its dictionary form if they use it ("hid": hide), else the form of
    it they use most ("froze": frozen); None if they use none. Asked only of a word the docs never use as typed.

    stems(words) -> their terms; df_many(terms) -> an array of their counts of chunks.
    """
    base = sorted(lemmas(word))
    inflected = sorted({form for lemma in base for found in getAllInflections(lemma).values() for form in found} - {word})
    for candidates in (base, [form for form in inflected if form.isalpha()]):
        if not candidates:
            continue
        used = [(n, zipf(form), form) for form, n in zip(candidates, df_many(stems(candidates)).tolist()) if n > 0]
        if used:
            return max(used)[2]
    return None
