"""Answering one Slack message: claim it, show progress, ask, post in the thread, always say something."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta

import tenacity
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from bot.database import retrying
from bot.logs.models import questions
from bot.logs.store import Origin
from bot.metrics import CLAIMS, SLACK_ERRORS
from bot.runtime import Runtime
from bot.slack.access import Access
from bot.slack.claims import Job, claim, keys_for, mark_answered, note_stream, orphans, reclaim, take_over
from bot.slack.message import SlackMessage, without_mention
from bot.slack.mrkdwn import escape, one_line
from bot.slack.render import answer_messages, plain_message, reason_message
from bot.slack.streaming import SlackStream
from bot.slack.visibility import ChannelVisibility
from kb.clock import as_utc, now
from kb.errors import IndexUnavailable

log = logging.getLogger(__name__)

USAGE = "Ask me a question about our docs, for example: @{name} how long is the warranty?"
FOLLOW_UP = "Mention me (@{name}) in your reply to ask a follow-up: I only answer replies in this thread that do."
TEXT_ONLY = "I can only read text, not files or images. Please type your question."
FAILED = "Sorry, something went wrong while I was answering. The bot's owner can find the details in the logs."
TROUBLE = "I'm having trouble reaching my database right now. I'll answer here as soon as I can."
LOST = "Sorry, I was restarted while answering this and it is now too old to pick up. Please ask again."
READING = "I'm reading the docs for the first time{progress}, I'll answer here in a moment."
NOT_READ = "I couldn't finish reading the docs, so I can't answer yet. The bot's owner can see why in the logs."
WORKING = "is searching the docs…"
LOADING = ("Searching the docs…", "Reading the passages I found…", "Checking every quote against its source…")
TITLE_CHARS = 80


class InFlight:
    """How many answers are being made right now, so a stopping process can wait for them."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()

    @contextmanager
    def track(self):
        with self._idle:
            self._count += 1
        try:
            yield
        finally:
            with self._idle:
                self._count -= 1
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout)


@dataclass
class Slack:
    """What every listener needs."""

    runtime: Runtime
    access: Access
    max_chars: int = 2000
    answer_bots: bool = False
    lease: timedelta = timedelta(seconds=30)  # how long a claim holds without its owner renewing it
    recovery_horizon: timedelta = timedelta(hours=1)  # older orphaned questions get an apology, not an answer
    db_retry_s: float = 10.0  # how long a write on the answer path retries a busy or unreachable database
    streaming: bool = True  # Claude's answers are streamed into the thread as they are verified
    suggested_prompts: tuple[str, ...] = ()  # the team's own prompts for the agent view (empty: built from the logs)
    name: str = "supportbot"  # the bot's name in the workspace (auth.test), for the hints
    in_flight: InFlight = field(default_factory=InFlight)
    visibility: ChannelVisibility = field(default_factory=ChannelVisibility)
    submit: Callable[[Callable[[], None]], object] | None = None  # the answer workers; None: answer right here
    stopping: threading.Event = field(default_factory=threading.Event)
    _held: list[tuple[Job, list[str], bool]] = field(default_factory=list)
    _held_lock: threading.Lock = field(default_factory=threading.Lock)

    def hold(self, job: Job, keys: list[str], claimed: bool = False) -> None:
        """Keep a question to answer once the database is back; claimed: this process had claimed it already."""
        with self._held_lock:
            self._held.append((job, keys, claimed))

    def take_held(self) -> list[tuple[Job, list[str], bool]]:
        with self._held_lock:
            held, self._held = self._held, []
        return held


def bot_answered_in(slack: Slack, channel: str, thread_ts: str) -> bool:
    with slack.runtime.engine.connect() as conn:
        return (
            conn.execute(
                select(questions.c.id).where(questions.c.channel == channel, questions.c.thread_ts == thread_ts).limit(1)
            ).first()
            is not None
        )


def thread_history(client: WebClient, channel: str, root: str, current_ts: str, bot_user_id: str | None) -> list[tuple[str, str]]:
    """Earlier messages of the thread as conversation turns; the bot's own posts are the assistant's."""
    try:
        replies = client.conversations_replies(channel=channel, ts=root, limit=50).get("messages", [])
    except SlackApiError as e:
        log.warning("conversations.replies failed in %s: %s", channel, e.response.get("error"))
        return []
    turns = []
    for m in replies:
        if m.get("ts") == current_ts:
            break
        role = "assistant" if (bot_user_id and m.get("user") == bot_user_id) or m.get("bot_id") else "user"
        text = without_mention(m.get("text"), bot_user_id)
        if text:
            turns.append((role, text))
    return turns


def answer_message(slack: Slack, client: WebClient, msg: SlackMessage) -> None:
    job = msg.job()
    keys = keys_for(msg.event_id, job.channel, job.ts)
    try:
        claimed = retrying(slack.db_retry_s)(claim, slack.runtime.engine, keys, job, slack.lease)
    except OperationalError:  # the database is away: say so now, answer when it is back
        log.exception("could not claim %s: the database is unavailable; holding it", keys)
        slack.hold(job, keys)
        try:
            post_once(client, job, plain_message(TROUBLE))
        except Exception:
            log.exception("could not post the trouble notice to %s", job.channel)
        return
    if not claimed:
        CLAIMS.labels("duplicate").inc()
        log.info("already answered or being answered: %s", keys)
        return
    CLAIMS.labels("taken").inc()
    answer_job(slack, client, job, keys)


