"""answers remember the pages they cited and are flagged stale when a sync changes a cited line

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_questions") as batch:
        batch.add_column(sa.Column("stale_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("stale", sa.JSON(), nullable=True))
    cited_pages = op.create_table(
        "log_cited_pages",
        sa.Column("question_id", sa.Integer(), sa.ForeignKey("log_questions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("question_id", "path"),
    )
    op.create_index("ix_log_cited_pages_path", "log_cited_pages", ["path"])
    # The answers logged before this revision: their cited pages, from their sources and citations.
    conn = op.get_bind()
    questions = sa.table("log_questions", sa.column("id", sa.Integer), sa.column("sources", sa.JSON), sa.column("cited", sa.JSON))
    rows, last = [], 0
    while True:
        batch = conn.execute(
            sa.select(questions.c.id, questions.c.sources, questions.c.cited)
            .where(questions.c.id > last)
            .order_by(questions.c.id)
            .limit(1000)
        ).all()
        if not batch:
            break
        for qid, sources, cited in batch:
            by_n = {s.get("n"): s.get("path") for s in sources or []}
            for path in sorted({by_n.get(c.get("n")) for c in cited or []} - {None}):
                rows.append({"question_id": qid, "path": path})
        last = batch[-1][0]
        if rows:
            op.bulk_insert(cited_pages, rows)
            rows = []


def downgrade() -> None:
    op.drop_index("ix_log_cited_pages_path", table_name="log_cited_pages")
    op.drop_table("log_cited_pages")
    with op.batch_alter_table("log_questions") as batch:
        batch.drop_column("stale")
        batch.drop_column("stale_at")
