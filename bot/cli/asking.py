"""Asking commands: ask one question, or score a question set."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from bot.agent.types import Answer
from bot.cli.index import print_sync_report
from bot.cli.options import (
    answerer_option,
    clear_errors,
    db_option,
    docs_option,
    json_option,
    needs_key,
    runtime_for,
    share_option,
)
from bot.logs.store import Origin


def print_answer(a: Answer, trace: bool) -> None:
    if trace:
        for step in a.steps:
            if step.thought:
                click.echo(f"Thought: {step.thought}")
            click.echo(f"Action: {step.tool} {json.dumps(step.input)}")
            click.echo(f"Observation: {step.observation}")
        click.echo()
    click.echo(a.answer)
    if a.sources:
        click.echo("\nSources:")
        for src in a.sources:
            click.echo(f"  [{src.n}] {src.title} - {src.url or src.path}")
    if a.closest:
        click.echo("\nClosest pages to look at:")
        for src in a.closest:
            click.echo(f"  - {src.title} - {src.url or src.path}")
    if a.problems and trace:
        click.echo("\nProblems:")
        for p in a.problems:
            click.echo(f"  - {json.dumps(p.as_dict())}")
    label = a.answerer + (f" ({a.model})" if a.model else "")
    click.echo(f"\n[{a.status}, {label}, {a.latency_ms:.0f} ms]", err=True)


@click.command("ask")
@click.argument("question")
@docs_option
@db_option
@answerer_option
@click.option("--collection", "collection", metavar="NAME", help="Answer from one collection only.")
@click.option("--trace", is_flag=True, help="Show each step as Thought / Action / Observation.")
@json_option
def ask_cmd(question, docs, db, answerer, collection, trace, as_json) -> None:
    """Answer a question from the docs, with numbered sources."""
    with clear_errors():
        rt = runtime_for(db, docs)
        needs_key(rt, answerer)
        rt.ensure_index(docs, announce=None if as_json else lambda r: print_sync_report(r, err=True))
        a = rt.ask(question, answerer=answerer, collections=[collection] if collection else None, origin=Origin("cli"))
    if as_json:
        click.echo(json.dumps(a.as_dict(), indent=2))
    else:
        print_answer(a, trace)
    if a.status == "error":
        sys.exit(1)


@click.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@docs_option
@db_option
@answerer_option
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 50), help="Recall counts the top k hits.")
@share_option("--min-recall", "Fail (exit 2) below this recall@k of the answerer's searches.")
@share_option("--min-page-recall", "Fail below this page recall@k of one search with the question.")
@share_option("--min-mrr", "Fail below this MRR of the first right page.")
@share_option("--min-pass-rate", "Fail below this share of answerable questions answered right.")
@share_option("--min-abstention", "Fail below this share of uncovered questions abstained on.")
@click.option("--max-citation-problems", type=click.IntRange(0), default=None, help="Fail above this many citation problems.")
@json_option
def eval_cmd(
    file,
    docs,
    db,
    answerer,
    k,
    min_recall,
    min_page_recall,
    min_mrr,
    min_pass_rate,
    min_abstention,
    max_citation_problems,
    as_json,
):
    """Run a question set and score retrieval, answers, abstentions and citations."""
    from bot.evaluation import MRR_DEPTH, evaluate, found_pages, load_cases

    with clear_errors():
        cases = load_cases(file)
        rt = runtime_for(db, docs)
        needs_key(rt, answerer)
        rt.ensure_index(docs, announce=None if as_json else lambda r: print_sync_report(r, err=True))
        report = evaluate(
            cases,
            lambda q: rt.ask(q, answerer=answerer, origin=Origin("eval")),
            k=k,
            rank_pages=lambda q: found_pages(rt.searcher.search(q, k=MRR_DEPTH, min_score=0)),
        )
    summary = report.summary()
    if as_json:
        click.echo(
            json.dumps(
                {
                    "summary": summary,
                    "questions": [
                        {
                            "question": o.case.question,
                            "passed": o.passed,
                            "why": o.why,
                            "status": o.answer.status,
                            "found": [list(g) for g in o.found],
                            "page_rank": o.page_rank,
                        }
                        for o in report.outcomes
                    ],
                },
                indent=2,
            )
        )
    else:
        for o in report.outcomes:
            click.echo(f"{'PASS' if o.passed else 'FAIL'}  {o.case.question[:70]:<70}  {o.why}")
        click.echo()
        for key, value in summary.items():
            click.echo(f"{key:<22} {value}")
    failed = []
    if report.recall < min_recall:
        failed.append(f"recall@{k} {report.recall:.3f} < {min_recall}")
    if report.page_recall < min_page_recall:
        failed.append(f"page recall@{k} {report.page_recall:.3f} < {min_page_recall}")
    if report.mrr < min_mrr:
        failed.append(f"MRR {report.mrr:.3f} < {min_mrr}")
    if report.pass_rate < min_pass_rate:
        failed.append(f"answer pass rate {report.pass_rate:.3f} < {min_pass_rate}")
    if report.abstention_accuracy < min_abstention:
        failed.append(f"abstention accuracy {report.abstention_accuracy:.3f} < {min_abstention}")
    if max_citation_problems is not None and report.citation_problems > max_citation_problems:
        failed.append(f"citation problems {report.citation_problems} > {max_citation_problems}")
    if failed:
        click.echo("Below threshold: " + "; ".join(failed), err=True)
        sys.exit(2)
