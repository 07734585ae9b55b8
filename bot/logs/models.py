"""The answer log's tables: what was asked, searched, answered and cited, and what people thought of it."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

from kb.models import metadata

questions = Table(
    "log_questions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("source", String(16), nullable=False),  # cli, slack, eval
    Column("team", String(64)),
    Column("channel", String(64)),
    Column("user_id", String(64)),
    Column("thread_ts", String(32)),
    Column("message_ts", String(32)),  # the question's own message: equal to thread_ts when it started the thread
    Column("visibility", String(16)),  # "public" (a public channel) or "private" (DM, private channel, /ask); None: not Slack
    Column("permalink", Text),  # the question in its Slack thread (a channel's; a DM's no one else could open)
    Column("question", Text, nullable=False),
    Column("answerer", String(16), nullable=False),
    Column("model", String(128)),
    Column("status", String(24), nullable=False),  # answered, abstained, error, budget_exhausted
    Column("answer", Text, nullable=False),
    Column("sources", JSON, nullable=False, default=list),  # [{"n", "title", "path", "url", "collection"}]
    Column("cited", JSON, nullable=False, default=list),  # [{"n", "chunk_id", "lines"}]: each citation with its passage lines
    Column("closest", JSON, nullable=False, default=list),
    Column("steps", JSON, nullable=False, default=list),
    Column("problems", JSON, nullable=False, default=list),
    Column("usage", JSON, nullable=False, default=dict),
    Column("error", Text),
    Column("latency_ms", Float, nullable=False),
    Column("index_version", Integer),
    Column("stale_at", DateTime(timezone=True)),  # when a sync changed or removed a line this answer cited
    Column("stale", JSON),  # [{"path", "line", "old", "new"}]: the cited lines that changed (new: None if gone)
    Column("told_at", DateTime(timezone=True)),  # when a docs owner told the asker, in the answer's thread, of the change
    Column("told_by", String(128)),  # that owner's name, as they gave it
    Column("vector", LargeBinary),  # the question's sentence-encoder vector (kb.embedding.pack): gaps group by meaning
    Column("escalated_at", DateTime(timezone=True)),  # when someone clicked "Ask a person" (once)
    Column("escalated_by", String(64)),  # the Slack user who clicked
    Index("ix_log_questions_created_at", "created_at"),
    Index("ix_log_questions_status", "status"),
    Index("ix_log_questions_channel_thread_ts", "channel", "thread_ts"),  # "did the bot answer in this thread?"
    Index("ix_log_questions_created_source_status", "created_at", "source", "status"),  # the overview's counts
    Index("ix_log_questions_escalated_at", "escalated_at"),  # the overview's hand-overs
    Index(  # the few answers a model error touched: the overview counts the fallbacks among them
        "ix_log_questions_failed",
        "created_at",
        sqlite_where=text("error IS NOT NULL"),
        postgresql_where=text("error IS NOT NULL"),
    ),
)

searches = Table(
    "log_searches",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("question_id", Integer, ForeignKey("log_questions.id", ondelete="CASCADE"), nullable=False),
    Column("ordinal", Integer, nullable=False),
    Column("query", Text, nullable=False),
    Column("collection", String(255)),
    Column("hits", JSON, nullable=False),  # [{"chunk_id", "path", "title", "heading", "score"}]
    Column("ms", Float, nullable=False),
    Index("ix_log_searches_question_id", "question_id"),
)

feedback = Table(
    "log_feedback",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("question_id", Integer, ForeignKey("log_questions.id", ondelete="CASCADE"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("user_id", String(64)),
    Column("value", String(8), nullable=False),  # up, down
    Column("reason", Text),  # why "not helpful", when the person said
    Column("updated_at", DateTime(timezone=True)),  # when the person changed their vote
    Index("ix_log_feedback_question_id", "question_id"),
    UniqueConstraint("question_id", "user_id", name="uq_log_feedback_question_id_user_id"),  # one vote per person
)

cited_pages = Table(  # which pages each answer cited: a sync looks up the answers a changed page affects
    "log_cited_pages",
    metadata,
    Column("question_id", Integer, ForeignKey("log_questions.id", ondelete="CASCADE"), nullable=False),
    Column("path", Text, nullable=False),
    PrimaryKeyConstraint("question_id", "path"),
    Index("ix_log_cited_pages_path", "path"),
)

covered = Table(  # what a docs owner decided about a gap's questions (the table kept its first state's name)
    "log_covered",
    metadata,
    Column("question_id", Integer, ForeignKey("log_questions.id", ondelete="CASCADE"), primary_key=True),
    Column("marked_at", DateTime(timezone=True), nullable=False),
    # covered (the docs answer it now) or wont_document (with a note): hidden from the gaps until asked again;
    # open: still a gap, with an owner who will write it
    Column("state", String(16), nullable=False, server_default="covered"),
    Column("note", Text),
    Column("owner", String(128)),
)

handovers = Table(  # a question handed to a person: the hand-over thread, where replies go, and its state
    "log_handovers",
    metadata,
    Column("question_id", Integer, ForeignKey("log_questions.id", ondelete="CASCADE"), primary_key=True),
    Column("post_channel", String(64), nullable=False),  # the escalation channel
    Column("post_ts", String(32), nullable=False),  # the hand-over post: people reply in its thread
    Column("asker_channel", String(64), nullable=False),  # where the question was asked (a channel or a DM)
    Column("asker_thread", String(32), nullable=False),  # its thread there
    Column("asker_user", String(64)),
    Column("state", String(16), nullable=False),  # open, answered (a person replied), resolved
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("first_reply_at", DateTime(timezone=True)),
    Column("resolved_at", DateTime(timezone=True)),
    Column("resolved_by", String(64)),
    UniqueConstraint("post_channel", "post_ts", name="uq_log_handovers_post"),  # a reply there finds its hand-over
    Index("ix_log_handovers_asker", "asker_channel", "asker_thread"),  # an asker's reply finds its hand-over
)

team_answers = Table(  # what a person answered in a hand-over, kept as knowledge: a candidate until a docs owner publishes it
    "log_team_answers",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("question_id", Integer, ForeignKey("log_questions.id", ondelete="SET NULL")),  # the log may be pruned
    Column("question", Text, nullable=False),
    Column("reply", Text, nullable=False),  # what the person wrote, mentions as plain words
    Column("answered_by", String(64)),  # their Slack user ID
    Column("answered_by_name", String(128)),
    Column("answered_at", DateTime(timezone=True), nullable=False),
    Column("permalink", Text),  # the reply in the hand-over thread
    Column("state", String(16), nullable=False),  # candidate, published, dismissed
    Column("text", Text),  # the published text (the reply, or the docs owner's edit)
    Column("reviewed_at", DateTime(timezone=True)),  # when it was published or dismissed
    Column("review_by", DateTime(timezone=True)),  # a published answer is due for review after this
    Index("ix_log_team_answers_state", "state"),
)

people = Table(  # the names of the people the log mentions by ID, as Slack said them (users.info), for the review page
    "log_people",
    metadata,
    Column("user_id", String(64), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("seen_at", DateTime(timezone=True), nullable=False),
)

channels = Table(  # the names of the channels the log mentions by ID, as Slack said them (conversations.info)
    "log_channels",
    metadata,
    Column("channel_id", String(64), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("seen_at", DateTime(timezone=True), nullable=False),
)
