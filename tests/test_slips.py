"""A short unknown word is read as a typo only where one slip of the fingers makes it from a word the docs use."""

import pytest

from kb.frequency import zipf
from kb.slips import (
    function_word,
    is_slip,
    missed_space,
    neighbours,
    number_apart,
    spaced_apart,
    unstretched,
    written_apart,
)
from kb.tokens import STOPWORDS


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


FUNCTION_WORDS = [w for w in STOPWORDS if w.isalpha()]


@pytest.mark.parametrize(
    "typed, meant",
    [("teh", "the"), ("hwo", "how"), ("wiht", "with"), ("taht", "that"), ("cna", "can"), ("tehre", "there"), ("thw", "the")],
)
def test_a_slip_of_a_function_word_is_read_as_it(typed, meant):
    assert function_word(typed, FUNCTION_WORDS) == meant


@pytest.mark.parametrize(
    "typed",
    [
        *["form", "info", "fee", "dose", "tool"],  # one slip from from, into, few, does, too: far from rare
        *["aws", "iot", "ion", "hw"],  # one slip from as, it, in, he: an acronym's shape
    ],
)
def test_a_word_of_its_own_near_a_function_word_is_read_as_typed(typed):
    assert function_word(typed, FUNCTION_WORDS) is None, "a slip is far rarer than the word typed right"


def test_a_letter_held_down_is_read_once_or_twice_whichever_makes_a_word():
    def is_word(word):
        return len(word) > 1 and zipf(word) >= 3

    assert unstretched("sooo", is_word) == "so"
    assert unstretched("pleaseee", is_word) == "please"
    assert unstretched("helppp", is_word) == "help"
    assert unstretched("cooool", is_word) == "cool", "two of the letter held"
    assert unstretched("coffee", is_word) is None, "a letter twice is spelling, not emphasis"
    assert unstretched("zzzqqq", is_word) is None, "no reading is a word"


def test_a_number_typed_against_its_unit_is_read_apart_unless_the_docs_write_it_so():
    def used(word):
        return word in {"2fa", "pm", "minutes"}

    assert number_apart("restore it to 3pm yesterday, takes 30mins?", used) == "restore it to 3 pm yesterday, takes 30 mins?"
    assert number_apart("is 2fa on", used) == "is 2fa on", "the docs' own name"
    assert number_apart("see /tmp/3pm.log, v1.2.3rc1 and bob@2x.io", used) == "see /tmp/3pm.log, v1.2.3rc1 and bob@2x.io"


def test_a_word_typed_in_two_is_read_as_the_one_the_docs_use_where_they_seldom_write_the_two():
    # PostgreSQL's manual's counts
    chunks = {"database": 1780, "data": 2543, "base": 518, "password": 191, "pass": 468, "word": 371, "file": 1214}
    chunks |= {"name": 2552, "filename": 89, "setup": 40, "set": 900}
    both = {("data", "base"): 222, ("pass", "word"): 16, ("file", "name"): 467}

    def read(text):
        return spaced_apart(text, lambda w: chunks.get(w, 0), lambda a, b: both.get((a, b), 0), STOPWORDS)

    assert read("back up one data base, change a users pass word") == "back up one database, change a users password"
    assert read("Data Base size") == "DataBase size", "the letters as typed"
    assert read("the file name of the dump") == "the file name of the dump", "the docs write it apart as often"
    assert read("how do i set up the data-base") == "how do i set up the data-base", "a function word; a hyphen is the asker's"
    assert read("see /data base.db") == "see /data base.db", "a path and a file name are the asker's"


def test_a_compound_the_docs_write_in_two_is_read_as_their_two_where_the_rarer_part_mostly_keeps_the_others_company():
    # the counts of GNU diffutils' manual (white, space), npm's (web, pack; work, around) and GIMP's (side, ways)
    chunks = {"white": 22, "space": 41, "web": 9, "pack": 72, "work": 91, "around": 13, "side": 68, "ways": 286}
    chunks |= {"catch": 5, "ers": 3}
    both = {("white", "space"): 22, ("web", "pack"): 1, ("work", "around"): 11, ("side", "ways"): 9}
    both |= {("catch", "ers"): 3}

    def read(word):
        return written_apart(word, lambda part: part != "ers", lambda w: chunks.get(w, 0), lambda a, b: both.get((a, b), 0))

    assert read("whitespace") == "white space"
    assert read("workaround") == "work around"
    assert read("webpack") is None, "one chunk of web's nine names a pack: a name of its own"
    assert read("sideways") is None, "9 of side's 68 chunks say ways"
    assert read("catchers") is None, "ers is no word"
    assert read("unheard") is None, "neither part is the docs' word"
