"""Streamed answers in Slack: how soon a verified sentence is visible, and what streaming costs the whole answer.

    python bench/stream_bench.py [--questions 10] [--delta-ms 25]

A `serve --http` process answers mentions from the fake Slack with the fake Claude, which streams a three-
sentence cited answer a few characters at a time (one text delta every --delta-ms). For each question it
prints when the first verified sentence reached Slack (chat.startStream) after its block ended in the model's
stream (target: <= 300 ms), and the time to the finished answer, streamed against the same bot posting whole
(SLACK_STREAMING=false) in the same run (target: no later).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.slack_load import QUESTIONS
from bot.runtime import Runtime
from bot.settings import load_settings
from tests.conftest import BotProcess
from tests.fakes.anthropic import Cite, FakeAnthropic, Reply, answer, search, search_results
from tests.fakes.slack import BOT_USER, FakeSlack


def three_sentences(req: dict) -> Reply:
    """Search with the question, then answer with three sentences, each citing a line of the first result."""
    last = req["messages"][-1]
    if isinstance(last["content"], str):
        return search(last["content"][:200])(req)
    first = search_results(req)[0]
    lines = [b["text"] for b in first["content"]][:3]
    lines += lines[:1] * (3 - len(lines))
    cites = [
        Cite(
            ("" if n == 0 else " ") + "The docs say: " + "".join(ch for ch in line if not ch.isdigit())[:80] + ".",
            first["source"],
            line[:40],
        )
        for n, line in enumerate(lines)
    ]
    return answer(*cites)(req)


def run(bot: BotProcess, slack: FakeSlack, model: FakeAnthropic, questions: list[str], channel: str) -> list[dict]:
    out = []
    for i, question in enumerate(questions):
        msg = slack.user_says(channel, f"<@{BOT_USER}> {question} (#{i})")
        sent = time.monotonic()
        slack.deliver(bot.url, slack.events_for(msg)[0])
        slack.wait_for(lambda: (r := slack.replies(channel, msg["ts"])) and not any(m.get("streaming") for m in r), timeout=60)
        done = max(
            c.at
            for c in slack.calls
            if c.params.get("channel") == channel and c.method in ("chat.postMessage", "chat.stopStream")
        )
        ends = [t for t, _ in model.block_ends if t >= sent]
        starts = [c.at for c in slack.called("chat.startStream") if c.params.get("channel") == channel and c.at >= sent]
        out.append({"whole_s": done - sent, "first_ms": (starts[0] - ends[0]) * 1000 if starts and ends else None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=int, default=10, help="Questions asked of each bot, one at a time.")
    ap.add_argument("--delta-ms", type=float, default=25, help="The fake model's pause before each text delta.")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sb-stream-"))
    url = f"sqlite:///{tmp / 'bench.db'}"
    Runtime(load_settings(database_url=url)).sync()
    slack, model = FakeSlack(), FakeAnthropic().start()
    model.default = three_sentences
    model.token_delay_s = args.delta_ms / 1000
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ANTHROPIC_", "DOCS_", "DATABASE_URL"))} | {
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": slack.signing_secret,
        "SLACK_API_URL": slack.api_url,
        "DATABASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-bench",
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_MAX_RETRIES": "0",
    }
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.questions)]
    results = {}
    try:
        for label, streaming in (("posted whole (baseline)", "false"), ("streamed", "true")):
            bot = BotProcess(env | {"SLACK_STREAMING": streaming}, tmp / f"bot-{streaming}.log")
            try:
                run(bot, slack, model, questions[:1], f"C_WARM_{streaming}")  # warm: the index loads on first use
                results[label] = run(bot, slack, model, questions, f"C_{streaming.upper()}")
            finally:
                bot.stop()
    finally:
        model.stop()
        slack.stop()

    base = statistics.median(r["whole_s"] for r in results["posted whole (baseline)"])
    print(f"{args.questions} questions per bot, one at a time; the fake model streams a text delta every {args.delta_ms:g} ms")
    for label, rows in results.items():
        whole = statistics.median(r["whole_s"] for r in rows)
        print(f"{label:<24} finished answer p50 {whole * 1000:7.0f} ms   ({whole / base:.2f}x the baseline)")
    firsts = sorted(r["first_ms"] for r in results["streamed"] if r["first_ms"] is not None)
    if firsts:
        p95 = firsts[min(len(firsts) - 1, round(0.95 * (len(firsts) - 1)))]
        print(
            f"first verified sentence in Slack after its block ended: p50 {statistics.median(firsts):.0f} ms, "
            f"p95 {p95:.0f} ms, max {firsts[-1]:.0f} ms (target <= 300 ms); {len(firsts)}/{len(results['streamed'])} streamed"
        )


if __name__ == "__main__":
    main()
