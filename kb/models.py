"""The knowledge base's tables. Created and changed only through migrations/."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

documents = Table(
    "kb_documents",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("path", String(1024), nullable=False, unique=True),  # relative to the docs root, "/" separators
    Column("collection", String(255), nullable=False),
    Column("title", Text, nullable=False),
    Column("url", Text),  # front matter override; otherwise built from DOCS_BASE_URL at search time
    Column("format", String(16), nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("warnings", JSON, nullable=False, default=list),
    Column("indexed_at", DateTime(timezone=True), nullable=False),
)

chunks = Table(
    "kb_chunks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("document_id", Integer, ForeignKey("kb_documents.id", ondelete="CASCADE"), nullable=False),
    Column("collection", String(255), nullable=False),  # copied from the document: the index loads it per chunk
    Column("ordinal", Integer, nullable=False),
    Column("heading", Text, nullable=False),
    Column("anchor", String(512), nullable=False),
    Column("start_line", Integer, nullable=False),
    Column("end_line", Integer, nullable=False),
    Column("lines", JSON, nullable=False),  # [[line number, text], ...]
    Column("length", Integer, nullable=False),  # terms in the index text
    Column("terms", LargeBinary, nullable=False),  # packed (term id, tf) pairs, see kb.vocabulary.POSTING
    Column("embedding", LargeBinary),  # int8 vector after a float32 scale, see kb.embedding.pack
    Column("embedding_model", String(64)),  # the Embedder.name that made it; another name means re-embed
    Index("ix_kb_chunks_document_id", "document_id"),
)

encodings = Table(  # sentence-encoder vectors, filled in after a sync commits (kb.encode); search reads them as they land
    "kb_encodings",
    metadata,
    Column("id", Integer, primary_key=True),  # the order they landed in: search loads the ones past the last it saw
    Column("chunk_id", Integer, ForeignKey("kb_chunks.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("model", String(64), nullable=False),  # the encoder's name; another name means encode again
    Column("vector", LargeBinary, nullable=False),  # int8 after a float32 scale, see kb.embedding.pack
)

terms = Table(
    "kb_terms",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),  # dense, assigned by sync under its lock
    Column("hash", BigInteger, nullable=False, unique=True),  # kb.tokens hash of the term, as signed 64-bit
)

index_state = Table(
    "kb_index_state",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("analyzer", String(64)),  # Tokenizer.name and loaders version the index was made with; another means re-index
)

sync_runs = Table(
    "kb_sync_runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("status", String(16), nullable=False),  # running, ok, failed, busy, interrupted
    Column("docs_dir", Text, nullable=False),
    Column("added", Integer, nullable=False, default=0),
    Column("changed", Integer, nullable=False, default=0),
    Column("removed", Integer, nullable=False, default=0),
    Column("unchanged", Integer, nullable=False, default=0),
    Column("skipped", Integer, nullable=False, default=0),
    Column("chunks", Integer, nullable=False, default=0),
    Column("index_version", Integer),
    Column("problems", JSON, nullable=False, default=list),  # [{"path", "reason", "action", "new"}]
    Column("error", Text),
    Column("source_commit", String(64)),  # the git commit synced, when the docs come from DOCS_GIT_URL
)
