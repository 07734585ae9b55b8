"""Chat shorthand read as the words it stands for, where the docs never use it themselves."""

from kb.shorthand import read_shorthand


def read(text: str, docs_words: set[str] | dict[str, int] = frozenset()) -> str:
    """docs_words: the words the docs use, or how many chunks use each."""
    counts = docs_words if isinstance(docs_words, dict) else dict.fromkeys(docs_words, 1)
    return read_shorthand(text, lambda word: counts.get(word, 0))


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


def test_a_clipped_word_the_docs_use_far_less_than_in_full_is_read_in_full():
    assert read("check my deps for security holes", {"deps": 28, "dependencies": 362}) == (
        "check my dependencies for security holes"
    )
    assert read("back up one db") == "back up one database"


def test_a_clipped_word_the_docs_use_as_their_own_stays():
    assert read("install a pkg from a folder", {"pkg": 92, "package": 700}) == "install a pkg from a folder"
    assert read("set it in your git config", {"config": 900, "configuration": 300}) == "set it in your git config"


def test_a_word_that_only_contains_shorthand_stays():
    assert read("the bcrypt hash of a urlencoded pw-reset token") == "the bcrypt hash of a urlencoded pw-reset token"
    assert read("set HRS_TO_KEEP in the env file", {"env"}) == "set HRS_TO_KEEP in the env file"
    assert read("what does ctrl+u do, and --env=dev") == "what does ctrl+u do, and --env=dev"


def test_a_message_of_nothing_but_shorthand_is_read_as_it_is():
    assert read("lol idk") == "lol idk"


def test_get_rid_of_is_read_as_remove_where_the_docs_seldom_say_rid():
    assert read("how do i get rid of a dependency", {"remove": 91}) == "how do i remove a dependency"
    assert read("i got rid of the old backups", {"rid": 11, "remove": 141}) == "i remove the old backups"


def test_get_rid_of_stays_where_the_docs_say_rid_themselves():
    assert read("get rid of a branch", {"rid": 40, "remove": 100}) == "get rid of a branch"
