"""one vote per person per answer, kept by the database: simultaneous clicks can no longer add a second one

Earlier duplicates (the same person's several votes on one answer) keep the newest.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        sa.text(
            "DELETE FROM log_feedback WHERE user_id IS NOT NULL AND id NOT IN "
            "(SELECT MAX(id) FROM log_feedback WHERE user_id IS NOT NULL GROUP BY question_id, user_id)"
        )
    )
    with op.batch_alter_table("log_feedback") as batch:
        batch.create_unique_constraint("uq_log_feedback_question_id_user_id", ["question_id", "user_id"])


def downgrade() -> None:
    with op.batch_alter_table("log_feedback") as batch:
        batch.drop_constraint("uq_log_feedback_question_id_user_id", type_="unique")
