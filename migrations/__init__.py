"""The schema's migrations (Alembic)."""

HEAD = "0017"  # the newest revision: checked against Alembic's own reading of versions/ by tests/test_migrations.py
