"""Draw docs/answer.svg, the README's picture of an answer in Slack, from the bot's own blocks.

    python docs/make_picture.py [QUESTION]

The sample docs are indexed into a temporary SQLite database, the question is answered (by Claude with
ANTHROPIC_API_KEY set, else by the local answerer), and the message the bot would post (bot.slack.render) is
drawn the way Slack lays it out: sections, the sources, the context lines and the feedback buttons. Only the
mrkdwn the bot writes is understood (quotes, bold, italics, links).
"""

from __future__ import annotations

import html
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTION = "How much is express delivery?"
WIDTH, LEFT, TEXT_LEFT = 760, 20, 76
CHAR_PX = 7.4  # an average character at 15 px in a sans-serif: enough to wrap like Slack does
LINK = re.compile(r"<([^|>]+)\|([^>]+)>")
FONT = "font-family=\"Lato, 'Helvetica Neue', Helvetica, Arial, sans-serif\""


def answer_blocks(question: str) -> list[dict]:
    from bot.runtime import Runtime
    from bot.settings import load_settings
    from bot.slack.render import answer_messages

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("DOCS_BASE_URL", "https://help.example.com")
        runtime = Runtime(load_settings(database_url=f"sqlite:///{tmp}/picture.db"))
        runtime.ensure_index(None)  # the sample docs (DOCS_DIR unset), with their re-ranking vectors
        answer = runtime.ask(question)
        runtime.engine.dispose()
    return answer_messages(answer)[0]["blocks"]


def plain(mrkdwn: str) -> str:
    """Slack's mrkdwn as the words it shows: links by their text, entities decoded, emphasis marks dropped."""
    text = LINK.sub(lambda m: m.group(2), mrkdwn)
    text = re.sub(r"(?<!\w)[*_](\S[^*_\n]*?)[*_](?!\w)", r"\1", text)
    return html.unescape(text)


class Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.y = 0

    def text(self, x: float, y: float, s: str, size=15, fill="#1d1c1d", weight="normal", style="normal") -> None:
        self.parts.append(
            f'<text x="{x}" y="{y}" font-size="{size}" fill="{fill}" font-weight="{weight}" font-style="{style}" '
            f"{FONT}>{html.escape(s)}</text>"
        )

    def wrapped(self, s: str, x: float, size=15, fill="#1d1c1d", style="normal", indent=0) -> None:
        width = int((WIDTH - x - 24) / (CHAR_PX * size / 15))
        for line in textwrap.wrap(s, width) or [""]:
            self.y += size + 7
            self.text(x + indent, self.y, line, size, fill, style=style)

    def author(self, name: str, initials: str, colour: str, app: bool = False) -> None:
        self.y += 16
        self.parts.append(f'<rect x="{LEFT}" y="{self.y}" width="40" height="40" rx="6" fill="{colour}"/>')
        self.text(LEFT + 20 - 5 * len(initials), self.y + 26, initials, 16, "#fff", "bold")
        self.text(TEXT_LEFT, self.y + 15, name, 15, weight="bold")
        if app:
            x = TEXT_LEFT + 9 * len(name) + 6
            self.parts.append(f'<rect x="{x}" y="{self.y + 3}" width="32" height="16" rx="3" fill="#e8e8e8"/>')
            self.text(x + 5, self.y + 15, "APP", 10, "#616061", "bold")
        self.y += 18


def draw(question: str, blocks: list[dict]) -> str:
    c = Canvas()
    c.author("Dana", "D", "#4a9d8f")
    c.wrapped(f"@supportbot {question}", TEXT_LEFT)
    c.y += 14
    c.parts.append(f'<line x1="{LEFT}" y1="{c.y}" x2="{WIDTH - LEFT}" y2="{c.y}" stroke="#e0e0e0"/>')
    c.author("supportbot", "sb", "#611f69", app=True)
    for block in blocks:
        if block["type"] == "section":
            for line in block["text"]["text"].split("\n"):
                if line.startswith("> "):
                    top = c.y + 6
                    c.wrapped(plain(line[2:]), TEXT_LEFT, indent=14)
                    c.parts.append(f'<rect x="{TEXT_LEFT}" y="{top}" width="4" height="{c.y - top + 6}" rx="2" fill="#dddddd"/>')
                else:
                    c.wrapped(plain(line), TEXT_LEFT)
            c.y += 6
        elif block["type"] == "context":
            for element in block["elements"]:
                for line in element["text"].split("\n"):
                    linked = bool(LINK.search(line))
                    italic, bold = line.startswith("_"), line.startswith("*") and line.endswith("*")
                    colour = "#1264a3" if linked else "#1d1c1d" if bold else "#616061"
                    c.wrapped(plain(line), TEXT_LEFT, 13, colour, "italic" if italic else "normal")
            c.y += 6
        elif block["type"] == "context_actions":
            c.y += 10
            x = TEXT_LEFT
            for element in block["elements"]:
                for half, mark in (("positive_button", "+"), ("negative_button", "-")):
                    label = f"{mark}  {element[half]['text']['text']}"
                    w = 16 + 7.2 * len(label)
                    c.parts.append(f'<rect x="{x}" y="{c.y}" width="{w}" height="28" rx="14" fill="#fff" stroke="#cfcfcf"/>')
                    c.text(x + 10, c.y + 19, label, 13, "#1d1c1d")
                    x += w + 8
            c.y += 28
    height = c.y + 20
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="supportbot answering in a Slack thread, with numbered sources and feedback buttons">'
        f'<rect width="{WIDTH}" height="{height}" rx="8" fill="#ffffff" stroke="#dddddd"/>'
    )
    return head + "".join(c.parts) + "</svg>\n"


def main() -> None:
    question = " ".join(sys.argv[1:]) or QUESTION
    (HERE / "answer.svg").write_text(draw(question, answer_blocks(question)))
    print(f"wrote {HERE / 'answer.svg'}")


if __name__ == "__main__":
    main()
