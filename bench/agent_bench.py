"""Latency of the agent loop itself, with a model that answers instantly.

    python bench/agent_bench.py

Runs the sample docs' question set through (a) the local answerer and (b) the Claude loop
against the project's fake Messages API with zero delay (one search, then a cited answer),
and prints per-question p50/p95 next to a bare search in the same run. Target (issue 3):
<= 50 ms per question on the sample docs.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.runtime import Runtime
from bot.settings import SAMPLE_EVAL, load_settings
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.anthropic import answer as scripted_answer
from tests.fakes.anthropic import search as scripted_search


def timed(fn, items, rounds):
    times = []
    for _ in range(rounds):
        for item in items:
            t = time.perf_counter()
            fn(item)
            times.append((time.perf_counter() - t) * 1000)
    return times


def line(name, times, base=None):
    p50, p95 = statistics.median(times), statistics.quantiles(times, n=20)[18]
    ratio = f"  {p50 / base:6.1f}x a bare search" if base else ""
    print(f"{name:<34} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms{ratio}")
    return p50


def main() -> None:
    questions = [q["question"] for q in yaml.safe_load(SAMPLE_EVAL.read_text())]
    tmp = tempfile.mkdtemp(prefix="sb-agent-bench-")
    fake = FakeAnthropic().start()
    settings = load_settings(
        database_url=f"sqlite:///{tmp}/bench.db",
        anthropic_api_key="sk-ant-bench",
        anthropic_base_url=fake.url,
        anthropic_max_retries=0,
    )
    rt = Runtime(settings)
    rt.sync()
    searcher = rt.searcher
    searcher.search("warm up")

    def claude(question):
        fake.then(scripted_search(question), scripted_answer("Here is what the docs say."))
        return rt.agent.answer(question, answerer="claude")

    print(f"{len(questions)} questions from {SAMPLE_EVAL.name}, 5 rounds each")
    base = line("bare search (baseline)", timed(lambda q: searcher.search(q), questions, 5))
    line(
        "local answerer, whole loop",
        timed(lambda q: rt.agent.answer(q, answerer="local"), questions, 5),
        base,
    )
    line("claude loop, zero-latency fake", timed(claude, questions, 5), base)
    line("local answerer + answer log write", timed(lambda q: rt.ask(q, answerer="local"), questions, 5), base)
    fake.stop()


if __name__ == "__main__":
    main()
