"""Every way `serve`, `review` and `sync` can fail to start is one line naming the cause and the fix, a non-zero
exit and no traceback, before anything has started: an operator reads the cause, not a library's stack."""

import socket

import pytest
from sqlalchemy import create_engine, func, select

from kb.models import sync_runs
from tests.conftest import run_cli
from tests.test_cli_errors import one_line_error
from tests.test_git_docs import git


@pytest.fixture
def taken_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def sync_count(db_url) -> int:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(sync_runs)).scalar()
    finally:
        engine.dispose()


def test_serve_on_a_port_in_use_says_so_and_starts_no_sync(bot_env, db_url, taken_port):
    syncs = sync_count(db_url)
    line = one_line_error(run_cli("serve", "--http", "--host", "127.0.0.1", "--port", str(taken_port), env=bot_env))
    assert f"port {taken_port} on 127.0.0.1 is in use by another program" in line and "--port" in line
    assert sync_count(db_url) == syncs


def test_the_review_page_on_a_port_in_use_says_so_without_printing_its_address(bot_env, taken_port):
    line = one_line_error(run_cli("review", "--host", "127.0.0.1", "--port", str(taken_port), env=bot_env))
    assert f"port {taken_port} on 127.0.0.1 is in use" in line


def test_the_review_page_beyond_loopback_without_a_token_refuses_before_printing_its_address(bot_env):
    line = one_line_error(run_cli("review", "--host", "0.0.0.0", env=bot_env))
    assert "set REVIEW_TOKEN" in line


def test_an_app_level_token_slack_refuses_names_the_setting_and_where_to_make_one(fake_slack, bot_env):
    # the fake answers apps.connections.open with not_allowed_token_type while it has no Socket Mode endpoint
    line = one_line_error(run_cli("serve", env=bot_env | {"SLACK_APP_TOKEN": "xapp-1-refused"}, timeout=60))
    assert "Slack refused the app-level token (SLACK_APP_TOKEN): not_allowed_token_type" in line
    assert "App-Level Tokens" in line and "xapp-1-refused" not in line


def test_slack_unreachable_at_start_is_one_line_without_the_sdks_retry_noise(bot_env):
    env = bot_env | {"SLACK_API_URL": "http://127.0.0.1:1/api/", "SLACK_START_ATTEMPTS": "1"}
    line = one_line_error(run_cli("serve", "--http", env=env, timeout=60))
    assert (
        line == "Error: cannot reach Slack at http://127.0.0.1:1/api/ after 1 attempts (SLACK_START_ATTEMPTS): connection refused"
    )


def test_a_missing_channels_file_is_reported_before_slack_is_contacted(fake_slack, bot_env, tmp_path):
    missing = tmp_path / "channels.yaml"
    line = one_line_error(run_cli("serve", "--http", env=bot_env | {"SLACK_CHANNELS_FILE": str(missing)}))
    assert f"SLACK_CHANNELS_FILE {missing}" in line
    assert fake_slack.calls == []


def test_a_docs_repository_that_is_not_there_is_named_as_the_reason(db_url, tmp_path):
    env = {"DATABASE_URL": db_url, "DOCS_GIT_URL": (tmp_path / "nowhere.git").as_uri(), "DOCS_GIT_CHECKOUT": str(tmp_path / "co")}
    line = one_line_error(run_cli("sync", env=env))
    assert "no repository at that address (or no access to it): check DOCS_GIT_URL" in line


def test_a_branch_the_docs_repository_lacks_is_named_as_the_reason(db_url, tmp_path):
    bare = tmp_path / "docs.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare), cwd=tmp_path)
    env = {
        "DATABASE_URL": db_url,
        "DOCS_GIT_URL": bare.as_uri(),
        "DOCS_GIT_BRANCH": "mian",
        "DOCS_GIT_CHECKOUT": str(tmp_path / "co"),
    }
    line = one_line_error(run_cli("sync", env=env))
    assert "the branch is not in the repository: check DOCS_GIT_BRANCH" in line
