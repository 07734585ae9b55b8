"""a Slack question records who could see it where it was asked (public or private) and its own message

Suggested prompts are built only from questions asked in public channels that started a thread, so a DM, a
private channel, /ask or a thread follow-up never reaches another person's prompts.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.add_column(sa.Column("visibility", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("message_ts", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.drop_column("message_ts")
        batch.drop_column("visibility")
