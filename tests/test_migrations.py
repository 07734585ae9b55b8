"""The schema comes from migrations only, and every command brings an empty database up by itself."""

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from bot.database import current_revision, head_revision
from kb.database import create_db_engine
from migrations.metadata import target_metadata
from tests.conftest import run_cli

pytestmark = pytest.mark.empty_database  # each test starts from nothing, as a new deployment does


def test_migrated_schema_matches_the_models(engine):
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), target_metadata)
    assert diff == []


def test_an_empty_database_is_upgraded_by_any_command(db_url, docs):
    assert current_revision(create_db_engine(db_url)) is None
    result = run_cli("search", "warranty", "--db", db_url, "--docs", str(docs))
    assert result.returncode == 0, result.stderr
    assert current_revision(create_db_engine(db_url)) == head_revision()


def test_db_upgrade_is_idempotent(db_url):
    first = run_cli("db", "upgrade", "--db", db_url)
    second = run_cli("db", "upgrade", "--db", db_url)
    assert first.returncode == 0 and "empty ->" in first.stdout
    assert second.returncode == 0 and "already at" in second.stdout
    assert "kb_chunks" in inspect(create_db_engine(db_url)).get_table_names()


def test_the_head_revision_the_code_expects_is_alembics_newest():
    from alembic.script import ScriptDirectory

    from bot.database import alembic_config

    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_the_stamped_revision_is_read_as_alembic_reads_it(engine):
    with engine.connect() as conn:
        assert current_revision(engine) == MigrationContext.configure(conn).get_current_revision() == head_revision()
