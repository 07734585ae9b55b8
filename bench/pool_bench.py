"""What the encoder's own pool costs a search: EncodedRows.top_pages (a scan of every chunk's int8 vector) against
the re-ranking step it feeds (EncodedRows.order over the hybrid's 30 pages), in the same process.

    python bench/pool_bench.py [--chunks 100000] [--queries 200]

Random unit vectors (384 dimensions, int8 with a scale per row, as kb.encode stores them), 5 chunks a page.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kb.rerank import ENCODER_POOL, RERANK_PAGES, EncodedRows


def timed(fn, queries) -> tuple[float, float]:
    out = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - start) * 1000)
    return float(np.percentile(out, 50)), float(np.percentile(out, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=100_000, help="How many chunk vectors to scan.")
    ap.add_argument("--queries", type=int, default=200, help="How many queries to time.")
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    dim = 384
    pages = np.arange(args.chunks) // 5
    rows = EncodedRows(np.arange(1, args.chunks + 1), pages, "bench", dim)
    vectors = rng.standard_normal((args.chunks, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    scale = np.abs(vectors).max(axis=1) / 127
    rows.codes[:] = np.round(vectors / scale[:, None]).astype(np.int8)
    rows.scales[:] = scale
    rows.have[:] = True
    queries = rng.standard_normal((args.queries, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    head = list(range(RERANK_PAGES))
    base = timed(lambda q: rows.order(head, q), queries)
    pool = timed(lambda q: rows.top_pages(q, ENCODER_POOL, set(head)), queries)
    print(f"{args.chunks:,} chunk vectors, {args.queries} queries, ENCODER_POOL {ENCODER_POOL}")
    print(f"re-ranking the hybrid's {RERANK_PAGES} pages (before)  p50 {base[0]:.2f} ms  p95 {base[1]:.2f} ms")
    print(f"the encoder's own pool (added)          p50 {pool[0]:.2f} ms  p95 {pool[1]:.2f} ms")
    print(f"a search's re-ranking step, after/before: {(base[0] + pool[0]) / base[0]:.1f}x at p50")


if __name__ == "__main__":
    main()
