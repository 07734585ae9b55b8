"""`supportbot logs export` speed and memory on a large answer log, against the per-question reads it replaced.

    python bench/export_bench.py                 # 200k logged questions, one search and one vote each
    python bench/export_bench.py --rows 1000000  # the issue's 1M (about a minute to write the log first)

Prints rows/s and the process's RSS growth while streaming every row as JSON lines to /dev/null, and, in the
same run, the old way (each question read with its own three queries: `question_trace`) over the first
--baseline-rows questions. Target: >= 20,000 rows/s at 1M rows, with memory that does not grow with them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import bench_database
from bench.search_bench import rss_mb
from bot.database import open_database
from bot.logs.models import feedback, questions, searches
from bot.logs.report import EXPORT_FIELDS, Filters, export, question_trace


def write_log(engine, rows: int, batch: int = 5000) -> None:
    now = datetime.now(UTC)
    hit = [{"chunk_id": 1, "path": "help/shipping.html", "title": "Shipping", "heading": "Costs", "score": 7.1}]
    for start in range(0, rows, batch):
        n = min(batch, rows - start)
        with engine.begin() as conn:
            first = conn.execute(select(questions.c.id).order_by(questions.c.id.desc()).limit(1)).scalar() or 0
            conn.execute(
                insert(questions),
                [
                    {
                        "created_at": now,
                        "source": "slack",
                        "channel": "C1",
                        "user_id": "U1",
                        "question": f"How much is express delivery? {i}",
                        "answerer": "local",
                        "status": "answered",
                        "answer": "Express shipping costs $12. [1]",
                        "sources": [
                            {"n": 1, "title": "Shipping", "path": "help/shipping.html", "url": None, "collection": "help"}
                        ],
                        "problems": [],
                        "usage": {},
                        "latency_ms": 3.0,
                    }
                    for i in range(start, start + n)
                ],
            )
            ids = range(first + 1, first + n + 1)
            conn.execute(
                insert(searches),
                [{"question_id": q, "ordinal": 0, "query": "express delivery", "hits": hit, "ms": 1.0} for q in ids],
            )
            conn.execute(insert(feedback), [{"question_id": q, "value": "up", "user_id": "U2", "created_at": now} for q in ids])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000, help="How many logged questions to write and export.")
    ap.add_argument("--baseline-rows", type=int, default=2_000, help="How many the old per-question way exports.")
    ap.add_argument("--db", help="Database URL (default: a temporary SQLite file); PostgreSQL tables are replaced.")
    args = ap.parse_args()

    engine = open_database(bench_database(args.db, Path(tempfile.mkdtemp(prefix="sb-export-"))))
    t = time.perf_counter()
    write_log(engine, args.rows)
    print(f"wrote {args.rows:,} logged questions in {time.perf_counter() - t:.1f} s")

    with open("/dev/null", "w") as sink:
        base = rss_mb()
        t = time.perf_counter()
        n = sum(sink.write(piece) and 1 for piece in export(engine, Filters(), "jsonl"))
        ours_s = time.perf_counter() - t
        growth = rss_mb() - base
        ids = [
            r
            for (r,) in engine.connect().execute(select(questions.c.id).order_by(questions.c.id.desc()).limit(args.baseline_rows))
        ]
        t = time.perf_counter()
        for qid in ids:  # the export before streaming: one trace (three queries) per question
            trace = question_trace(engine, qid)
            sink.write(json.dumps({k: str(trace.get(k)) for k in EXPORT_FIELDS}) + "\n")
        old_s = time.perf_counter() - t
    ours, old = n / ours_s, len(ids) / old_s
    print(f"streamed export: {n:,} rows in {ours_s:.1f} s = {ours:,.0f} rows/s, RSS growth {growth:.0f} MB")
    print(f"per-question reads (before): {len(ids):,} rows in {old_s:.1f} s = {old:,.0f} rows/s")
    print(f"ratio: {ours / old:.1f}x")


if __name__ == "__main__":
    main()
