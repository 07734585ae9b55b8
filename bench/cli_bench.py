"""How long a command takes to start, against `python -c "import click, sqlalchemy"` timed in the same run.

    python bench/cli_bench.py            # 15 runs of each, medians
    python bench/cli_bench.py --runs 30

Targets (issue "Run it in production"): `supportbot --help` <= 1.5x the baseline; `logs` and `gaps` on a
small database <= 2x. The commands run as a user runs them (a new process each time), alternated with the
baseline so that a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASELINE = [sys.executable, "-c", "import click, sqlalchemy"]


def seconds(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command (medians are reported).")
    args = parser.parse_args()
    db = f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    cli = [sys.executable, "-m", "bot.cli"]
    subprocess.run([*cli, "ask", "how long is the warranty?", "--db", db], cwd=REPO, capture_output=True, check=True)
    commands = {
        "supportbot --help": ([*cli, "--help"], 1.5),
        "supportbot logs": ([*cli, "logs", "--db", db], 2.0),
        "supportbot gaps": ([*cli, "gaps", "--db", db], 2.0),
    }
    base, times = [], {name: [] for name in commands}
    for _ in range(args.runs):
        for name, (cmd, _) in commands.items():
            base.append(seconds(BASELINE))
            times[name].append(seconds(cmd))
    b = statistics.median(base)
    print(f"baseline (import click, sqlalchemy): {b * 1000:.0f} ms")
    for name, (_, target) in commands.items():
        t = statistics.median(times[name])
        verdict = "ok" if t / b <= target else "OVER"
        print(f"{name:<20} {t * 1000:6.0f} ms  {t / b:4.2f}x  (target <= {target}x: {verdict})")


if __name__ == "__main__":
    main()
