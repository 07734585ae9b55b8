"""a Slack claim keeps what answering needs, its owner and a lease, so another process can finish it

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("slack_claims") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=120), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("job", sa.JSON(), nullable=True))
        batch.create_index("ix_slack_claims_open", ["answered_at", "lease_until"])


def downgrade() -> None:
    with op.batch_alter_table("slack_claims") as batch:
        batch.drop_index("ix_slack_claims_open")
        batch.drop_column("job")
        batch.drop_column("lease_until")
        batch.drop_column("owner")
