"""Markdown from the model or the docs reads right in Slack: mrkdwn's own spelling, and nothing that pings."""

from bot.slack.mrkdwn import plain, to_mrkdwn


def test_bold_italic_and_struck_text_use_slacks_markers():
    assert to_mrkdwn("**Pods Pro** have a *2-year* warranty, ~~1-year~~") == "*Pods Pro* have a _2-year_ warranty, ~1-year~"
    assert to_mrkdwn("__bold__ and _italic_") == "*bold* and _italic_"


def test_a_markdown_link_becomes_a_slack_link_and_other_schemes_stay_text():
    assert to_mrkdwn("See [the refund page](https://help.example.com/refunds?a=1&b=2).") == (
        "See <https://help.example.com/refunds?a=1&amp;b=2|the refund page>."
    )
    assert to_mrkdwn("[click](javascript:alert(1))") == "[click](javascript:alert(1))"


def test_a_link_to_another_page_of_the_docs_folder_reads_as_its_text():
    quoted = 'Run [`npm install`](../commands/npm-install.md) or see [the FAQ](/faq#refunds "FAQ") [1]'
    assert to_mrkdwn(quoted) == "Run `npm install` or see the FAQ [1]"
    assert plain("[Pro](pro.md)") == "Pro", "in a table cell too"


def test_a_backslash_escape_shows_the_character_alone_and_never_makes_markup():
    assert (
        to_mrkdwn(r"Set NODE\_ENV, not \*\*bold\*\*, in \<div> and `a\_b`")
        == "Set NODE_ENV, not **bold**, in &lt;div&gt; and `a\\_b`"
    )
    assert plain(r"NODE\_ENV") == "NODE_ENV", "in a table cell too"


def test_headings_lists_and_quotes():
    text = "## Refund window\n- earbuds: 30 days\n* cases: 14 days\n> quoted line [1]"
    assert to_mrkdwn(text) == "*Refund window*\n• earbuds: 30 days\n• cases: 14 days\n> quoted line [1]"


def test_code_is_kept_as_written_but_cannot_ping():
    assert to_mrkdwn("Run `supportbot **sync**` now") == "Run `supportbot **sync**` now"
    assert to_mrkdwn("```\n<!channel> **x**\n```") == "```\n&lt;!channel&gt; **x**\n```"


def test_a_table_becomes_an_aligned_block_with_its_header_once():
    table = "| Status | Code |\n|---|---:|\n| Not found | 404 |\n| Rate limited | 429 |"
    assert to_mrkdwn(table) == "```\nStatus        Code\nNot found     404\nRate limited  429\n```"


def test_mentions_and_broadcasts_in_text_are_escaped():
    assert to_mrkdwn("Hi <!channel> and <@U123>, see <https://x.example|here>") == (
        "Hi &lt;!channel&gt; and &lt;@U123&gt;, see &lt;https://x.example|here&gt;"
    )


def test_citation_markers_are_not_links():
    assert to_mrkdwn("Refunds take 5 days [1][2].") == "Refunds take 5 days [1][2]."


def test_quoted_table_rows_keep_their_citation_markers_inside_the_table():
    quoted = "| Status | Code |\n|---|---|\n| Not found | 404 | [1]\n| Rate limited | 429 | [1][2]"
    assert to_mrkdwn(quoted) == "```\nStatus        Code\nNot found     404 [1]\nRate limited  429 [1][2]\n```"
