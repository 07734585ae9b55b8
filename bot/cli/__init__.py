"""The `supportbot` command line: every command registered here, each group in its own module."""

from __future__ import annotations

import click

from bot.cli.answers import answers_group
from bot.cli.asking import ask_cmd, eval_cmd
from bot.cli.database import db_group
from bot.cli.index import encode_cmd, search_cmd, sync_cmd
from bot.cli.logs import digest_cmd, gaps_cmd, logs_group
from bot.cli.serving import review_cmd, serve_cmd


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """supportbot: answers your team's questions from your own docs, with sources."""


for command in (
    sync_cmd,
    encode_cmd,
    search_cmd,
    ask_cmd,
    eval_cmd,
    serve_cmd,
    logs_group,
    gaps_cmd,
    digest_cmd,
    review_cmd,
    answers_group,
    db_group,
):
    main.add_command(command)
