"""sentence-encoder vectors per chunk, in the order they were computed

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "kb_encodings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=64), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chunk_id"], ["kb_chunks.id"], name=op.f("fk_kb_encodings_chunk_id_kb_chunks"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_kb_encodings")),
        sa.UniqueConstraint("chunk_id", name=op.f("uq_kb_encodings_chunk_id")),
    )


def downgrade() -> None:
    op.drop_table("kb_encodings")
