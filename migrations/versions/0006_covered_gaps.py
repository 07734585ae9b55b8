"""a docs owner can mark a gap's questions as covered: they leave the gaps list until asked again

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "log_covered",
        sa.Column(
            "question_id", sa.Integer(), sa.ForeignKey("log_questions.id", ondelete="CASCADE"), primary_key=True, nullable=False
        ),
        sa.Column("marked_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("log_covered")
