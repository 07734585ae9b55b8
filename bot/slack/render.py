"""Slack messages for an Answer, built by small pure functions.

Everything that comes from documents, users or the model is escaped (& < >), so a doc
containing <!channel> or <@U123> pings no one; only links we build ourselves are markup.
Limits kept: 3,000 characters per section, 50 blocks per message, 10 context elements.
"""

from __future__ import annotations

import json
import re

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextActionsBlock,
    ContextBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
    MarkdownTextObject,
    RawTextObject,
    SectionBlock,
    TableBlock,
)

from bot.agent.types import Answer, Source, logged_sources
from bot.slack.message import is_dm_channel
from bot.slack.mrkdwn import aligned, escape, pieces, plain, to_mrkdwn

SECTION_LIMIT = 3000
BLOCK_LIMIT = 50
FALLBACK_LIMIT = 3900
TABLE_ROWS, TABLE_COLUMNS, TABLE_CELL_CHARS = 100, 20, 1000  # a table block's limits (cells kept short)
HANDOVER_ANSWER_CHARS = 6000  # of the bot's answer in a hand-over: enough for any short answer, in two sections
MESSAGE_TEXT_BUDGET = 12_000  # Slack refuses messages whose blocks hold much more (msg_blocks_too_long)


def link_label(text: str) -> str:
    """A link label may hold neither '|' nor '>' and must stay on one line."""
    return escape(" ".join(text.replace("|", "/").split()))[:150]


def source_link(src: Source, numbered: bool = True, lines: tuple[int, int] | None = None) -> str:
    """A source as a link; with no link, its path and the cited lines, so a reader can still find it."""
    label = f"[{src.n}] {src.title}" if numbered else src.title
    if src.url and src.url.startswith(("http://", "https://")):
        return f"<{escape(src.url)}|{link_label(label)}>"
    where = f", line {lines[0]}" if lines and lines[0] == lines[1] else f", lines {lines[0]}–{lines[1]}" if lines else ""
    return f"{link_label(label)} ({escape(src.path)}{where})"


def cited_lines(cited: list[dict]) -> dict[int, tuple[int, int]]:
    """Each source number's cited lines, first to last, from the answer's citations."""
    spans: dict[int, tuple[int, int]] = {}
    for c in cited:
        numbers = [number for number, _ in c.get("lines") or []]
        if numbers and isinstance(c.get("n"), int):
            first, last = spans.get(c["n"], (min(numbers), max(numbers)))
            spans[c["n"]] = (min(first, *numbers), max(last, *numbers))
    return spans


def split_text(text: str, limit: int = SECTION_LIMIT) -> list[str]:
    """Pieces of at most `limit` characters, cut at line ends, then spaces, when it can."""
    pieces, rest = [], text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit)
        if cut < limit // 2:
            cut = rest.rfind(" ", 0, limit)
        if cut < limit // 2:
            cut = limit
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip("\n ")
    if rest.strip():
        pieces.append(rest)
    return pieces


def section(text: str) -> dict:
    return SectionBlock(text=MarkdownTextObject(text=text)).to_dict()


def context(texts: list[str]) -> dict:
    return ContextBlock(elements=[MarkdownTextObject(text=t) for t in texts[:10]]).to_dict()


def link_lines(links: list[str], per_element: int = 5) -> list[str]:
    """Several links per context element, so long source lists stay within 10 elements."""
    return ["   ".join(links[i : i + per_element]) for i in range(0, len(links), per_element)]


def feedback_blocks(log_id: int | None, escalate: bool = False) -> list[dict]:
    """Slack's own feedback buttons (a context_actions block), and "Ask a person" where the channel has somewhere
    to send it (a button, which context_actions cannot hold)."""
    value = str(log_id or 0)
    blocks = [
        ContextActionsBlock(
            elements=[
                FeedbackButtonsElement(
                    action_id="feedback",
                    positive_button=FeedbackButtonObject(
                        text="Helpful", value=f"up:{value}", accessibility_label="This answer was helpful"
                    ),
                    negative_button=FeedbackButtonObject(
                        text="Not helpful", value=f"down:{value}", accessibility_label="This answer was not helpful"
                    ),
                )
            ]
        ).to_dict()
    ]
    return blocks + (escalate_blocks(log_id) if escalate else [])


