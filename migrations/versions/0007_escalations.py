"""a question handed to a person ("Ask a person") records when and by whom, once

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.add_column(sa.Column("escalated_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("escalated_by", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.drop_column("escalated_by")
        batch.drop_column("escalated_at")
