"""Chat shorthand read as the words it stands for, where the docs never use it themselves."""

from kb.shorthand import read_shorthand


def read(text: str, docs_words: set[str] = frozenset()) -> str:
    return read_shorthand(text, lambda word: word in docs_words)


def test_shorthand_is_read_as_the_words_it_stands_for():
    assert read("undo my last commit w/o losing smth") == "undo my last commit without losing something"
    assert (
        read("can i throttle the upload speed bc the wifi is slow") == "can i throttle the upload speed because the wifi is slow"
    )
    assert read("whats the battery life in hrs") == "whats the battery life in hours"


def test_a_hedge_or_a_nudge_is_not_read():
    assert read("idk how to undo my last commit, lmk asap") == "how to undo my last commit"
    assert read("tbh, idk, smth broke, pls help") == "something broke, help"


def test_shorthand_the_docs_use_themselves_stays():
    assert read("push to the remote repo", {"repo"}) == "push to the remote repo"
    assert read("push to the remote repo") == "push to the remote repository"


def test_a_word_that_only_contains_shorthand_stays():
    assert read("the bcrypt hash of a urlencoded pw-reset token") == "the bcrypt hash of a urlencoded pw-reset token"
    assert read("set HRS_TO_KEEP in the env file", {"env"}) == "set HRS_TO_KEEP in the env file"
    assert read("what does ctrl+u do, and --env=dev") == "what does ctrl+u do, and --env=dev"


def test_a_message_of_nothing_but_shorthand_is_read_as_it_is():
    assert read("lol idk") == "lol idk"
