"""What the asker sees while an answer is made: 👀 on the question, the thread's title (a new DM conversation is
named by its question) and the loading status, which says each search in its own words. All nice to have: a
failure is counted and logged, never a reason to stop the answer; whatever happens, they are cleared."""

from __future__ import annotations

import logging
from contextlib import contextmanager

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.metrics import SLACK_ERRORS
from bot.slack.claims import Job
from bot.slack.mrkdwn import escape, one_line

log = logging.getLogger(__name__)

WORKING = "is searching the docs…"
LOADING = ("Searching the docs…", "Reading the passages I found…", "Checking every quote against its source…")
TITLE_CHARS = 80


@contextmanager
def showing_progress(client: WebClient, job: Job, title: str):
    """👀, the title of a new DM conversation and the loading status while the block runs; cleared after it."""
    _quietly(client.reactions_add, channel=job.channel, timestamp=job.ts, name="eyes")
    if job.is_dm and job.root == job.ts:
        _quietly(client.assistant_threads_setTitle, channel_id=job.channel, thread_ts=job.root, title=thread_title(title))
    _quietly(
        client.assistant_threads_setStatus,
        channel_id=job.channel,
        thread_ts=job.root,
        status=WORKING,
        loading_messages=list(LOADING),
    )
    try:
        yield lambda call: show_step(client, job, call)
    finally:
        _quietly(client.reactions_remove, channel=job.channel, timestamp=job.ts, name="eyes")
        _quietly(client.assistant_threads_setStatus, channel_id=job.channel, thread_ts=job.root, status="")


def progress_status(call) -> str | None:
    """What the loading status says while a tool runs: the search in its own words."""
    query = " ".join(str(call.input.get("query") or "").split())
    if call.name == "search_docs" and query:
        return f"is searching the docs for “{escape(query[:60])}{'…' if len(query) > 60 else ''}”…"
    return None


def show_step(client: WebClient, job: Job, call) -> None:
    """The loading status names the search under way."""
    status = progress_status(call)
    if status:
        _quietly(client.assistant_threads_setStatus, channel_id=job.channel, thread_ts=job.root, status=status)


def thread_title(question: str) -> str:
    return one_line(question, TITLE_CHARS)


def _quietly(method, **kwargs) -> None:
    """Progress signals are nice to have: their failure must not stop the answer."""
    try:
        method(**kwargs)
    except SlackApiError as e:
        name = getattr(method, "__name__", "slack call")
        SLACK_ERRORS.labels(name).inc()
        log.info("%s failed: %s", name, e.response.get("error"))
