"""Whether the sentence encoder gives the same vectors on another CPU: this one's, then an emulated one's, same run.

    python bench/encoder_cpus.py [--set diffutils] [--cpu Haswell] [--limit N] [--cache DIR]

onnxruntime picks its int8 kernels by the CPU's instruction set (VNNI or not, AVX-512 or AVX2), and a vector that
differs from one machine to another moves the answers (docs/search.md, "Why machines differed"). This syncs one docs
set of bench/retrieval.py and fills in the encoder's vectors as a deployment does (kb.encode.encode_missing), here
and then under `qemu-x86_64 -cpu CPU` (Debian's qemu-user), and prints how many vectors came out the same, their
cosine, and how far the pairwise cosines the search ranks by moved. The emulator is about a hundred times slower
than the machine: diffutils' 241 chunks take about ten minutes.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.retrieval import docs_sets
from bot.database import open_database
from kb.embedding import unpack_many
from kb.encode import encode_missing
from kb.encoder import default_encoder
from kb.models import encodings
from kb.sync import sync

QEMU = "qemu-x86_64"


def encode(db: Path, limit: int | None) -> None:
    """Fill in the encoder's vectors of the database's chunks (the first `limit` of them, if given: a pass with no
    time left still writes its first batch)."""
    engine = open_database(f"sqlite:///{db}")
    encode_missing(engine, default_encoder(), batch=limit or 256, seconds=0 if limit else None)
    engine.dispose()


def vectors(db: Path) -> dict[int, np.ndarray]:
    """Each chunk's stored vector as a unit vector, as search reads it (kb.embedding.unpack_many)."""
    engine = open_database(f"sqlite:///{db}")
    with engine.connect() as conn:
        rows = conn.execute(select(encodings.c.chunk_id, encodings.c.vector)).all()
    units = unpack_many([bytes(r.vector) for r in rows], default_encoder().dim)
    return {r.chunk_id: unit for r, unit in zip(rows, units)}


def compare(here: dict[int, np.ndarray], there: dict[int, np.ndarray]) -> str:
    ids = sorted(set(here) & set(there))
    a = np.stack([here[i] for i in ids])
    b = np.stack([there[i] for i in ids])
    same = int((np.abs(a - b).max(axis=1) == 0).sum())
    cosine = (a * b).sum(axis=1)
    upper = np.triu_indices(len(ids), 1)
    moved = np.abs(a @ a.T - b @ b.T)[upper]
    return (
        f"{len(ids)} chunks: {same} with the very same vector; cosine, emulated to here, mean {cosine.mean():.4f} "
        f"(min {cosine.min():.4f}); pairwise cosines moved by {moved.mean():.4f} on average, "
        f"{np.percentile(moved, 99):.4f} at the 99th percentile, {moved.max():.4f} at most"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="diffutils", help="Which docs set of bench/retrieval.py (default: diffutils).")
    ap.add_argument("--cpu", default="Haswell", help="The CPU QEMU emulates (default: Haswell, AVX2 with no VNNI).")
    ap.add_argument("--limit", type=int, help="Encode only the first N chunks (the emulator is slow).")
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "supportbot-realdocs",
        help="Where the fetched docs sets are kept (bench/retrieval.py's --cache).",
    )
    ap.add_argument("--encode-only", type=Path, help=argparse.SUPPRESS)  # the child's job, run under the emulator
    args = ap.parse_args()
    if args.encode_only:
        encode(args.encode_only, args.limit)
        return
    if shutil.which(QEMU) is None:
        raise SystemExit(f"{QEMU} is not installed: apt-get install qemu-user")
    work = Path(tempfile.mkdtemp())
    here, there = work / "here.db", work / "emulated.db"
    engine = open_database(f"sqlite:///{here}")
    sync(engine, docs_sets(args.cache)[args.set]())
    engine.dispose()  # the last connection closed checkpoints SQLite's write-ahead log into the file copied
    shutil.copy(here, there)
    encode(here, args.limit)
    limit = ["--limit", str(args.limit)] if args.limit else []
    subprocess.run(
        [QEMU, "-cpu", args.cpu, sys.executable, __file__, "--encode-only", str(there), *limit],
        check=True,
        stderr=subprocess.DEVNULL,  # QEMU warns of every CPU feature it cannot emulate
    )
    print(f"{default_encoder().name}, {args.set}, here against -cpu {args.cpu}: {compare(vectors(here), vectors(there))}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
