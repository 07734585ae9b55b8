"""The review page on a large answer log: `/`, `/questions` (first and a deep page), `/gaps` and `/stale`.

    python bench/review_bench.py                  # 100k logged questions over 60 days (SQLite)
    python bench/review_bench.py --db postgresql+psycopg://postgres@127.0.0.1:5432/test

Target (issue "The review page a docs owner opens every Monday"): each page renders in <= 300 ms at 100k
questions. Baseline, timed in the same run: one bare query of the 50 newest rows, the least any list costs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import insert, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import bench_database
from bot.database import open_database
from bot.logs.models import feedback, questions
from bot.logs.names import remember_channel
from bot.review.app import create_app
from kb.embedding import pack

WORDS = "refund warranty battery shipping express charge case earbuds pairing app firmware reset discount student water".split()
STATUS = ["answered"] * 7 + ["abstained"] * 2 + ["error"]


def write_log(engine, rows: int, days: int = 60, batch: int = 5000) -> None:
    """Questions with their sentence-encoder vectors (random unit vectors, as many as the encoder gives: 384), so
    the gaps page groups by meaning as well as by words."""
    rng, now = random.Random(7), datetime.now(UTC)
    vectors = np.random.default_rng(7)
    for start in range(0, rows, batch):
        n = min(batch, rows - start)
        with engine.begin() as conn:
            first = conn.execute(select(questions.c.id).order_by(questions.c.id.desc()).limit(1)).scalar() or 0
            stamp = [now - timedelta(days=days * (1 - (start + i) / rows)) for i in range(n)]  # oldest first, like ids
            meaning = [pack(v / np.linalg.norm(v)) for v in vectors.standard_normal((n, 384)).astype(np.float32)]
            conn.execute(
                insert(questions),
                [
                    {
                        "created_at": stamp[i],
                        "source": "eval" if i % 50 == 0 else "slack",
                        "channel": "C1",
                        "question": "how do I " + " ".join(rng.sample(WORDS, 3)) + f" {rng.randrange(200)}",
                        "answerer": "local",
                        "status": rng.choice(STATUS),
                        "answer": "A. [1]",
                        "sources": [],
                        "cited": [],
                        "closest": [
                            {"n": 1, "title": "Shipping", "path": "help/shipping.html", "url": None, "collection": "help"}
                        ],
                        "problems": [],
                        "usage": {},
                        "latency_ms": rng.lognormvariate(3, 1),
                        "vector": meaning[i],
                    }
                    for i in range(n)
                ],
            )
            votes = [q for q in range(first + 1, first + n + 1) if rng.random() < 0.1]
            conn.execute(
                insert(feedback),
                [
                    {"question_id": q, "value": rng.choice(["up", "up", "down"]), "user_id": "U2", "created_at": now}
                    for q in votes
                ],
            )


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000, help="Logged questions to write first.")
    ap.add_argument("--runs", type=int, default=7, help="Renders of each page (the median is reported).")
    ap.add_argument("--db", help="Database URL (default: a temporary SQLite file); PostgreSQL tables are replaced.")
    args = ap.parse_args()
    engine = open_database(bench_database(args.db, Path(tempfile.mkdtemp(prefix="sb-review-"))))
    t = time.perf_counter()
    write_log(engine, args.rows)
    remember_channel(engine, "C1", "help-desk")  # pages name channels (and people) from the database, never Slack
    print(f"wrote {args.rows:,} logged questions in {time.perf_counter() - t:.1f} s")
    client = create_app(engine).test_client()
    middle = args.rows // 2

    def get(url):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)

    def bare():
        with engine.connect() as conn:
            conn.execute(select(questions).order_by(questions.c.id.desc()).limit(50)).all()

    base = median_ms(bare, args.runs)
    print(f"baseline (50 newest rows, one query): {base:.1f} ms")
    for name, url in [
        ("/ (overview)", "/"),
        ("/questions", "/questions"),
        (f"/questions?before={middle}", f"/questions?before={middle}"),
        ("/questions?status=abstained", "/questions?status=abstained"),
        ("/gaps", "/gaps"),
        ("/stale", "/stale"),
    ]:
        ms = median_ms(lambda u=url: get(u), args.runs)
        print(f"{name:<34} {ms:7.1f} ms  {ms / base:6.1f}x  (target <= 300 ms: {'ok' if ms <= 300 else 'OVER'})")


if __name__ == "__main__":
    main()
