"""Slack messages are built by pure functions within Slack's limits, escaping everything that is data."""

import json

from bot.agent.types import Answer, Source
from bot.slack.render import answer_messages, escape, source_link, split_text
from tests.fakes.slack import validate_blocks


def answered(text, sources=(), **kw):
    return Answer("q", "answered", text, "claude", sources=list(sources), log_id=7, **kw)


def test_data_is_escaped_so_it_pings_no_one():
    assert escape("<!channel> & <@U123>") == "&lt;!channel&gt; &amp; &lt;@U123&gt;"
    [message] = answer_messages(answered("Ping <!channel> now [1]", [Source(1, "A <b>", "a.md", None, "help")]))
    rendered = json_text(message)
    assert "<!channel>" not in rendered and "&lt;!channel&gt;" in rendered
    assert "<b>" not in rendered


def test_sources_are_numbered_links_or_paths():
    assert (
        source_link(Source(2, "Refunds > Window | x", "help/r.md", "https://h.example/r#w", "help"))
        == "<https://h.example/r#w|[2] Refunds &gt; Window / x>"
    )
    assert source_link(Source(1, "Refunds", "help/r.md", None, "help")) == "[1] Refunds (help/r.md)"


def test_a_source_without_a_link_names_its_path_and_the_cited_lines():
    cited = [{"n": 1, "chunk_id": 3, "lines": [[9, "a"], [10, "b"]]}, {"n": 1, "chunk_id": 3, "lines": [[12, "c"]]}]
    cited += [{"n": 2, "chunk_id": 4, "lines": [[4, "d"]]}]
    sources = [Source(1, "Refunds", "help/r.md", None, "help"), Source(2, "Warranty", "help/w.md", None, "help")]
    [message] = answer_messages(answered("Thirty days [1]. One year [2].", sources, cited=cited))
    rendered = json.dumps(message, ensure_ascii=False)
    assert "[1] Refunds (help/r.md, lines 9–12)" in rendered and "[2] Warranty (help/w.md, line 4)" in rendered


def test_a_long_answer_is_split_within_section_and_block_limits():
    text = "\n".join(f"Line {i}: " + "word " * 60 for i in range(400))  # ~125k characters
    messages = answer_messages(
        answered(text, [Source(i, f"Page {i}", f"p{i}.md", f"https://x.example/{i}", "help") for i in range(1, 30)])
    )
    assert len(messages) > 1
    for m in messages:
        assert validate_blocks(m["blocks"]) is None
        assert len(m["blocks"]) <= 50 and len(m["text"]) <= 4000
        assert all(len(b["text"]["text"]) <= 3000 for b in m["blocks"] if b["type"] == "section")
    assert sum(len(b["text"]["text"]) for m in messages for b in m["blocks"] if b["type"] == "section") >= len(text) - 1000


def test_split_prefers_line_ends():
    assert split_text("a" * 10 + "\n" + "b" * 10, limit=15) == ["a" * 10, "b" * 10]


def test_feedback_buttons_carry_the_log_id_and_errors_get_none():
    [ok] = answer_messages(answered("Fine [1]", [Source(1, "T", "t.md", None, "help")]))
    [feedback] = [e for b in ok["blocks"] if b["type"] == "context_actions" for e in b["elements"]]
    assert (feedback["type"], feedback["positive_button"]["value"], feedback["negative_button"]["value"]) == (
        "feedback_buttons",
        "up:7",
        "down:7",
    )
    assert not [b for b in ok["blocks"] if b["type"] == "actions"], "no 'Ask a person' without an escalation channel"
    [escalating] = answer_messages(answered("Fine [1]", [Source(1, "T", "t.md", None, "help")]), escalate=True)
    [ask] = [e for b in escalating["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert (ask["action_id"], ask["value"]) == ("escalate", "7")
    [err] = answer_messages(Answer("q", "error", "The model is busy.", "claude", log_id=8))
    assert not [b for b in err["blocks"] if b["type"] in ("actions", "context_actions")]
    assert "busy" in err["text"]


def json_text(message):
    import json

    return json.dumps(message)


def test_a_doc_url_cannot_change_a_links_label_or_scheme():
    from kb.links import page_url

    hijack = Source(1, "Refunds", "help/refunds.md", page_url(None, "help/refunds.md", "https://x.example/a|Click me>"), "help")
    assert source_link(hijack) == "<https://x.example/a%7CClick%20me%3E|[1] Refunds>"
    script = Source(1, "Refunds", "help/refunds.md", page_url(None, "help/refunds.md", "javascript:alert(1)"), "help")
    assert source_link(script) == "[1] Refunds (help/refunds.md)"


def tables(message):
    return [b for b in message["blocks"] if b["type"] == "table"]


def test_a_table_in_an_answer_is_slacks_table_block_with_its_header_first_and_cells_escaped():
    text = "Codes:\n| Status | Meaning |\n|---|---|\n| 409 | `busy` <!here> | [1]\n| 500 | **our fault** | [1]\nRetry later."
    [message] = answer_messages(answered(text, [Source(1, "Errors", "e.md", None, "api")]))
    assert validate_blocks(message["blocks"]) is None
    [table] = tables(message)
    cells = [[c["text"] for c in row] for row in table["rows"]]
    assert cells == [["Status", "Meaning"], ["409", "busy &lt;!here&gt; [1]"], ["500", "our fault [1]"]]
    sections = [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]
    assert sections == ["Codes:", "Retry later."]


def test_only_the_first_table_of_a_message_is_a_table_block():
    one = "| A | B |\n|---|---|\n| 1 | 2 |"
    [message] = answer_messages(answered(f"{one}\nand\n{one.replace('A', 'C')}"))
    assert len(tables(message)) == 1
    assert any("C  B" in b["text"]["text"] for b in message["blocks"] if b["type"] == "section")


def test_the_readmes_picture_draws_the_bots_own_blocks():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("make_picture", Path(__file__).parent.parent / "docs" / "make_picture.py")
    picture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(picture)
    source = Source(1, "Shipping > Express & more", "help/shipping.md", "https://h.example/shipping#express", "help")
    [message] = answer_messages(answered("Express shipping costs $12. [1]", [source]))
    svg = picture.draw("How much is express delivery?", message["blocks"])
    for shown in ("Express shipping costs $12. [1]", "[1] Shipping &gt; Express &amp; more", "Helpful", "Not helpful"):
        assert shown in svg, shown
    assert "<https" not in svg, "a link is drawn by its text"
