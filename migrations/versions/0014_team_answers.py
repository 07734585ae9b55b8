"""what a person answered in a hand-over is kept as a candidate team answer, which a docs owner can publish

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "log_team_answers",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("question_id", sa.Integer(), sa.ForeignKey("log_questions.id", ondelete="SET NULL"), nullable=True),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("answered_by", sa.String(length=64), nullable=True),
        sa.Column("answered_by_name", sa.String(length=128), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("permalink", sa.Text(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("review_by", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_log_team_answers_state", "log_team_answers", ["state"])


def downgrade() -> None:
    op.drop_index("ix_log_team_answers_state", table_name="log_team_answers")
    op.drop_table("log_team_answers")
