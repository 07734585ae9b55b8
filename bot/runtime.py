"""The pieces a command or the Slack app needs, built once from the settings."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from bot.agent.types import Answer, Limits
from bot.database import open_database, retrying
from bot.logs.store import Origin, record
from bot.settings import Settings
from kb.links import Links
from kb.state import chunk_count, index_version, synced_commit

if TYPE_CHECKING:  # the heavy parts (the Anthropic SDK, numpy, the embedder) load when first used, not per command
    from bot.agent.answer import Agent
    from bot.agent.tools import ToolCall
    from kb.embedding import Embedder
    from kb.encode import EncodeReport
    from kb.search import Searcher
    from kb.snapshot import Snapshots
    from kb.sync import Progress
    from kb.sync_runs import SyncReport

log = logging.getLogger(__name__)
LOG_WAIT_S = 300.0  # how long an answer waits for its log row (and so its feedback buttons) rather than go without


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.sync_progress: tuple[int, int] | None = None  # (pages read, pages) of a sync under way, when known

    def committed_version(self) -> int:
        """The newest index a sync has committed (0: none yet)."""
        with self.engine.connect() as conn:
            return index_version(conn)

    def serves_an_index(self) -> bool:
        """Whether this process can answer from a complete index: a sync has committed one, and it is loaded. The
        first one is loaded now, not in the background: the empty index a process read before its first sync
        committed would answer "not in the docs"."""
        if self.committed_version() == 0:
            return False
        if not self.searcher.loaded_version:  # nothing loaded yet, or the empty index from before the first sync
            self.searcher.refresh()
        return True

    @cached_property
    def engine(self) -> Engine:
        return open_database(self.settings.database_url)

    @property
    def source_url(self) -> str | None:
        """Where a page without a published site is read: DOCS_SOURCE_URL, else the git remote's web view."""
        from kb.links import forge_template

        s = self.settings
        return s.docs_source_url or forge_template(s.docs_git_url, s.docs_git_subdir)

    def links(self) -> Links:
        """Where a reader reads a page, for readers other than search (the review page): at the commit of the
        newest index."""

        def commit() -> str | None:
            with self.engine.connect() as conn:
                return synced_commit(conn, index_version(conn))

        s = self.settings
        return Links(s.docs_base_url, self.source_url, commit, s.review_url, s.docs_anchor_style)

    @cached_property
    def searcher(self) -> Searcher:
        from kb import frequency
        from kb.search import DEFAULT_MIN_SCORE, Searcher

        frequency.keep_copy_in(self.settings.index_snapshot_dir)  # wordfreq's English table, as plain text beside it
        return Searcher(
            self.engine,
            base_url=self.settings.docs_base_url,
            source_url=self.source_url,
            review_url=self.settings.review_url,
            style=self.settings.docs_anchor_style,
            min_score=self.settings.search_min_score if self.settings.search_min_score is not None else DEFAULT_MIN_SCORE,
            embedder=self.embedder,
            encoder=self.encoder,
            snapshots=self.snapshots,
        )

    @cached_property
    def snapshots(self) -> Snapshots | None:
        """Where a large index is kept between starts, by a sync and by a process that read it (INDEX_SNAPSHOT_DIR;
        None: off)."""
        from kb.snapshot import Snapshots

        folder = self.settings.index_snapshot_dir
        return Snapshots(folder) if folder is not None else None

    @cached_property
    def embedder(self) -> Embedder | None:
        """The dense model (SEARCH_MODE=hybrid or rerank), shared by sync and search; None when it cannot load."""
        if self.settings.search_mode == "bm25":
            return None
        from kb.embedding import EmbedderUnavailable, default_embedder

        try:
            return default_embedder()
        except EmbedderUnavailable as e:
            log.warning("SEARCH_MODE=%s, but searching with BM25 alone: %s", self.settings.search_mode, e)
            return None

    @cached_property
    def encoder(self) -> Embedder | None:
        """The sentence encoder that re-ranks the top pages (SEARCH_MODE=rerank); None when it cannot load."""
        if self.settings.search_mode != "rerank" or self.embedder is None:
            return None
        from kb.embedding import EmbedderUnavailable
        from kb.encoder import default_encoder

        try:
            return default_encoder()
        except EmbedderUnavailable as e:
            log.warning("SEARCH_MODE=rerank, but searching without re-ranking: %s", e)
            return None

    @cached_property
    def agent(self) -> Agent:
        """The agent, with one Anthropic client for the whole process (its connection pool is reused)."""
        from bot.agent.answer import Agent

        s = self.settings
        claude = None
        if s.anthropic_api_key:  # the Anthropic SDK (2.5 s to import here) loads only when there is a key
            from bot.agent.claude import make_client

            client = make_client(
                s.anthropic_api_key.get_secret_value(), s.anthropic_base_url, s.anthropic_timeout_s, s.anthropic_max_retries
            )
            claude = (client, s.anthropic_model)
        return Agent(self.searcher, Limits(s.max_searches, s.max_turns, s.answer_fallback == "local"), claude)

    def sync(self, docs_dir: Path | None = None, progress: Progress | None = None, *, encode: bool = True) -> SyncReport:
        """Index the docs folder; with DOCS_GIT_URL, first bring its checkout to the branch's head (a failed
        fetch is recorded and raised, and the last checkout's index keeps serving). encode: then compute the
        sentence encoder's vectors the index lacks (the index already serves without them)."""
        from bot.logs.team_answers import published_pages
        from kb.scan import DocsRootOutside
        from kb.sync import sync

        commit = checkout = None
        left_out: list[str] = []
        if docs_dir is None and self.settings.docs_git_url:
            docs_dir, commit, left_out = self._fetch_docs()
            checkout = self.settings.docs_git_checkout.resolve()  # the docs folder must stay inside it
        try:
            report = sync(
                self.engine,
                docs_dir or self.settings.docs_dir,
                embedder=self.embedder,
                max_file_bytes=self.settings.max_file_bytes,
                progress=progress,
                source_commit=commit,
                within=checkout,
                left_out=left_out,
                extra=published_pages(self.engine),
                anchor_style=self.settings.docs_anchor_style,
            )
        except DocsRootOutside as e:
            from kb.sync_runs import record_failed_run

            record_failed_run(self.engine, str(docs_dir), f"{e}; the last index keeps serving")
            raise
        self._keep_snapshot()
        if report.changed or report.removed:
            from bot.logs.stale import flag_stale

            report.stale_answers = flag_stale(self.engine, report.changed + report.removed)
        if encode:
            report.encoding = self.encode()
        return report

    def _keep_snapshot(self) -> None:
        """Keep a large index on disk as the sync left it (kb.snapshot), so the next process to start maps it
        instead of reading every chunk: the first start after a deploy answers as fast as a restart. A failure
        costs only that start's time."""
        if self.snapshots is None:
            return
        from kb.serving import keep_snapshot

        started = time.monotonic()
        try:
            if keep_snapshot(self.engine, self.snapshots, embedder=self.embedder):
                log.info("the index is kept for the next start in %s (%.1f s)", self.snapshots.folder, time.monotonic() - started)
        except Exception as e:  # the database went away after the sync committed: the next start reads it
            log.warning("could not keep the index for the next start (%s); it will be read from the database", e)

    def encode(self, seconds: float | None = None, progress: Progress | None = None) -> EncodeReport | None:
        """Compute the encoder's missing vectors (for `seconds` at most); None without an encoder."""
        if self.encoder is None:
            return None
        from kb.encode import encode_missing

        return encode_missing(self.engine, self.encoder, seconds=seconds, progress=progress)

    def _fetch_docs(self) -> tuple[Path, str, list[str]]:
        """The docs folder in the checkout, its commit, and the files (relative to the docs folder) left out of
        the checkout for being over DOCS_MAX_FILE_BYTES."""
        from kb.git_source import DocsFetchFailed, fetch_docs, redact
        from kb.sync_runs import record_failed_run

        s = self.settings
        url = s.docs_git_url or ""
        checkout = s.docs_git_checkout.resolve()
        try:
            commit, large = fetch_docs(url, s.docs_git_branch, checkout, s.max_file_bytes)
        except DocsFetchFailed as e:
            where = f"{redact(url)} ({s.docs_git_branch})"
            record_failed_run(self.engine, where, f"fetching the docs failed: {e}")
            raise DocsFetchFailed(f"fetching the docs from {where} failed; the last index keeps serving: {e}") from None
        prefix = s.docs_git_subdir.strip("/") + "/" if s.docs_git_subdir.strip("/") else ""
        return checkout / s.docs_git_subdir, commit, [p.removeprefix(prefix) for p in large if p.startswith(prefix)]

    def ask(
        self,
        question: str,
        history: Sequence[tuple[str, str]] = (),
        *,
        answerer: str | None = None,
        collections: list[str] | None = None,
        origin: Origin = Origin(),
        on_text: Callable[[str], None] | None = None,
        on_call: Callable[[ToolCall], None] | None = None,
    ) -> Answer:
        """Answer a question and log it (the log row is committed before this returns). on_text, on_call: see
        Agent.answer."""
        result = self.agent.answer(
            question, history, answerer=answerer, collections=collections, on_text=on_text, on_call=on_call
        )
        if result.error:
            log.warning("question failed: %s", result.error)
        vector = self.question_vector(question)
        try:  # the record is written before the answer is shown: a locked or restarting database delays the answer
            result.log_id = retrying(max(self.settings.db_retry_seconds, LOG_WAIT_S))(
                record, self.engine, result, origin, self.searcher.loaded_version, vector
            )
        except Exception:  # the asker still gets the answer; the operator sees why it was not logged
            log.exception("could not log the answer to %r", question[:80])
        from bot.metrics import observe_answer

        observe_answer(result, origin.source, origin.channel)
        return result

    def question_vector(self, question: str) -> bytes | None:
        """The question's meaning, logged with it so the gaps group the same question asked in other words: the
        re-ranking encoder's vector (about 1 ms), none without one."""
        encoder = self.searcher.encoder
        if encoder is None:
            return None
        from kb.embedding import pack

        try:
            return pack(encoder.embed([question])[0])
        except Exception as e:  # a nicety: never a lost answer
            log.info("no vector for the log: %s", type(e).__name__)
            return None

    def index_is_empty(self) -> bool:
        with self.engine.connect() as conn:
            return not chunk_count(conn)

    def ensure_index(
        self, docs_dir: Path | None, progress: Progress | None = None, announce: Callable[[SyncReport], None] | None = None
    ) -> SyncReport | None:
        """Sync the given folder, or DOCS_DIR when the index is still empty; then load the index with its re-ranking
        vectors (a one-shot command answers from all of it; `serve` answers at once and reads them meanwhile)."""
        report = None
        if docs_dir is not None or self.index_is_empty():
            report = self.sync(docs_dir, progress)
            if announce:
                announce(report)
        self.searcher.refresh()
        self.searcher.wait_for_rebuild()
        return report