def escalate_blocks(log_id: int | None) -> list[dict]:
    value = str(log_id or 0)
    return [
        ActionsBlock(
            block_id=f"escalate:{value}",
            elements=[ButtonElement(action_id="escalate", text="🙋 Ask a person", value=value)],
        ).to_dict()
    ]


def share_blocks(log_id: int) -> list[dict]:
    """Under a private (/ask) answer: the button that posts it in the channel for everyone."""
    return [
        ActionsBlock(
            block_id=f"share:{log_id}",
            elements=[ButtonElement(action_id="share_answer", text="Share in channel", value=str(log_id), style="primary")],
        ).to_dict()
    ]


def answer_blocks(answer: Answer, notice: str | None = None, escalate: bool = False, private: bool = False) -> list[dict]:
    blocks: list[dict] = [context([escape(notice)])] if notice else []
    tabled = False
    for piece in pieces(answer.answer):
        if isinstance(piece, list) and not tabled and len(piece) <= TABLE_ROWS and len(piece[0]) <= TABLE_COLUMNS:
            blocks.append(table(piece))
            tabled = True  # Slack shows one table block per message; later tables stay aligned text
        else:
            blocks += [section(part) for part in split_text(to_mrkdwn(piece) if isinstance(piece, str) else aligned(piece))]
    return blocks + trailer_blocks(answer, escalate, private)


def table(cells: list[list[str]]) -> dict:
    """Slack's own table block: the header row first, each cell plain text (escaped like all text from docs)."""
    rows = [[RawTextObject(text=plain(c)[:TABLE_CELL_CHARS] or " ") for c in row] for row in cells]
    return TableBlock(rows=rows).to_dict()


def sources_block(sources: list[Source], cited: list[dict] | None = None) -> dict:
    """The numbered source links under an answer (or under a hand-over of it)."""
    spans = cited_lines(cited or [])
    return context(["*Sources*", *link_lines([source_link(s, lines=spans.get(s.n)) for s in sources])])


def trailer_blocks(answer: Answer, escalate: bool = False, private: bool = False) -> list[dict]:
    """What follows the answer's text: its sources (or the closest pages), how it was made, and the buttons. A
    streamed answer ends with these."""
    blocks: list[dict] = []
    if answer.sources:
        blocks.append(sources_block(answer.sources, answer.cited))
    elif answer.closest:
        blocks.append(context(["*Closest pages*", *link_lines([source_link(s, numbered=False) for s in answer.closest])]))
    if answer.status == "answered" and answer.answerer == "local":
        blocks.append(context(["_Extractive answer: quoted from the docs without a language model._"]))
    if answer.log_id is not None and answer.status in ("answered", "abstained"):
        blocks += feedback_blocks(answer.log_id, escalate) + (share_blocks(answer.log_id) if private else [])
    return blocks


def fallback_text(answer: Answer) -> str:
    text = escape(answer.answer)
    if answer.sources:
        text += "\nSources: " + ", ".join(f"[{s.n}] {escape(s.title)}" for s in answer.sources)
    return text[:FALLBACK_LIMIT]


