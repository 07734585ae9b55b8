"""What goes wrong before a command can work is one line naming the setting and the fix, and a non-zero exit."""

import pytest

from tests.conftest import run_cli

SCHEMES = "use sqlite:///path/to/supportbot.db or postgresql+psycopg://user@host:5432/dbname"


def one_line_error(result) -> str:
    assert result.returncode != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


@pytest.mark.parametrize("command", [["logs"], ["gaps"], ["db", "current"], ["logs", "export"]])
def test_a_reading_command_on_a_missing_sqlite_file_says_so_and_creates_nothing(tmp_path, command):
    line = one_line_error(run_cli(*command, cwd=tmp_path, env={"DATABASE_URL": "sqlite:///supportbot.db"}))
    assert f"no database at {tmp_path / 'supportbot.db'}" in line
    assert list(tmp_path.iterdir()) == []


def test_a_url_that_is_not_a_database_url_names_the_schemes_that_work(tmp_path):
    line = one_line_error(run_cli("search", "warranty", "--db", "not a url", cwd=tmp_path))
    assert "DATABASE_URL is not a database URL" in line and SCHEMES in line


def test_an_unsupported_database_names_itself_and_the_schemes_that_work(tmp_path):
    line = one_line_error(run_cli("search", "warranty", "--db", "mysql://root@127.0.0.1/test", cwd=tmp_path))
    assert "DATABASE_URL uses mysql://, which supportbot does not support" in line and SCHEMES in line


def test_an_unreachable_database_is_named_without_its_password(tmp_path):
    url = "postgresql+psycopg://bot:s3cret@127.0.0.1:1/test"  # nothing listens on port 1
    line = one_line_error(run_cli("search", "warranty", "--db", url, cwd=tmp_path))
    assert "cannot reach the database postgresql+psycopg://bot:***@127.0.0.1:1/test" in line
    assert "s3cret" not in line


def test_claude_without_a_key_says_which_setting_is_missing(tmp_path, db_url):
    line = one_line_error(run_cli("ask", "refunds?", "--answerer", "claude", "--db", db_url, cwd=tmp_path))
    assert "ANTHROPIC_API_KEY" in line


def test_a_setting_out_of_range_is_named(tmp_path):
    line = one_line_error(run_cli("logs", cwd=tmp_path, env={"SLACK_WORKERS": "0"}))
    assert line.startswith("Error: SLACK_WORKERS:") and "greater than or equal to 1" in line


def test_every_option_of_every_command_says_what_it_does():
    import click

    from bot.cli import main

    def options(cmd, path):
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                yield from options(sub, [*path, name])
        for p in cmd.params:
            if isinstance(p, click.Option):
                yield " ".join(path), p

    silent = [f"{where} {p.opts[0]}" for where, p in options(main, ["supportbot"]) if not p.help]
    assert silent == []
