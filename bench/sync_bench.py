"""Sync speed: a full sync of a large folder, then re-syncs with nothing and one file changed.

    python bench/sync_bench.py                # 10,000 documents, 5 sections of 100 words each
    python bench/sync_bench.py --docs 2000 --db postgresql+psycopg://postgres@127.0.0.1:5432/test

Target (issue 2): re-sync of a 10k-document folder with one changed file <= 2 s. The full
sync in the same run is the baseline the incremental figures are compared with.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import bench_database, write_docs
from bot.database import open_database
from kb.sync import sync


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--sections", type=int, default=5)
    ap.add_argument("--words", type=int, default=100)
    ap.add_argument("--db", help="database URL (default: a temporary SQLite file); its tables are replaced")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sb-sync-bench-"))
    folder = tmp / "docs"
    _, gen_s = timed(lambda: write_docs(folder, args.docs, args.sections, args.words))
    url = bench_database(args.db, tmp)
    engine = open_database(url)
    print(f"folder: {args.docs:,} documents x {args.sections} sections x {args.words} words (written in {gen_s:.1f} s)")

    full, full_s = timed(lambda: sync(engine, folder))
    nothing, nothing_s = timed(lambda: sync(engine, folder))
    victim = next(folder.rglob("*.md"))
    victim.write_text(victim.read_text() + "\n## Added later\n\nA brand new paragraph about refunds.\n")
    one, one_s = timed(lambda: sync(engine, folder))

    rows = [
        ("full sync (baseline)", full_s, f"{len(full.added):,} added, {full.chunks:,} chunks"),
        ("re-sync, nothing changed", nothing_s, f"{nothing.unchanged:,} unchanged"),
        ("re-sync, one file changed", one_s, f"{len(one.changed)} changed, version {one.index_version}"),
    ]
    for name, secs, what in rows:
        print(f"{name:<27} {secs:7.3f} s  {full_s / secs:7.1f}x faster than full   ({what})")
    print(f"target: one-file re-sync <= 2 s: {'met' if one_s <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