def answer_messages(answer: Answer, notice: str | None = None, escalate: bool = False, private: bool = False) -> list[dict]:
    """One message, or several when the blocks outgrow one: each {"text", "blocks"}. escalate: offer "Ask a person";
    private: an answer only the asker sees, offering "Share in channel" too. A failure offers "Ask a person" alone."""
    if answer.status == "error":
        message = reason_message(answer.answer)
        if escalate and answer.log_id is not None:  # a person is needed most when the bot could not answer at all
            message["blocks"] += escalate_blocks(answer.log_id)
        return [message]
    text = fallback_text(answer)
    messages: list[dict] = []
    current: list[dict] = []
    size = 0
    for block in answer_blocks(answer, notice, escalate, private):
        length = len(json.dumps(block))
        if current and (len(current) == BLOCK_LIMIT or size + length > MESSAGE_TEXT_BUDGET):
            messages.append({"text": text if not messages else "(continued)", "blocks": current})
            current, size = [], 0
        current.append(block)
        size += length
    messages.append({"text": text if not messages else "(continued)", "blocks": current})
    return messages


def shared_message(answer: Answer, user: str, escalate: bool = False) -> list[dict]:
    """A private answer its asker shared: who asked what, then the answer as the channel would have had it."""
    who = f"<@{user}> asked" if _id(user) else "Someone asked"
    head = section(f"{who}: {escape(' '.join(answer.question.split()))[:2000]}")
    messages = answer_messages(answer, escalate=escalate)
    if len(messages[0]["blocks"]) == BLOCK_LIMIT:
        return [{"text": head["text"]["text"], "blocks": [head]}, *messages]
    return [{**messages[0], "blocks": [head, *messages[0]["blocks"]]}, *messages[1:]]


def reason_message(text: str) -> dict:
    """A short reason when no answer could be made: never silent, never a traceback."""
    return {"text": escape(text), "blocks": [section(f":warning: {escape(text)}")]}


def plain_message(text: str) -> dict:
    return {"text": escape(text), "blocks": [section(escape(text))]}


def _id(value: str | None) -> str | None:
    """A Slack ID from a payload or the log, only if it looks like one (it is put inside <...> markup)."""
    return value if value and re.fullmatch(r"[A-Z0-9_]{2,40}", value) else None


def escalation_message(
    row: dict, clicked_by: str | None, permalink: str | None, mention: str | None, relayed: bool = False
) -> dict:
    """What the escalation channel reads: who asked what where, what the bot said, the way to the thread, and
    (relayed: replies in this thread reach the asker) a "Mark resolved" button."""
    who, where, group = _id(row.get("user_id") or clicked_by), _id(row.get("channel")), _id(mention)
    head = (f"<!subteam^{group}> " if group else "") + "A question for a person" + (f" from <@{who}>" if who else "")
    head += f" in <#{where}>:" if where and not is_dm_channel(where) else " (in a direct message):"
    said = {"answered": "The bot answered:", "abstained": "The bot found nothing in the docs:"}.get(
        row["status"], "The bot could not answer:"
    )
    question = "\n".join("> " + line for line in escape(row["question"].strip())[:2000].split("\n"))
    lines = [head, question]
    if relayed:
        lines.append("Reply in this thread: your replies reach the asker where they asked, and theirs come back here.")
    if relayed and permalink and permalink.startswith("https://"):
        lines.append(f"<{escape(permalink)}|Open their thread>")
    elif not relayed:  # a private /ask answer: no thread to relay into
        lines.append(f"Write to <@{who}> directly: where they asked is private to them." if who else "")
    head_text = "\n".join(line for line in lines if line)
    answer = to_mrkdwn(row.get("answer") or "")[:HANDOVER_ANSWER_CHARS]  # as the asker read it: lists, bold, links
    blocks = [section(head_text), context([f"*{said}*"]), *[section(part) for part in split_text(answer)][:3]]
    sources = logged_sources(row.get("sources"))
    if sources:
        blocks.append(sources_block(sources, row.get("cited")))
    return {"text": head_text, "blocks": blocks + (resolve_blocks(row["id"]) if relayed else [])}


def resolve_blocks(question_id: int) -> list[dict]:
    """ "Mark resolved", on both sides of a hand-over."""
    button = ButtonElement(action_id="resolve_handover", text="✅ Mark resolved", value=str(question_id))
    return [ActionsBlock(block_id=f"resolve:{question_id}", elements=[button]).to_dict()]
