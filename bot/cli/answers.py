"""Team answers: what people answered in hand-overs, for a docs owner to publish as knowledge or dismiss."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bot.cli.options import clear_errors, db_option, json_option, runtime_for


@click.group("answers", invoke_without_command=True)
@click.option("--state", type=click.Choice(["candidate", "published", "dismissed"]), help="Only answers in this state.")
@db_option
@json_option
@click.pass_context
def answers_group(ctx, state: str | None, db: str | None, as_json: bool) -> None:
    """List team answers, newest first (subcommands: show, publish, dismiss, export). Each reply a person gives in
    a hand-over thread is a candidate; a published one is indexed by the next sync as the collection team-answers."""
    ctx.obj = {"db": db}
    if ctx.invoked_subcommand is not None:
        return
    from bot.logs.team_answers import list_answers
    from kb.clock import now

    with clear_errors():
        found = list_answers(runtime_for(db, reads_only=True).engine, state)
    if as_json:
        click.echo(json.dumps([a.as_dict() for a in found], indent=2))
        return
    if not found:
        click.echo('No team answers yet: they come from replies in hand-over threads ("Ask a person").')
        return
    at = now()
    for a in found:
        flag = "due" if a.due(at) else a.state
        question = " ".join(a.question.split())[:60]
        click.echo(
            f"{a.id:>5}  {a.answered_at:%Y-%m-%d}  {flag:<10} {a.answered_by_name or a.answered_by or '?':<16.16} {question}"
        )


@answers_group.command("show")
@click.argument("answer_id", type=int)
@db_option
@click.pass_context
def answers_show(ctx, answer_id: int, db: str | None) -> None:
    """One team answer: the question, what the person wrote, and the page it is (or would be) published as."""
    from bot.logs.team_answers import team_answer
    from kb.clock import now

    with clear_errors():
        a = team_answer(runtime_for(db or ctx.obj.get("db"), reads_only=True).engine, answer_id)
    click.echo(f"#{a.id} {a.state}, {a.label}" + (f", review by {a.review_by:%Y-%m-%d}" if a.review_by else ""))
    if a.permalink:
        click.echo(a.permalink)
    click.echo(f"\nQuestion: {a.question}\n\nReply:\n{a.reply}\n\nAs a page:\n{a.page(now())}")


@answers_group.command("publish")
@click.argument("answer_id", type=int)
@click.option(
    "--text", "text_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Publish this file's text instead."
)
@db_option
@click.pass_context
def answers_publish(ctx, answer_id: int, text_file: Path | None, db: str | None) -> None:
    """Publish a team answer (again, to edit it): the next sync indexes it, and its question leaves the gaps."""
    from bot.logs.team_answers import publish

    with clear_errors():
        rt = runtime_for(db or ctx.obj.get("db"), reads_only=True)
        text = text_file.read_text(encoding="utf-8") if text_file else None
        a = publish(rt.engine, answer_id, rt.settings.team_answer_days, text)
    click.echo(f"Published #{a.id} as {a.path}, review by {a.review_by:%Y-%m-%d}; the next sync indexes it.")


@answers_group.command("dismiss")
@click.argument("answer_id", type=int)
@db_option
@click.pass_context
def answers_dismiss(ctx, answer_id: int, db: str | None) -> None:
    """Dismiss a team answer: it is not knowledge (a published one leaves the index at the next sync)."""
    from bot.logs.team_answers import dismiss

    with clear_errors():
        a = dismiss(runtime_for(db or ctx.obj.get("db"), reads_only=True).engine, answer_id)
    click.echo(f"Dismissed #{a.id}.")


@answers_group.command("export")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@db_option
@click.pass_context
def answers_export(ctx, folder: Path, db: str | None) -> None:
    """Write each published team answer as a Markdown page into FOLDER, for moving into the real docs."""
    from bot.logs.team_answers import file_name, list_answers
    from kb.clock import now

    with clear_errors():
        found = list_answers(runtime_for(db or ctx.obj.get("db"), reads_only=True).engine, "published")
    folder.mkdir(parents=True, exist_ok=True)
    at = now()
    for a in found:
        (folder / file_name(a)).write_text(a.page(at), encoding="utf-8")
    click.echo(f"Wrote {len(found)} page{'s' if len(found) != 1 else ''} to {folder}.")