def answer_held(slack: Slack, client: WebClient) -> int:
    """Answer the messages held while the database was away, now that it may be back."""
    done = 0
    for job, keys, was_claimed in slack.take_held():
        try:
            if was_claimed:
                claimed = reclaim(slack.runtime.engine, keys[-1], slack.lease)
            else:
                claimed = claim(slack.runtime.engine, keys, job, slack.lease)
        except OperationalError:
            slack.hold(job, keys, was_claimed)  # still away: try again at the next beat
            continue
        if claimed:
            _work(slack, lambda job=job, keys=keys: answer_job(slack, client, job, keys))
            done += 1
    return done


def _work(slack: Slack, task: Callable[[], None]) -> None:
    """Answer on the worker pool, not on the heartbeat that found the work: the heartbeat must keep renewing this
    process's leases while answers take longer than a lease, or another process takes them over and answers twice."""
    if slack.submit is None:
        task()
    else:
        slack.submit(task)


def post_once(client: WebClient, job: Job, message: dict) -> None:
    """Post in the job's thread. A post that timed out may still have landed: look for it in the thread
    (for as long again as the client waits) before calling it failed, so the asker never gets it twice,
    nor "Sorry" beside the answer."""
    try:
        client.chat_postMessage(channel=job.channel, thread_ts=job.root, unfurl_links=False, unfurl_media=False, **message)
        return
    except OSError as e:  # a timeout (TimeoutError) or a dropped connection (URLError): it may have landed
        SLACK_ERRORS.labels("chat.postMessage").inc()
        failure = e
    except SlackApiError:
        SLACK_ERRORS.labels("chat.postMessage").inc()
        raise
    log.warning("posting to %s timed out or failed (%s): checking whether it landed", job.channel, failure)

    def landed() -> bool:
        replies = client.conversations_replies(channel=job.channel, ts=job.root, limit=200).get("messages", [])
        mine = job.bot_user_id
        return any(
            (m.get("user") == mine or m.get("bot_id"))
            and float(m.get("ts", 0)) > float(job.ts)
            and m.get("text") == message.get("text")
            for m in replies
        )

    check = tenacity.Retrying(
        retry=tenacity.retry_if_result(lambda found: not found) | tenacity.retry_if_exception_type((SlackApiError, OSError)),
        wait=tenacity.wait_exponential(multiplier=0.25, max=2),
        stop=tenacity.stop_after_delay(2 * client.timeout),
        retry_error_callback=lambda _: False,
    )
    if not check(landed):
        raise failure


def answer_job(slack: Slack, client: WebClient, job: Job, keys: list[str]) -> None:
    """Answer a claimed message in its thread; whatever happens, say something and mark it answered."""
    post = lambda message: post_once(client, job, message)
    working = answered = False
    with slack.in_flight.track():
        try:
            text = job.text
            if not text:
                post(plain_message(TEXT_ONLY if job.has_files else USAGE.format(name=slack.name)))
                mark_answered(slack.runtime.engine, keys)
                return
            notice = None
            if len(text) > slack.max_chars:
                text = text[: slack.max_chars]
                notice = f"Your message was long, so I read only its first {slack.max_chars:,} characters."
            if not wait_for_index(slack, post):
                if not slack.stopping.is_set():  # stopping: the claim is released, and another process answers
                    post(reason_message(NOT_READ))
                    mark_answered(slack.runtime.engine, keys)
                return
            working = True
            _quietly(client.reactions_add, channel=job.channel, timestamp=job.ts, name="eyes")
            if job.is_dm and job.root == job.ts:  # a new conversation in the agent view: name it by its question
                _quietly(client.assistant_threads_setTitle, channel_id=job.channel, thread_ts=job.root, title=thread_title(text))
            _quietly(
                client.assistant_threads_setStatus,
                channel_id=job.channel,
                thread_ts=job.root,
                status=WORKING,
                loading_messages=list(LOADING),
            )
            history = thread_history(client, job.channel, job.root, job.ts, job.bot_user_id) if job.root != job.ts else []
            rule = slack.access.rule(job.channel, job.is_dm)
            origin = Origin(
                "slack",
                team=job.team,
                channel=job.channel,
                user_id=job.user,
                thread_ts=job.root,
                message_ts=job.ts,
                visibility=slack.visibility.of(client, job.channel, job.channel_type, job.is_dm),
            )
            started = lambda ts: _quietly_db(note_stream, slack.runtime.engine, replace(job, stream_ts=ts))
            streams = slack.streaming and slack.runtime.agent.claude and not job.stream_ts  # a taken-over half: replaced
            stream = SlackStream(client, job, on_start=started) if streams else None
            answer = slack.runtime.ask(
                text,
                history,
                collections=rule.collections,
                origin=origin,
                on_text=stream.append if stream else None,
                on_call=lambda call: _show_progress(client, job, call),
            )
            if not (stream and stream.finish(answer, notice, escalate=bool(rule.escalate_to))):
                messages = answer_messages(answer, notice, escalate=bool(rule.escalate_to))
                if job.stream_ts:  # a process that died mid-stream left a half answer: it becomes the whole one
                    messages = replace_half_answer(client, job, messages)
                for message in messages:
                    post(message)
            answered = True
            retrying(slack.db_retry_s)(mark_answered, slack.runtime.engine, keys)
            log.info(
                "%s %s/%s in %.0f ms (log %s)",
                answer.status,
                job.channel,
                job.ts,
                answer.latency_ms,
                answer.log_id,
                extra={
                    "event": "answered",
                    "status": answer.status,
                    "answerer": answer.answerer,
                    "log_id": answer.log_id,
                    "channel": job.channel,
                    "ts": job.ts,
                    "latency_ms": round(answer.latency_ms),
                },
            )
        except (IndexUnavailable, OperationalError) as e:  # the database went away mid-answer: say so, answer later
            if answered:  # the answer is in the thread: only its bookkeeping failed
                log.exception("answered %s/%s, but could not record it", job.channel, job.ts)
                return
            log.warning("answering %s/%s: the database is unavailable (%s); holding it", job.channel, job.ts, type(e).__name__)
            slack.hold(job, keys, claimed=True)
            try:
                post(plain_message(TROUBLE))
            except Exception:
                log.exception("could not post the trouble notice to %s", job.channel)
        except Exception:
            log.exception("answering %s/%s failed", job.channel, job.ts)
            try:
                post(reason_message(FAILED))
                mark_answered(slack.runtime.engine, keys)
            except Exception:
                log.exception("could not even post the failure reason to %s", job.channel)
        finally:
            if working:
                _quietly(client.reactions_remove, channel=job.channel, timestamp=job.ts, name="eyes")
                _quietly(client.assistant_threads_setStatus, channel_id=job.channel, thread_ts=job.root, status="")


