"""Indexing commands: sync, encode, search."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from bot.cli.options import clear_errors, db_option, docs_option, json_option, runtime_for

if TYPE_CHECKING:
    from kb.encode import EncodeReport
    from kb.sync_runs import SyncReport


PROGRESS_EVERY_S = 10.0  # off a terminal, how often a long sync says how far it is


def progress_bar(label: str = "Indexing", unit: str = "documents", every_s: float = PROGRESS_EVERY_S):
    """A progress callback for syncs: a bar on a terminal; elsewhere (a log file, a container, `serve`'s sync
    child) a line when the work starts, then one every every_s, so a long first sync is never silent."""
    state: dict = {}
    if not sys.stderr.isatty():

        def line(done: int, total: int) -> None:
            if "said" not in state or done == total or time.monotonic() - state["said"] >= every_s:
                state["said"] = time.monotonic()
                click.echo(f"{label}: {done:,} of {total:,} {unit}", err=True)

        return line, lambda: None

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr)
            state["bar"].__enter__()
            state["bar"].update(done - 1)
        state["bar"].update(done - state["bar"].pos)

    def close() -> None:
        if "bar" in state:
            state["bar"].__exit__(None, None, None)

    return update, close


def print_sync_report(report: SyncReport, err: bool = False) -> None:
    echo = lambda s="": click.echo(s, err=err)
    echo(
        f"Synced {report.docs_dir} in {report.seconds:.2f} s: {len(report.added)} added, {len(report.changed)} changed, "
        f"{len(report.removed)} removed, {report.unchanged} unchanged, {report.skipped} skipped. "
        f"Index version {report.index_version}, {report.chunks} chunks."
        + (f" {report.embedded} chunks re-embedded for the current model." if report.embedded else "")
        + (f" {report.vectors_kept:,} re-ranking vectors kept for passages that read as before." if report.vectors_kept else "")
        + (f" Docs at git commit {report.source_commit[:12]}." if report.source_commit else "")
        + (
            f" {report.stale_answers} logged answer(s) cite lines that changed: `supportbot logs --stale`."
            if report.stale_answers
            else ""
        )
    )
    if report.encoding is not None:
        echo(encoding_line(report.encoding))
    if report.new_problems:
        echo("Problems:")
        for p in report.new_problems:
            echo(f"  {p.action:<21} {p.path}: {p.reason}")
    known = len(report.problems) - len(report.new_problems)
    if known:
        echo(f"{known} known problem(s), the same as at the last sync (--json lists them all).")


def encoding_line(e: EncodeReport) -> str:
    state = "all passages" if not e.left else f"{e.done:,} of {e.total:,} passages ({e.left:,} left for the next pass)"
    return f"Re-ranking vectors: {state}; {e.encoded:,} encoded in {e.seconds:.1f} s."


@click.command("sync")
@docs_option
@db_option
@json_option
@click.option("--no-encode", "no_encode", is_flag=True, help="Index only; leave the re-ranking vectors to `supportbot encode`.")
@click.option(
    "--progress-every",
    "every_s",
    type=click.FloatRange(min=0.1),
    default=PROGRESS_EVERY_S,
    show_default=True,
    help="Off a terminal, seconds between progress lines on stderr (with --json too: `serve` reads them).",
)
def sync_cmd(docs: Path | None, db: str | None, as_json: bool, no_encode: bool, every_s: float) -> None:
    """Index the docs folder incrementally (only changed documents are re-read), then compute the re-ranking
    vectors it lacks (the index serves without them meanwhile)."""
    with clear_errors():
        rt = runtime_for(db, docs)
        update, close = progress_bar(every_s=every_s) if not as_json or not sys.stderr.isatty() else (None, lambda: None)
        try:
            report = rt.sync(docs, progress=update, encode=False)
        finally:
            close()
        if not no_encode:
            update, close = progress_bar("Encoding", "passages") if not as_json else (None, lambda: None)
            try:
                report.encoding = rt.encode(progress=update)
            finally:
                close()
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
    else:
        print_sync_report(report)


@click.command("encode")
@db_option
@json_option
@click.option("--seconds", type=click.FloatRange(min=1), default=None, help="Stop after about this long; the next run goes on.")
def encode_cmd(db: str | None, as_json: bool, seconds: float | None) -> None:
    """Compute the sentence encoder's vectors the index lacks, which re-rank the top pages (SEARCH_MODE=rerank).
    `sync` does it after indexing; `serve` runs it in a child process after each scheduled sync."""
    with clear_errors():
        rt = runtime_for(db)
        update, close = progress_bar("Encoding", "passages") if not as_json else (None, lambda: None)
        try:
            report = rt.encode(seconds, progress=update)
        finally:
            close()
    if as_json:
        click.echo(json.dumps(report.as_dict() if report else None))
    elif report is None:
        click.echo("No re-ranking here: SEARCH_MODE is not rerank, or the encoder could not load.")
    else:
        click.echo(encoding_line(report))


@click.command("search")
@click.argument("query")
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 100), help="How many hits.")
@click.option("--collection", "collection", metavar="NAME", help="Search one collection only.")
@docs_option
@db_option
@json_option
def search_cmd(query: str, k: int, collection: str | None, docs: Path | None, db: str | None, as_json: bool) -> None:
    """Search the index with BM25 and show the best passages."""
    with clear_errors():
        rt = runtime_for(db, docs)
        rt.ensure_index(docs, announce=None if as_json else lambda r: print_sync_report(r, err=True))
        hits = rt.searcher.search(query, k=k, collections=[collection] if collection else None)
    if as_json:
        click.echo(json.dumps({"query": query, "hits": [h.as_dict() for h in hits]}, indent=2))
        return
    if not hits:
        click.echo(f"No passage scores above the evidence threshold for {query!r}. Try the docs' own words.")
        return
    for n, h in enumerate(hits, 1):
        click.echo(f"{n}. {h.heading}  ({h.path}, {h.collection})  score {h.score:.2f}")
        if h.url:
            click.echo(f"   {h.url}")
        snippet = " ".join(h.text.split())
        click.echo(f"   {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
