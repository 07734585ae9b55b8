"""Shared fixtures: a fresh database (SQLite, or PostgreSQL when DATABASE_URL says so) and a docs folder.

The suite runs against whatever DATABASE_URL names: unset or SQLite, each test gets
its own SQLite file; a PostgreSQL URL gives each test a fresh schema in that database.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bot.database import open_database
from bot.settings import SAMPLE_DOCS

REPO = Path(__file__).resolve().parent.parent
TARGET_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = TARGET_URL.startswith("postgresql")


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch, tmp_path):
    """No setting leaks in from the developer's shell or .env."""
    for name in list(os.environ):
        if name.startswith(("DOCS_", "SLACK_", "ANTHROPIC_", "AGENT_", "SEARCH_", "SYNC_")) or name == "DATABASE_URL":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # so a stray .env in the repo is not read


@pytest.fixture
def db_url(tmp_path) -> str:
    if not ON_POSTGRES:
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(TARGET_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(TARGET_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture
def engine(db_url):
    engine = open_database(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def docs(tmp_path) -> Path:
    """A private copy of the sample docs, free to change."""
    target = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, target)
    return target


def run_cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`supportbot ARGS` as a real process, the way a user or cron runs it."""
    full_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, env=full_env, timeout=timeout
    )


@pytest.fixture
def fake_anthropic():
    from tests.fakes.anthropic import FakeAnthropic

    fake = FakeAnthropic().start()
    yield fake
    fake.stop()


@pytest.fixture
def claude_settings(fake_anthropic, db_url, docs):
    """Settings that send the real anthropic SDK to the fake API."""
    from bot.settings import load_settings

    return load_settings(
        database_url=db_url,
        docs_dir=docs,
        anthropic_api_key="sk-ant-test-key",
        anthropic_base_url=fake_anthropic.url,
        anthropic_max_retries=0,
        anthropic_timeout_s=10,
    )


@pytest.fixture
def runtime(claude_settings):
    from bot.runtime import Runtime

    rt = Runtime(claude_settings)
    rt.sync()
    return rt