def replace_half_answer(client: WebClient, job: Job, messages: list[dict]) -> list[dict]:
    """End the stream a dead process left and put the answer's first message in its place; the messages still to
    post (all of them if the half message could not be replaced)."""
    try:
        client.chat_stopStream(channel=job.channel, ts=job.stream_ts)
    except SlackApiError as e:  # already stopped, or expired: it can still be updated
        log.info("chat.stopStream of a taken-over answer in %s: %s", job.channel, e.response.get("error"))
    try:
        client.chat_update(channel=job.channel, ts=job.stream_ts, **messages[0])
    except SlackApiError as e:
        log.warning("could not replace the half-streamed answer in %s: %s", job.channel, e.response.get("error"))
        return messages
    return messages[1:]


def _quietly_db(write, *args) -> None:
    """Bookkeeping that helps a later takeover: its failure must not stop the answer."""
    try:
        write(*args)
    except Exception:
        log.warning("could not note the streamed message with its claim", exc_info=True)


FIRST_INDEX_POLL_S = 0.5


def wait_for_index(slack: Slack, post) -> bool:
    """Hold a question until this process serves a complete index, telling the asker once why it waits. True
    when it does; False if the process is stopping or the first sync outlasts SYNC_TIMEOUT_SECONDS."""
    runtime = slack.runtime
    if runtime.serves_an_index():
        return True
    progress = runtime.sync_progress
    post(plain_message(READING.format(progress=f" ({progress[0]:,} of {progress[1]:,} pages)" if progress else "")))
    deadline = time.monotonic() + runtime.settings.sync_timeout_seconds
    while not slack.stopping.wait(FIRST_INDEX_POLL_S):
        if runtime.serves_an_index():
            return True
        if time.monotonic() > deadline:
            log.error(
                "the first sync has not finished after %.0f s; a held question gets a reason",
                runtime.settings.sync_timeout_seconds,
            )
            return False
    return False


def recover(slack: Slack, client: WebClient) -> int:
    """Answer the messages whose claiming process died (or apologise for those past the horizon)."""
    done = 0
    for key, job, claimed_at in orphans(slack.runtime.engine):
        if slack.stopping.is_set():
            break
        if not take_over(slack.runtime.engine, key, slack.lease):
            continue  # another process was quicker
        log.info("taking over %s, claimed at %s by a process that stopped", key, claimed_at)
        if now() - as_utc(claimed_at) > slack.recovery_horizon:
            try:
                post_once(client, job, reason_message(LOST))
            except Exception:
                log.exception("could not apologise in %s", job.channel)
                continue
            mark_answered(slack.runtime.engine, [key])
        else:
            _work(slack, lambda job=job, key=key: answer_job(slack, client, job, [key]))
        done += 1
    return done


def progress_status(call) -> str | None:
    """What the loading status says while a tool runs: the search in its own words."""
    query = " ".join(str(call.input.get("query") or "").split())
    if call.name == "search_docs" and query:
        return f"is searching the docs for “{escape(query[:60])}{'…' if len(query) > 60 else ''}”…"
    return None


def _show_progress(client: WebClient, job: Job, call) -> None:
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
