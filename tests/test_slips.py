"""A short unknown word is read as a typo only where one slip of the fingers makes it from a word the docs use."""

import pytest

from kb.frequency import zipf
from kb.slips import is_slip, missed_space, neighbours


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("lomg", "long"),  # a neighbouring key struck instead (m beside n)
        ("mvoe", "move"),  # two keys swapped
        ("bck", "back"),  # a key left out
        ("fille", "file"),  # a key struck twice
        ("quey", "query"),  # a key left out before the last
        ("sizxe", "size"),  # one more key, beside the one it follows
    ],
)
def test_the_slips_of_the_fingers_are_read_as_the_word_meant(typed, meant):
    assert is_slip(typed, meant)


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("nuxt", "next"),  # u is not beside e: a name, not a slip
        ("deno", "deny"),
        ("lomg", "log"),  # an m struck after o, nowhere near either
        ("pnpm", "npm"),  # the first letter is seldom the wrong one
        ("vite", "site"),
        ("jsr", "js"),
    ],
)
def test_an_edit_no_finger_makes_is_not_a_slip(typed, meant):
    assert not is_slip(typed, meant)


def test_keys_touch_across_the_staggered_rows():
    assert neighbours("s", "w") and neighbours("s", "e") and neighbours("s", "z") and neighbours("s", "x")
    assert not neighbours("s", "r") and not neighbours("s", "c") and not neighbours("s", "s")


def test_a_missed_space_is_read_as_the_likeliest_two_words():
    def is_word(part):
        return len(part) > 1 and zipf(part) >= 3

    assert missed_space("haveto", is_word)[0] == "have to"
    assert missed_space("pagesize", is_word)[0] == "page size"
    assert missed_space("netlify", is_word) is None, "no two words make it"
