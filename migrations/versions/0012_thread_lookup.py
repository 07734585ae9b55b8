"""an index for "did the bot answer in this thread?", asked of every thread reply in the channels it is in

Revision ID: 0012
Revises: 0011
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_log_questions_channel_thread_ts", "log_questions", ["channel", "thread_ts"])


def downgrade() -> None:
    op.drop_index("ix_log_questions_channel_thread_ts", table_name="log_questions")
