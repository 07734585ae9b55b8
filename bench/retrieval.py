"""Retrieval and answer figures on nine real public docs sets no one here wrote, and the sample docs.

    python bench/retrieval.py [--cache DIR] [--sets SET ...] [--skip-answers]

The docs sets come from the package registries this machine reaches, pinned:
- Git's HTML manual (Debian's git-doc: 206 long pages), fetched with `apt-get download`;
- npm's own Markdown docs (the docs/content folder of the npm package: 91 pages with front matter),
  fetched with `npm pack`;
- the GIMP 2.10 user manual (Debian's gimp-help-en: 685 HTML pages, a product user guide), fetched with
  `apt-get download`;
- PostgreSQL 15's manual (Debian's postgresql-doc-15: 1,169 DocBook HTML pages, a long reference manual), fetched
  with `apt-get download`;
- BorgBackup's documentation (Debian's borgbackup-doc: 47 Sphinx HTML pages in folders, a product's guide,
  command reference and FAQ), fetched with `apt-get download`;
- GnuCash's help (Debian's gnucash-docs 4.13: its Help Manual and its Tutorial and Concepts Guide, 235 DocBook HTML
  pages in help/ and guide/), a finance program's help centre for people who are not developers, fetched with
  `apt-get download`;
- LibreOffice 7.4's help (Debian's libreoffice-help-en-us: 2,561 HTML pages in text/, an office suite's help
  centre: how-to guides beside a reference of every menu, dialog and function), fetched with `apt-get download`;
- GNU diffutils' manual (Debian's diffutils-doc 3.8: Texinfo's split HTML, 112 files of which 89 only redirect to
  another page's node, a command manual), fetched with `apt-get download`.
The questions of the last five were written after every constant of the search was chosen: nothing was fitted
to them (GnuCash's uncovered questions showed the answerer's test of a word the docs never use, bot.agent.meaning;
LibreOffice's and diffutils' were written before any answer over them was seen).
Questions: bench/realdocs/*.yaml (informal, typos, not the docs' words, some on two pages, 8 or 9 a set that
the docs do not cover; `--questions bench/realdocs/heldout` reads others, written after every constant was chosen).
Each method is scored on one search with the question (page recall@5, MRR), and the shipped method also through
the local answerer: precision (of the answerable questions it answers, the share citing a right page with the key
facts), coverage (the share of answerable questions it answers), abstention (uncovered questions it declines),
questions needing two pages whose answer cites both, answers whose first source (the one read first) is a right page
of those citing one, and pass rate.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.database import open_database
from bot.evaluation import MRR_DEPTH, evaluate, found_pages, load_cases
from bot.logs.store import Origin
from bot.runtime import Runtime
from bot.settings import SAMPLE_DOCS, SAMPLE_EVAL, load_settings
from kb.encode import encode_missing
from kb.encoder import default_encoder
from kb.search import Searcher
from kb.sync import sync

HERE = Path(__file__).resolve().parent
GIT_DOC = "git-doc"
NPM = "npm@11.19.1"
GIMP_HELP = "gimp-help-en"
BORG_DOC = "borgbackup-doc"
POSTGRES_DOC = "postgresql-doc-15"
GNUCASH_DOC = "gnucash-docs"
LIBREOFFICE_HELP = "libreoffice-help-en-us"
DIFFUTILS_DOC = "diffutils-doc"
GNUCASH_MANUALS = {
    "help": "usr/share/doc/gnucash-docs/gnucash-help-en",
    "guide": "usr/share/doc/gnucash-docs/gnucash-guide-en",
}


def fetch_deb_html(cache: Path, name: str, package: str, folder: str | dict[str, str], pages: str = "*.html") -> Path:
    """A Debian package's HTML pages (`apt-get download`, unpacked with dpkg-deb), kept in cache/name.
    folder: where the pages are in the package, or {subfolder of the docs set: where}, for a set made of several
    manuals; pages: which files under it, as a glob ("**/*.html" keeps the site's folders; "_static" is left out)."""
    target = cache / name
    if not target.exists():
        work = Path(tempfile.mkdtemp(dir=cache))
        subprocess.run(["apt-get", "download", package], cwd=work, check=True, capture_output=True)
        deb = next(work.glob(f"{package}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "root")], check=True)
        target.mkdir()
        for into, where in (folder if isinstance(folder, dict) else {"": folder}).items():
            root = work / "root" / where
            for page in root.glob(pages):
                relative = page.relative_to(root)
                if "_static" in relative.parts:
                    continue
                (target / into / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(page.resolve(), target / into / relative)
        shutil.rmtree(work)
    return target


def fetch_npm(cache: Path) -> Path:
    target = cache / "npm"
    if not target.exists():
        work = Path(tempfile.mkdtemp(dir=cache))
        subprocess.run(["npm", "pack", NPM, "--silent"], cwd=work, check=True, capture_output=True)
        with tarfile.open(next(work.glob("npm-*.tgz"))) as tar:
            tar.extractall(work, filter="data")
        shutil.copytree(work / "package/docs/content", target)
        shutil.rmtree(work)
    return target


def is_right(o) -> bool:
    """An answer citing a right page with every key fact (an evaluation Outcome of an answerable question)."""
    cited = o.case.satisfied(s.path for s in o.answer.sources)
    return bool(cited) and all(f.lower() in o.answer.answer.lower() for f in o.case.facts)


def answer_figures(result) -> str:
    """The local answerer's figures: precision, coverage, abstention, pass rate, latency."""
    answered = [o for o in result.answerable if o.answer.status == "answered"]
    right = [o for o in answered if is_right(o)]
    abstain = [o for o in result.outcomes if o.case.must_abstain]
    latency = sorted(o.answer.latency_ms for o in result.outcomes)[len(result.outcomes) // 2]
    cite = [o for o in answered if o.case.satisfied(s.path for s in o.answer.sources)]  # of these, led by a right page:
    led = sum(bool(o.case.satisfied(s.path for s in o.answer.sources[:1])) for o in cite)  # the one read first
    two = [o for o in result.answerable if len(o.case.sources) > 1]  # questions needing two pages (or more)
    both = sum(len(o.case.satisfied(s.path for s in o.answer.sources)) == len(o.case.sources) for o in two)
    return (
        f"precision {len(right)}/{len(answered)} ({len(right) / max(len(answered), 1):.0%}), "
        f"coverage {len(answered)}/{len(result.answerable)} ({len(answered) / len(result.answerable):.0%}), "
        f"abstains {sum(o.passed for o in abstain)}/{len(abstain)}, every page cited {both}/{len(two)}, "
        f"first source right {led}/{len(cite)} of those citing one, "
        f"pass {result.pass_rate:.3f}, p50 {latency:.0f} ms"
    )


def figures(searcher: Searcher, cases, k: int = 5) -> tuple[int, int, float]:
    answerable = [c for c in cases if not c.must_abstain]
    found, rr = 0, 0.0
    for case in answerable:
        ranked = found_pages(searcher.search(case.question, k=MRR_DEPTH, min_score=0))
        found += len(case.satisfied(ranked[:k])) == len(case.sources)
        first = case.first_right(ranked)
        rr += 1 / first if first else 0.0
    return found, len(answerable), rr / len(answerable)


def docs_sets(cache: Path) -> dict[str, Callable[[], Path]]:
    """Each docs set by name, fetched into cache only when it is asked for."""
    return {
        "sample": lambda: SAMPLE_DOCS,
        "git": lambda: fetch_deb_html(cache, "git", GIT_DOC, "usr/share/doc/git/html"),
        "npm": lambda: fetch_npm(cache),
        "gimp": lambda: fetch_deb_html(cache, "gimp", GIMP_HELP, "usr/share/gimp/2.0/help/en"),
        "postgres": lambda: fetch_deb_html(cache, "postgres", POSTGRES_DOC, "usr/share/doc/postgresql-doc-15/html"),
        "borg": lambda: fetch_deb_html(cache, "borg", BORG_DOC, "usr/share/doc/borgbackup/html", "**/*.html"),
        "gnucash": lambda: fetch_deb_html(cache, "gnucash", GNUCASH_DOC, GNUCASH_MANUALS),
        "libreoffice": lambda: fetch_deb_html(
            cache, "libreoffice", LIBREOFFICE_HELP, "usr/share/libreoffice/help/en-US", "**/*.html"
        ),
        "diffutils": lambda: fetch_deb_html(cache, "diffutils", DIFFUTILS_DOC, "usr/share/doc/diffutils"),
    }


def question_file(name: str, questions: Path) -> Path:
    """A set's questions: the sample's own (bot/sample_eval.yaml) with the bench's, else questions/<set>.yaml."""
    return SAMPLE_EVAL if name == "sample" else questions / f"{name}.yaml"


SETS = ("sample", "git", "npm", "gimp", "postgres", "borg", "gnucash", "libreoffice", "diffutils")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "supportbot-realdocs",
        help="Where the fetched docs sets are kept between runs.",
    )
    parser.add_argument("--skip-answers", action="store_true", help="Score retrieval only, not the local answerer.")
    parser.add_argument(
        "--questions",
        type=Path,
        default=HERE / "realdocs",
        help="Where each set's questions are, as <set>.yaml; a set with no file there is skipped. bench/realdocs/heldout "
        "holds questions written after every constant was chosen, to check that the figures hold on questions no change "
        "was measured on.",
    )
    parser.add_argument(
        "--sets",
        nargs="+",
        choices=SETS,
        metavar="SET",
        help=f"Score only these docs sets (default: all of {', '.join(SETS)}); a change to one format's loader is "
        "measured on the sets of that format.",
    )
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    corpora = docs_sets(args.cache)
    own = args.questions == HERE / "realdocs"  # the sample set's questions are its own (bot/sample_eval.yaml)
    names = [n for n in args.sets or list(corpora) if (n == "sample" and own) or (args.questions / f"{n}.yaml").exists()]
    work = Path(tempfile.mkdtemp())
    rows: dict[str, dict[str, str]] = {}
    answers: dict[str, str] = {}
    for name in names:
        docs = corpora[name]()
        cases = load_cases(question_file(name, args.questions))
        started = time.perf_counter()
        stemmed = open_database(f"sqlite:///{work / name}.db")
        report = sync(stemmed, docs)
        synced = time.perf_counter() - started
        encoded = encode_missing(stemmed, default_encoder())
        print(
            f"{name}: {report.chunks} chunks from {len(report.added)} pages, synced with vectors in {synced:.1f} s, "
            f"encoded for re-ranking in {encoded.seconds:.1f} s ({encoded.encoded / encoded.seconds:.0f} chunks/s)",
            flush=True,
        )
        methods = {
            "BM25, page ranking": Searcher(stemmed, embedder=None),
            "hybrid (BM25 + WordLlama), page ranking": Searcher(stemmed),
            "hybrid, re-ranked by MiniLM (shipped)": Searcher(stemmed, encoder=default_encoder()),
        }
        for label, searcher in methods.items():
            searcher.refresh()
            searcher.wait_for_rebuild()  # the re-ranking vectors are read beside the index that already answers
            found, total, mrr = figures(searcher, cases)
            rows.setdefault(label, {})[name] = f"{found}/{total} {mrr:.3f}"
        if not args.skip_answers:
            rt = Runtime(load_settings(database_url=f"sqlite:///{work / name}.db", docs_dir=docs))
            rt.ensure_index(None)
            result = evaluate(cases, lambda q: rt.ask(q, answerer="local", origin=Origin("eval")), k=5)
            answers[name] = answer_figures(result)
    print(f"\npage recall@5 and MRR of one search with the question\n{'method':<42}" + "".join(f"{n:>16}" for n in names))
    for label, by in rows.items():
        print(f"{label:<42}" + "".join(f"{by.get(n, '-'):>16}" for n in names))
    if answers:
        print("\nlocal answerer, shipped search")
        for name, line in answers.items():
            print(f"  {name:<8} {line}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
