"""A person's Slack text is read back from Slack's markup: a question as what it asks, a team answer as it was said."""

from bot.slack.said import asked, plain


def test_a_question_leaves_out_the_people_it_mentions_and_its_emoji():
    assert asked("<@U024BE7LH> how do i undo a commit? :thinking_face:") == "how do i undo a commit?"
    assert asked("cc <!subteam^S1|@oncall> <!here> is the api down :fire::fire:") == "cc is the api down"
    assert asked("thanks :+1::skin-tone-2: but what about refunds :100:") == "thanks but what about refunds"


def test_a_question_reads_links_by_their_label_and_channels_by_their_name():
    assert asked("per <https://wiki.example/setup|the setup page> in <#C123|deploys>") == "per the setup page in #deploys"
    assert asked("what is <https://docs.npmjs.com/cli/commands/npm-ci>") == "what is https://docs.npmjs.com/cli/commands/npm-ci"


def test_a_question_undoes_slacks_escaping_and_keeps_times_paths_and_code():
    assert asked("is `git log -n &lt;count&gt;` &amp;&amp; grep ok") == "is `git log -n <count>` && grep ok"
    assert asked("at 10:30:45 C:\\temp std::vector `build:prod:`") == "at 10:30:45 C:\\temp std::vector `build:prod:`"


def test_a_question_of_only_mentions_and_emoji_is_empty():
    assert asked("<@U024BE7LH> :wave:") == ""


def test_a_team_answer_keeps_its_links_and_who_it_named():
    assert plain("ask <@U1|bob>, see <https://x.example|the page> &amp; <https://y.example>") == (
        "ask @bob, see the page (https://x.example) & https://y.example"
    )
