"""The App Home tab: what the bot knows, how to ask it, whom it hands questions to, and the viewer's own recent
questions. Read from the index and the answer log each time the tab is opened; built by small pure functions."""

from __future__ import annotations

from slack_sdk.models.blocks import DividerBlock, HeaderBlock, MarkdownTextObject, SectionBlock
from slack_sdk.models.views import View
from sqlalchemy import Engine

from bot.logs.store import questions_of
from bot.slack.access import ChannelRule
from bot.slack.mrkdwn import escape
from kb.state import chunk_count, last_sync, pages_by_collection

STATUS_WORDS = {"answered": "answered", "abstained": "not in the docs", "error": "failed", "budget_exhausted": "ran out of steps"}


def home_facts(engine: Engine, user_id: str, limit: int = 5) -> dict:
    with engine.connect() as conn:
        facts = {"pages": pages_by_collection(conn), "chunks": chunk_count(conn), "last_sync": last_sync(conn)}
    return facts | {"mine": questions_of(engine, user_id, limit)}


def home_view(facts: dict, rule: ChannelRule) -> dict:
    """The Home tab's view, from the facts and the DM rule (its collections and escalation channel)."""
    pages = facts["pages"]
    shown = {c: n for c, n in pages.items() if rule.collections is None or c in rule.collections}
    what = ", ".join(f"*{escape(c)}* ({n} page{'' if n == 1 else 's'})" for c, n in sorted(shown.items())) or "nothing yet"
    last = facts["last_sync"]
    synced = f"Last synced {last.finished_at:%Y-%m-%d %H:%M} UTC ({escape(last.status)})." if last else "Not synced yet."
    blocks = [
        HeaderBlock(text="Answers from our docs, with sources"),
        _section(f"*What I know:* {what}; {facts['chunks']:,} passages. {synced}"),
        _section(
            "*How to ask:* message me here, or mention me in a channel. I answer in the thread with numbered "
            "sources, or say plainly when the docs don't cover it."
        ),
    ]
    if rule.escalate_to:
        blocks.append(_section(f"*Need a person?* Use “Ask a person” under an answer: it goes to <#{rule.escalate_to}>."))
    recent = "\n".join(
        f"• {escape(' '.join(q.split())[:120])} — _{STATUS_WORDS.get(status, escape(status))}_, {when:%b %d}"
        for q, status, when in facts["mine"]
    )
    blocks += [DividerBlock(), _section("*Your recent questions*\n" + (recent or "None yet."))]
    return View(type="home", blocks=blocks).to_dict()


def _section(text: str) -> SectionBlock:
    return SectionBlock(text=MarkdownTextObject(text=text))
