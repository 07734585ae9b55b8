"""a docs owner's actions: a gap's state beyond "covered" (won't document, with a note; its owner), the channels'
names for the review page, when a stale answer's asker was told of the change (and by whom), and each question's
sentence-encoder vector (gaps group paraphrases by meaning)

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_covered") as batch:
        batch.add_column(sa.Column("state", sa.String(length=16), nullable=False, server_default="covered"))
        batch.add_column(sa.Column("note", sa.Text()))
        batch.add_column(sa.Column("owner", sa.String(length=128)))
    op.create_table(
        "log_channels",
        sa.Column("channel_id", sa.String(length=64), primary_key=True),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("log_questions") as batch:
        batch.add_column(sa.Column("told_at", sa.DateTime(timezone=True)))
        batch.add_column(sa.Column("told_by", sa.String(length=128)))
        batch.add_column(sa.Column("vector", sa.LargeBinary()))
    # the overview counts a window's questions by day and status, and its hand-overs: read from indexes alone
    op.create_index("ix_log_questions_created_source_status", "log_questions", ["created_at", "source", "status"])
    op.create_index("ix_log_questions_escalated_at", "log_questions", ["escalated_at"])
    failed = sa.text("error IS NOT NULL")  # the few answers a model error touched (errors, fallbacks)
    op.create_index("ix_log_questions_failed", "log_questions", ["created_at"], sqlite_where=failed, postgresql_where=failed)


def downgrade() -> None:
    op.drop_index("ix_log_questions_failed", table_name="log_questions")
    op.drop_index("ix_log_questions_escalated_at", table_name="log_questions")
    op.drop_index("ix_log_questions_created_source_status", table_name="log_questions")
    with op.batch_alter_table("log_questions") as batch:
        batch.drop_column("vector")
        batch.drop_column("told_by")
        batch.drop_column("told_at")
    op.drop_table("log_channels")
    with op.batch_alter_table("log_covered") as batch:
        batch.drop_column("owner")
        batch.drop_column("note")
        batch.drop_column("state")
