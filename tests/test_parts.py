"""A question asking for things in turn, split into its parts (bot.agent.parts)."""

import pytest

from bot.agent.parts import parts_in_turn


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("crop my screenshot and then scale it down to 800 px wide", ["crop my screenshot", "scale it down to 800 px wide"]),
        ("turn it black and white then export as a small jpeg", ["turn it black and white", "export as a small jpeg"]),
        ("make a backup, then move gnucash to my new laptop", ["make a backup", "move gnucash to my new laptop"]),
        (
            "daily backup script that also prunes, plus how to restore from it later",
            ["daily backup script that also prunes", "how to restore from it later"],
        ),
        ("export the list and also email it to the team?", ["export the list", "email it to the team"]),
        ("first do a, then b, and then c", ["first do a", "b", "c"]),
        # "and" before a word taking an object as a verb does
        ("make an encrypted repo with a keyfile and export the key", ["make an encrypted repo with a keyfile", "export the key"]),
        ("record a macro and give it a button on the toolbar", ["record a macro", "give it a button on the toolbar"]),
    ],
)
def test_the_words_that_put_one_step_after_another_split_a_question(question, parts):
    assert parts_in_turn(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        "make a photo black and white",  # "and" alone joins words, not steps
        "if the update fails then what do i do",  # a condition's "then"
        "it worked until then, now the sync hangs",
        "what happens after that?",  # nothing after the marker
        "upgraded to v2; now the build fails",  # a semicolon joins what happened to what is asked
        "what is $340 plus 12%?",  # arithmetic, not a step
        "try it again, then again",
        "an asset and a liability account",  # two nouns: "and" followed by an article
        "my notes and the next slide",
        "set the name and email that goes on my commits",  # "that" here begins a clause, not an object
        "copy and paste the text",  # one step named by two verbs
    ],
)
def test_a_question_asking_for_one_thing_is_not_split(question):
    assert parts_in_turn(question) == []
