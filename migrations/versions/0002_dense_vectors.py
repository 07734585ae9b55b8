"""dense vectors per chunk, and the analyzer the index was built with

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("kb_chunks") as batch:
        batch.add_column(sa.Column("embedding", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("embedding_model", sa.String(length=64), nullable=True))
    with op.batch_alter_table("kb_index_state") as batch:
        batch.add_column(sa.Column("analyzer", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("kb_index_state") as batch:
        batch.drop_column("analyzer")
    with op.batch_alter_table("kb_chunks") as batch:
        batch.drop_column("embedding_model")
        batch.drop_column("embedding")
