"""A chat question's opening and closing chatter is not what it asks; its middle is never touched."""

import pytest

from kb.chatter import is_chatter, thanked, without_chatter


@pytest.mark.parametrize(
    "said, asked",
    [
        ("hey folks, quick question: how do i undo a commit?", "how do i undo a commit?"),
        ("Good morning team! What is the warranty?", "What is the warranty?"),
        ("Does anyone know if npm ci deletes node_modules? tia", "if npm ci deletes node_modules?"),
        ("Hi all - qq - can borg email me? Any help appreciated :)", "can borg email me?"),
        ("how long is the refund window, thanks so much!", "how long is the refund window"),
        ("ok so btw how do i rebase", "how do i rebase"),
        ("sorry if this is a dumb question, but whats the refund window?", "whats the refund window?"),
        ("not sure this is the right channel but how do i rebase", "how do i rebase"),
        ("how do i rebase, cc", "how do i rebase"),  # "cc @bob", once Slack's reading has left the mention out
    ],
)
def test_a_greeting_a_quick_question_and_the_thanks_are_left_out(said, asked):
    assert without_chatter(said) == asked


@pytest.mark.parametrize(
    "said",
    [
        "how do I say thank you in the commit message",  # thanks in the middle is what it asks about
        "what does --please-do do",
        "Hiding layers: how?",
        "Yolo mode in npm",
        "how do i set the tty",
        "the cc field in emails",
        "well-known ports",
        "not sure: can I use git offline?",
        "oh-my-zsh config",  # a chatter word is a whole word
        "so-called hooks",
        "hi-res images",
    ],
)
def test_words_like_chatter_inside_a_question_stay(said):
    assert without_chatter(said) == said


@pytest.mark.parametrize("said", ["hi", "thanks!", "hey team :)"])
def test_a_message_that_is_only_chatter_is_left_as_it_is(said):
    assert without_chatter(said) == said


@pytest.mark.parametrize(
    "said", ["hi", "Good morning team!", "thanks!", "ok thanks, that worked", "got it :)", "+1", "help", "please help?"]
)
def test_a_greeting_a_thanks_or_an_acknowledgement_is_chatter(said):
    assert is_chatter(said)


@pytest.mark.parametrize(
    "said", ["hi, how do i rebase", "thanks, but how do i push?", "is it free?", "how do i make it look great"]
)
def test_a_message_that_asks_something_is_not_chatter(said):
    assert not is_chatter(said)


def test_thanks_is_told_from_hello():
    assert thanked("ok that worked, ty") and thanked("thank you!") and not thanked("hey folks") and not thanked("help")
