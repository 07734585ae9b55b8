"""Load on the Slack HTTP endpoint: signed mentions from concurrent senders, a slow model.

    python bench/slack_load.py                       # one `serve` process on SQLite
    python bench/slack_load.py --processes 2 --db postgresql+psycopg://postgres@127.0.0.1:5432/test

200 mentions from 20 concurrent senders; the fake model takes 1 s per turn (two turns per
answer), and its answers are streamed into Slack as they are verified (SLACK_STREAMING's default). Each mention's twin (the message event) goes to another process when there are two, as
Slack retries may. Prints acknowledgement p50/p99 (Slack wants < 3 s), answers per second, and
whether every mention got exactly one answer. The baseline in the same run is the answer time of
a single mention on an idle bot.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import bench_database
from bot.runtime import Runtime
from bot.settings import load_settings
from tests.conftest import BotProcess
from tests.fakes.anthropic import FakeAnthropic, auto_agent
from tests.fakes.slack import BOT_USER, FakeSlack

QUESTIONS = [
    "How much is express delivery?",
    "How long is the warranty on Pods Pro?",
    "What header do I put my API key in?",
    "Can I go swimming with my earbuds?",
    "What does error 409 mean?",
]


def finished(slack: FakeSlack, message: dict) -> bool:
    """The mention has its answer, and it is not still streaming (Claude's answers stream in by default)."""
    replies = slack.replies("C_LOAD", message["ts"])
    return bool(replies) and not any(r.get("streaming") for r in replies)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mentions", type=int, default=200)
    ap.add_argument("--senders", type=int, default=20)
    ap.add_argument("--model-seconds", type=float, default=1.0)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--workers", type=int, default=16, help="SLACK_WORKERS per process")
    ap.add_argument("--db", help="database URL (default: a temporary SQLite file); PostgreSQL tables are replaced")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sb-load-"))
    url = bench_database(args.db, tmp)
    Runtime(load_settings(database_url=url)).sync()
    slack, model = FakeSlack(), FakeAnthropic().start()
    model.default = auto_agent(args.model_seconds, sentences=2)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ANTHROPIC_", "DOCS_", "DATABASE_URL"))} | {
        "SLACK_BOT_TOKEN": "xoxb-load",
        "SLACK_SIGNING_SECRET": slack.signing_secret,
        "SLACK_API_URL": slack.api_url,
        "DATABASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-load",
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_MAX_RETRIES": "0",
        "SLACK_WORKERS": str(args.workers),
    }
    bots = [BotProcess(env, tmp / f"bot{i}.log") for i in range(args.processes)]
    try:
        # baseline: one mention, idle bot
        t = time.perf_counter()
        probe = slack.user_says("C_LOAD", f"<@{BOT_USER}> {QUESTIONS[0]}")
        slack.deliver(bots[0].url, slack.events_for(probe)[0])
        slack.wait_for(lambda: finished(slack, probe), timeout=60)
        idle_s = time.perf_counter() - t

        messages = [
            slack.user_says("C_LOAD", f"<@{BOT_USER}> {QUESTIONS[i % len(QUESTIONS)]} (#{i})") for i in range(args.mentions)
        ]
        acks: list[float] = []
        statuses: list[int] = []

        def send(i: int) -> None:
            mention, twin = slack.events_for(messages[i])
            for n, envelope in enumerate((mention, twin)):
                target = bots[(i + n) % len(bots)]
                t0 = time.perf_counter()
                statuses.append(slack.deliver(target.url, envelope))
                acks.append((time.perf_counter() - t0) * 1000)

        started = time.perf_counter()
        with ThreadPoolExecutor(args.senders) as pool:
            list(pool.map(send, range(args.mentions)))
        slack.wait_for(lambda: all(finished(slack, m) for m in messages), timeout=600)
        elapsed = time.perf_counter() - started
        time.sleep(2)  # let any duplicate surface before counting
        counts = [len(slack.replies("C_LOAD", m["ts"])) for m in messages]
        streamed = len({c.params.get("thread_ts") for c in slack.called("chat.startStream")} & {m["ts"] for m in messages})
    finally:
        for b in bots:
            b.stop()
        model.stop()
        slack.stop()

    q = statistics.quantiles(acks, n=100)
    print(
        f"{args.mentions} mentions (+ their twins) from {args.senders} senders to {args.processes} process(es), "
        f"{args.workers} workers each, model {args.model_seconds:g} s per turn, database {url.split(':')[0]}"
    )
    print(
        f"acknowledgement   p50 {statistics.median(acks):7.1f} ms   p99 {q[98]:7.1f} ms   max {max(acks):7.1f} ms   (non-2xx: {sum(s != 200 for s in statuses)})"
    )
    print(
        f"answers           {args.mentions} in {elapsed:.1f} s = {args.mentions / elapsed:.2f} per second "
        f"(idle baseline: one answer in {idle_s:.2f} s, so {elapsed / idle_s:.1f}x one answer's time)"
    )
    print(f"streamed          {streamed}/{args.mentions} answers grew in Slack as they were verified (chat.startStream)")
    print(
        f"exactly once      {sum(c == 1 for c in counts)}/{len(counts)} mentions got one answer; "
        f"{sum(c == 0 for c in counts)} none, {sum(c > 1 for c in counts)} more than one"
    )


if __name__ == "__main__":
    main()
