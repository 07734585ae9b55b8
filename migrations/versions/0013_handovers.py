"""a hand-over to a person is a conversation: the hand-over post, where its replies go, and its state

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "log_handovers",
        sa.Column("question_id", sa.Integer(), sa.ForeignKey("log_questions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("post_channel", sa.String(length=64), nullable=False),
        sa.Column("post_ts", sa.String(length=32), nullable=False),
        sa.Column("asker_channel", sa.String(length=64), nullable=False),
        sa.Column("asker_thread", sa.String(length=32), nullable=False),
        sa.Column("asker_user", sa.String(length=64), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_reply_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolved_by", sa.String(length=64), nullable=True),
        sa.UniqueConstraint("post_channel", "post_ts", name="uq_log_handovers_post"),
    )
    op.create_index("ix_log_handovers_asker", "log_handovers", ["asker_channel", "asker_thread"])


def downgrade() -> None:
    op.drop_index("ix_log_handovers_asker", table_name="log_handovers")
    op.drop_table("log_handovers")
