"""Prompts and thread titles fit what Slack shows: short, on one line, never cut mid-word."""

from bot.slack.progress import TITLE_CHARS, thread_title
from bot.slack.prompts import MAX_PROMPTS, as_prompts
from bot.slack.prompts import TITLE_CHARS as PROMPT_CHARS


def test_a_long_question_titles_its_thread_cut_at_a_word():
    question = "how do i\nmove " + "my feature branch on top of the latest main " * 4
    title = thread_title(question)
    assert len(title) <= TITLE_CHARS and title.endswith("…") and "\n" not in title
    assert question.split()[len(title.split()) - 1] + "…" == title.split()[-1]


def test_a_short_question_is_its_own_title():
    assert thread_title("  How long is the   warranty? ") == "How long is the warranty?"


def test_prompts_are_at_most_four_unique_with_short_titles_and_whole_messages():
    long = "What do the docs say about " + "a very long page title " * 5
    prompts = as_prompts(["How long is the warranty?", "How long is the warranty?", long, "a", "b", "c", " "])
    assert len(prompts) == MAX_PROMPTS
    assert prompts[0] == {"title": "How long is the warranty?", "message": "How long is the warranty?"}
    assert len(prompts[1]["title"]) <= PROMPT_CHARS and prompts[1]["message"] == " ".join(long.split())
