"""A question's word read in the docs' spelling of it, British or American."""

import numpy as np

from kb.spelling import docs_spelling, other_spelling
from kb.tokens import DEFAULT_TOKENIZER


def spelled_in(docs: dict[str, int], word: str) -> str | None:
    """docs_spelling over a docs folder whose words' chunk counts are these (stemmed as the index stems them)."""
    by_term = {DEFAULT_TOKENIZER.stems([w])[0]: n for w, n in docs.items()}

    def df_many(terms):
        return np.array([by_term.get(t, 0) for t in terms])

    return docs_spelling(word, int(df_many(DEFAULT_TOKENIZER.stems([word]))[0]), DEFAULT_TOKENIZER.stems, df_many)


def test_british_and_american_spellings_each_know_the_other():
    assert other_spelling("colour") == "color" and other_spelling("color") == "colour"
    assert other_spelling("greyscale") == "grayscale", "a compound whose first part has another spelling"
    assert other_spelling("commit") is None


def test_a_british_word_is_read_as_american_docs_spell_it_and_the_other_way_round():
    assert spelled_in({"color": 900, "grayscale": 40}, "colour") == "color"
    assert spelled_in({"color": 900, "grayscale": 40}, "greyscale") == "grayscale"
    assert spelled_in({"organisation": 5}, "organization") == "organisation"


def test_a_spelling_the_docs_use_in_their_own_right_stays():
    assert spelled_in({"check": 40, "cheque": 300}, "check") is None, "check is a word of its own, not cheque's spelling"
    assert spelled_in({"colour": 2, "color": 900}, "colour") == "color", "a quote's spelling is not the docs' own"


def test_a_word_whose_other_spelling_the_docs_never_use_stands():
    assert spelled_in({"colour": 0, "color": 0}, "colour") is None
