"""Every question's local answer, kept, and two runs compared answer by answer.

    python bench/answers.py run OUT.jsonl [--sets SET ...] [--questions DIR ...] [--cache DIR]
    python bench/answers.py diff BEFORE.jsonl AFTER.jsonl

bench/retrieval.py prints each set's totals; a change to the answerer is judged by which answers it changed, and
how. `run` asks the local answerer every question of the docs sets of bench/retrieval.py (the bench's own and the
held-out ones by default) and writes one JSON line each: the answer, its sources, whether it is right (a right page
cited with every key fact) and the first search's pages with their ranks, strength and cosine. The indexes are kept
in the cache beside the fetched docs, so a second run only asks (about a minute for all nine sets). `diff` prints
each set's figures before and after and every answer whose status or rightness changed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.retrieval import HERE, SETS, docs_sets, is_right, question_file
from bot.database import open_database
from bot.evaluation import judge, load_cases
from bot.logs.store import Origin
from bot.runtime import Runtime
from bot.settings import load_settings
from kb.encode import encode_missing
from kb.encoder import default_encoder
from kb.sync import sync

FIRST_HITS = 8  # the first search's hits kept per answer


def run(out: Path, sets: list[str], questions: list[Path], cache: Path) -> None:
    corpora = docs_sets(cache)
    with out.open("w") as sink:
        for name in sets:
            own = [q for q in questions if name != "sample" or q == HERE / "realdocs"]  # the sample's are its own
            files = [(q.name, f) for q in own if (f := question_file(name, q)).exists()]
            if not files:
                continue
            docs = corpora[name]()
            url = f"sqlite:///{cache / name}.db"  # kept: a second run syncs nothing and encodes nothing
            engine = open_database(url)
            sync(engine, docs)
            encode_missing(engine, default_encoder())
            rt = Runtime(load_settings(database_url=url, docs_dir=docs))
            rt.ensure_index(None)
            for kind, path in files:
                for case in load_cases(path):
                    answer = rt.ask(case.question, answerer="local", origin=Origin("eval"))
                    outcome = judge(case, answer, 5)
                    first = answer.searches[0].hits[:FIRST_HITS] if answer.searches else []
                    row = {
                        "set": name,
                        "questions": kind,
                        "question": case.question,
                        "uncovered": case.must_abstain,
                        "status": answer.status,
                        "right": not case.must_abstain and answer.status == "answered" and is_right(outcome),
                        "answer": answer.answer,
                        "sources": [s.path for s in answer.sources],
                        "closest": [s.path for s in answer.closest],  # the pages offered with an abstention
                        "note": next((p.detail.get("note") for p in answer.problems if p.kind == "abstained"), None),
                        "first_search": [h.as_dict() for h in first],
                    }
                    sink.write(json.dumps(row) + "\n")
            print(f"{name}: asked", flush=True)


def figures(rows: list[dict]) -> str:
    answerable = [r for r in rows if not r["uncovered"]]
    answered = [r for r in answerable if r["status"] == "answered"]
    uncovered = [r for r in rows if r["uncovered"]]
    declined = sum(r["status"] != "answered" for r in uncovered)
    right = sum(r["right"] for r in answered)
    lengths = [len(r["answer"]) for r in rows if r["status"] == "answered"]
    return (
        f"right {right}/{len(answered)} ({right / max(len(answered), 1):.0%}), answered {len(answered)}/{len(answerable)}, "
        f"declined {declined}/{len(uncovered)}, median answer {statistics.median(lengths) if lengths else 0:.0f} chars"
    )


def diff(before: Path, after: Path) -> None:
    def load(path: Path) -> dict[tuple[str, str, str], dict]:
        return {(r["questions"], r["set"], r["question"]): r for r in map(json.loads, path.open())}

    a, b = load(before), load(after)
    keys = [k for k in a if k in b]
    for group in dict.fromkeys(k[:2] for k in keys):
        ks = [k for k in keys if k[:2] == group]
        print(f"{group[0]:<10} {group[1]:<12} {figures([a[k] for k in ks])}\n{'':<23} {figures([b[k] for k in ks])}")
    changed = [k for k in keys if a[k]["answer"] != b[k]["answer"]]
    print(f"\n{len(changed)} of {len(keys)} answers changed; those whose status or rightness changed:")
    for k in changed:
        x, y = a[k], b[k]
        if (x["status"], x["right"]) != (y["status"], y["right"]):
            print(f"  {k[1]}: {k[2]}  {x['status']}{' right' * x['right']} -> {y['status']}{' right' * y['right']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    asking = verbs.add_parser("run", help="Ask every question and write one JSON line per answer.")
    asking.add_argument("out", type=Path, help="The JSONL file to write.")
    asking.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS), metavar="SET", help="The docs sets to ask.")
    asking.add_argument(
        "--questions",
        nargs="+",
        type=Path,
        default=[HERE / "realdocs", HERE / "realdocs" / "heldout"],
        help="Folders of <set>.yaml question files (default: the bench's own and the held-out ones).",
    )
    asking.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "supportbot-realdocs",
        help="Where the fetched docs sets and their indexes are kept between runs (bench/retrieval.py's cache).",
    )
    comparing = verbs.add_parser("diff", help="Compare two runs answer by answer.")
    comparing.add_argument("before", type=Path, help="The run before the change.")
    comparing.add_argument("after", type=Path, help="The run after it.")
    args = parser.parse_args()
    if args.verb == "run":
        args.cache.mkdir(parents=True, exist_ok=True)
        run(args.out, args.sets, args.questions, args.cache)
    else:
        diff(args.before, args.after)


if __name__ == "__main__":
    main()
