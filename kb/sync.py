"""Incremental sync of a docs folder into the index, as one transaction.

Only documents whose content hash changed are re-chunked (all of them when the
analyzer or the loaders changed), and only chunks without a vector from the current embedding
model are embedded (all of them when the model changed). Everything is written
in a single transaction that first takes the sync lock, so a sync killed
halfway leaves the previous index intact and serving, and two syncs (even in two
processes sharing one PostgreSQL) never run at once. Each run is recorded in
kb_sync_runs; the index version moves only when something changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, or_, select, update

from kb.chunking import index_text, stored
from kb.clock import now
from kb.embedding import USE_DEFAULT, Embedder, EmbedderUnavailable, pack, resolve_embedder
from kb.encode import KeptVectors
from kb.loaders import LOADERS_VERSION
from kb.models import chunks, documents, index_state, sync_runs
from kb.prepare import PreparedDocument, prepare
from kb.redirects import drop_redirects
from kb.scan import DEFAULT_MAX_FILE_BYTES, DocProblem, SourceFile, scan
from kb.state import index_version
from kb.sync_runs import SyncBusy, SyncReport, finish_run, start_run, sync_transaction
from kb.tokens import DEFAULT_TOKENIZER, Tokenizer
from kb.twins import drop_format_twins
from kb.vocabulary import Vocabulary

EMBED_BATCH = 256  # chunks embedded at a time (_Waiting)

Progress = Callable[[int, int], None]


def sync(
    engine: Engine,
    docs_dir: Path | str,
    *,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    embedder: Embedder | None = USE_DEFAULT,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    lock_timeout_s: float = 2.0,
    progress: Progress | None = None,
    source_commit: str | None = None,
    within: Path | None = None,
    left_out: Sequence[str] = (),
    extra: Sequence[SourceFile] = (),
    anchor_style: str | None = None,
) -> SyncReport:
    """embedder: None indexes for BM25 alone; the default is WordLlama (hybrid search).
    source_commit: the git commit the docs folder was checked out at, recorded with the run.
    within: the folder docs_dir must resolve inside (the checkout it came from).
    left_out: files of docs_dir never written to disk for being over max_file_bytes (a filtered git checkout):
    reported as skipped, and a version indexed before keeps serving, as for any file over the cap.
    extra: pages that are not files of docs_dir (the team's published answers), indexed beside them; a file of
    docs_dir at one of their paths is skipped and reported.
    anchor_style: DOCS_ANCHOR_STYLE (kb.anchors): how pages' heading anchors are made; a change re-indexes every
    page."""
    started = time.perf_counter()
    docs_dir = Path(docs_dir)
    files, problems = scan(docs_dir, max_file_bytes, within)  # raises before anything is recorded
    problems += [
        DocProblem(p, f"over the {max_file_bytes:,}-byte cap: left out of the git checkout", "skipped") for p in left_out
    ]
    unreadable = {p.path for p in problems}  # on disk but not read this time: an indexed one keeps its last version
    files, redirects = drop_redirects(files)
    files, twins = drop_format_twins(files)
    problems += redirects + twins
    if extra:
        taken = {f.path for f in extra}
        problems += [
            DocProblem(f.path, "the path of a page the sync adds (a team answer)", "skipped") for f in files if f.path in taken
        ]
        files = [f for f in files if f.path not in taken] + list(extra)
    report = SyncReport(None, "running", str(docs_dir), problems=problems, source_commit=source_commit)
    try:
        embedder = resolve_embedder(embedder)
    except EmbedderUnavailable as e:
        embedder = None
        report.problems.append(DocProblem("(embedding model)", f"{e}; indexed for BM25 search only", "skipped"))
    report.run_id = start_run(engine, report, lock_timeout_s)
    try:
        with sync_transaction(engine, lock_timeout_s) as conn:
            _apply(conn, files, unreadable, report, tokenizer, embedder, progress, anchor_style)
            report.problems = _mark_known(conn, report.problems)
            report.status = "ok"
            report.seconds = time.perf_counter() - started
            finish_run(conn, report)
    except SyncBusy:
        report.status = "busy"
        with engine.begin() as conn:
            finish_run(conn, report)
        raise
    except BaseException as e:
        report.status = "failed"
        with engine.begin() as conn:
            finish_run(conn, report, error=f"{type(e).__name__}: {e}")
        raise
    return report


def _apply(
    conn: Connection,
    files: list[SourceFile],
    unreadable: set[str],
    report: SyncReport,
    tokenizer: Tokenizer,
    embedder: Embedder | None,
    progress: Progress | None,
    anchor_style: str | None = None,
) -> None:
    conn.execute(
        update(sync_runs)
        .where(sync_runs.c.status == "running", sync_runs.c.id != report.run_id)
        .values(status="interrupted", finished_at=now(), error="the process stopped before the sync finished")
    )
    existing = {row.path: row for row in conn.execute(select(documents.c.id, documents.c.path, documents.c.content_hash))}
    seen = {f.path for f in files}
    for path in sorted(unreadable & existing.keys()):
        seen.add(path)
        report.problems.append(DocProblem(path, "the last good version is still served", "kept previous version"))
    analyzer = f"{tokenizer.name} loaders-{LOADERS_VERSION}" + (f" anchors-{anchor_style}" if anchor_style else "")
    reindex = conn.execute(select(index_state.c.analyzer).where(index_state.c.id == 1)).scalar() != analyzer
    todo = [f for f in files if reindex or f.path not in existing or existing[f.path].content_hash != f.content_hash]
    report.unchanged = len(files) - len(todo)
    reindexed = False
    vocabulary = Vocabulary.load(conn) if todo else Vocabulary()

    waiting = _Waiting(conn, embedder)
    kept = KeptVectors()  # the re-ranking vectors of chunks deleted here, for those that replace them and read the same
    for done, source in enumerate(todo, 1):
        prepared, problems = prepare(source, tokenizer, vocabulary, anchor_style)
        report.problems += problems
        old = existing.get(source.path)
        if prepared is None:
            if old is not None:  # keep serving what the file said before it broke
                report.problems.append(DocProblem(source.path, "the last good version is still served", "kept previous version"))
        elif old is None:
            waiting.add(prepared)
            report.added.append(source.path)
        else:
            kept.keep(conn, old.id)
            conn.execute(delete(chunks).where(chunks.c.document_id == old.id))
            conn.execute(delete(documents).where(documents.c.id == old.id))
            waiting.add(prepared)
            if old.content_hash != source.content_hash:
                report.changed.append(source.path)
            else:  # re-indexed for a new analyzer: the page itself did not change
                report.unchanged += 1
                reindexed = True
        if progress:
            progress(done, len(todo))
    waiting.flush()

    vocabulary.save_new(conn)
    gone = [row for path, row in existing.items() if path not in seen]
    for row in gone:
        kept.keep(conn, row.id)
        conn.execute(delete(chunks).where(chunks.c.document_id == row.id))
        conn.execute(delete(documents).where(documents.c.id == row.id))
        report.removed.append(row.path)

    report.vectors_kept = kept.restore(conn, waiting.inserted)
    if embedder is not None:
        report.embedded = _embed_missing(conn, embedder)
    version = index_version(conn)
    if report.changed_anything or reindexed:
        version += 1
        state = {"version": version, "updated_at": now(), "analyzer": analyzer}
        if conn.execute(update(index_state).where(index_state.c.id == 1).values(**state)).rowcount == 0:
            conn.execute(insert(index_state).values(id=1, **state))
    report.index_version = version
    report.chunks = conn.execute(select(func.count()).select_from(chunks)).scalar_one()


class _Waiting:
    """Prepared documents held until they make EMBED_BATCH chunks, then embedded together and inserted: the
    tokenizer reads a batch on both cores, a page's five chunks on one (4,300 chunks/s against 3,100)."""

    def __init__(self, conn: Connection, embedder: Embedder | None) -> None:
        self.conn = conn
        self.embedder = embedder
        self.documents: list[PreparedDocument] = []
        self.chunks = 0
        self.inserted: list[int] = []  # the ids of the documents inserted

    def add(self, prepared: PreparedDocument) -> None:
        self.documents.append(prepared)
        self.chunks += len(prepared.chunks)
        if self.chunks >= EMBED_BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.documents:
            return
        texts = [index_text(p.document.title, pc.chunk) for p in self.documents for pc in p.chunks]
        vectors = self.embedder.embed(texts) if self.embedder is not None else None
        start = 0
        for prepared in self.documents:
            end = start + len(prepared.chunks)
            self.inserted.append(
                _insert_document(self.conn, prepared, self.embedder, vectors[start:end] if vectors is not None else None)
            )
            start = end
        self.documents, self.chunks = [], 0


def _insert_document(conn: Connection, prepared: PreparedDocument, embedder: Embedder | None, vectors: np.ndarray | None) -> int:
    src, doc = prepared.source, prepared.document
    doc_id = conn.execute(
        insert(documents)
        .values(
            path=src.path,
            collection=src.collection,
            title=doc.title,
            url=doc.url,
            format=prepared.format,
            content_hash=src.content_hash,
            size=len(src.content),
            warnings=doc.warnings,
            indexed_at=now(),
        )
        .returning(documents.c.id)
    ).scalar_one()
    conn.execute(
        insert(chunks),
        [
            {
                "document_id": doc_id,
                "collection": src.collection,
                "ordinal": pc.chunk.ordinal,
                "heading": pc.chunk.heading,
                "anchor": pc.chunk.anchor,
                "start_line": pc.chunk.start_line,
                "end_line": pc.chunk.end_line,
                "lines": [[line.number, line.text] for line in pc.chunk.lines],
                "length": pc.length,
                "terms": pc.terms,
                "embedding": pack(vectors[n]) if vectors is not None else None,
                "embedding_model": embedder.name if embedder else None,
            }
            for n, pc in enumerate(prepared.chunks)
        ],
    )
    return doc_id


def _embed_missing(conn: Connection, embedder: Embedder, batch: int = 2000) -> int:
    """Embed every chunk whose vector is missing or from another model; returns how many."""
    stale = or_(chunks.c.embedding_model.is_(None), chunks.c.embedding_model != embedder.name)
    ids = conn.execute(select(chunks.c.id).where(stale).order_by(chunks.c.id)).scalars().all()
    for start in range(0, len(ids), batch):
        rows = conn.execute(
            select(chunks.c.id, chunks.c.heading, chunks.c.lines, documents.c.title)
            .join(documents, documents.c.id == chunks.c.document_id)
            .where(chunks.c.id.in_(ids[start : start + batch]))
        ).all()
        texts = [index_text(r.title, stored(r.heading, r.lines)) for r in rows]
        vectors = embedder.embed(texts)
        conn.execute(
            update(chunks).where(chunks.c.id == bindparam("row_id")),
            [{"row_id": r.id, "embedding": pack(v), "embedding_model": embedder.name} for r, v in zip(rows, vectors)],
        )
    return len(ids)


def _mark_known(conn: Connection, problems: list[DocProblem]) -> list[DocProblem]:
    """Each problem flagged new, or known: reported the same by the last successful sync. A folder with a
    standing list of skipped files then reports what changed, not the whole list every interval."""
    last = conn.execute(
        select(sync_runs.c.problems).where(sync_runs.c.status == "ok").order_by(sync_runs.c.id.desc()).limit(1)
    ).scalar()
    known = {(p.get("path"), p.get("action"), p.get("reason")) for p in last or []}
    return [replace(p, new=p.key not in known) for p in problems]
