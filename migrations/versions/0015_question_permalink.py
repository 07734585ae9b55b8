"""a Slack question keeps the link to its thread, so a reviewer can read the conversation around it

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.add_column(sa.Column("permalink", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.drop_column("permalink")
