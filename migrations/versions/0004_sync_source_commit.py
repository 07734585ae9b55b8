"""a sync run records the git commit its docs came from (DOCS_GIT_URL)

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("kb_sync_runs") as batch:
        batch.add_column(sa.Column("source_commit", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("kb_sync_runs") as batch:
        batch.drop_column("source_commit")
