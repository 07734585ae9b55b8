"""Answering one Slack message: claim it, show progress, ask, post in the thread, always say something."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import tenacity
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlalchemy.exc import OperationalError

from bot.agent.types import Answer
from bot.database import retrying
from bot.logs.store import Origin
from bot.metrics import CLAIMS, SLACK_ERRORS
from bot.slack.claims import Job, claim, keys_for, mark_answered, note_stream, orphans, reclaim, take_over
from bot.slack.context import Slack
from bot.slack.message import SlackMessage, thread_link, without_mention
from bot.slack.progress import showing_progress
from bot.slack.render import answer_messages, plain_message, reason_message
from bot.slack.said import asked
from bot.slack.streaming import SlackStream
from kb.chatter import is_chatter, thanked
from kb.clock import as_utc, now
from kb.errors import IndexUnavailable

log = logging.getLogger(__name__)

USAGE = "Ask me a question about our docs, for example: @{name} how long is the warranty?"
FOLLOW_UP = "Mention me (@{name}) in your reply to ask a follow-up: I only answer replies in this thread that do."
TEXT_ONLY = "I can only read text, not files or images. Please type your question."
WELCOME = "Glad to help. Ask me another question about our docs any time."
FAILED = "Sorry, something went wrong while I was answering. The bot's owner can find the details in the logs."
TROUBLE = "I'm having trouble reaching my database right now. I'll answer here as soon as I can."
LOST = "Sorry, I was restarted while answering this and it is now too old to pick up. Please ask again."
READING = "I'm reading the docs for the first time{progress}, I'll answer here in a moment."
NOT_READ = "I couldn't finish reading the docs, so I can't answer yet. The bot's owner can see why in the logs."


def thread_history(client: WebClient, channel: str, root: str, current_ts: str, bot_user_id: str | None) -> list[tuple[str, str]]:
    """Earlier messages of the thread as conversation turns; the bot's own posts are the assistant's."""
    try:
        replies: list[dict] = client.conversations_replies(channel=channel, ts=root, limit=50).get("messages", [])
    except SlackApiError as e:
        log.warning("conversations.replies failed in %s: %s", channel, e.response.get("error"))
        return []
    turns = []
    for m in replies:
        if m.get("ts") == current_ts:
            break
        role = "assistant" if (bot_user_id and m.get("user") == bot_user_id) or m.get("bot_id") else "user"
        text = asked(without_mention(m.get("text"), bot_user_id))
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
            _work(slack, partial(answer_job, slack, client, job, keys))
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
        replies: list[dict] = client.conversations_replies(channel=job.channel, ts=job.root, limit=200).get("messages", [])
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
    answered = False
    with slack.in_flight.track():
        try:
            text, notice = readable(slack, job)
            if not text:
                post(plain_message(notice or ""))
                mark_answered(slack.runtime.engine, keys)
                return
            if not wait_for_index(slack, post):
                if not slack.stopping.is_set():  # stopping: the claim is released, and another process answers
                    post(reason_message(NOT_READ))
                    mark_answered(slack.runtime.engine, keys)
                return
            rule = slack.access.rule(job.channel, job.is_dm)
            escalate = bool(rule.escalate_to)
            with showing_progress(client, job, text) as on_call:
                stream = _stream_for(slack, client, job)
                answer = ask(
                    slack, client, job, text, rule.collections, on_text=stream.append if stream else None, on_call=on_call
                )
                if not (stream and stream.finish(answer, notice, escalate=escalate)):
                    messages = answer_messages(answer, notice, escalate=escalate)
                    if job.stream_ts:  # a process that died mid-stream left a half answer: it becomes the whole one
                        messages = replace_half_answer(client, job, messages)
                    for message in messages:
                        post(message)
            answered = True
            retrying(slack.db_retry_s)(mark_answered, slack.runtime.engine, keys)
            log_answered(job, answer)
            slack.people.lookup(client, job.user)  # once per person and process: the review page says who asked
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


def readable(slack: Slack, job: Job) -> tuple[str, str | None]:
    """The question as it will be read, and a notice for the asker: (text, why it was cut), or ("", the hint) for
    a message with no question in it."""
    text = asked(job.text)
    if not text:
        return "", TEXT_ONLY if job.has_files else USAGE.format(name=slack.name)
    if is_chatter(text):  # "hi", "thanks!": no question for the docs, and no gap in them
        return "", WELCOME if thanked(text) else USAGE.format(name=slack.name)
    if len(text) > slack.max_chars:
        return text[: slack.max_chars], f"Your message was long, so I read only its first {slack.max_chars:,} characters."
    return text, None


def ask(slack: Slack, client: WebClient, job: Job, text: str, collections: list[str] | None, **callbacks) -> Answer:
    """The runtime's answer to the question, with the thread's earlier messages and the channel's collections."""
    history = thread_history(client, job.channel, job.root, job.ts, job.bot_user_id) if job.root != job.ts else []
    origin = Origin(
        "slack",
        team=job.team,
        channel=job.channel,
        user_id=job.user,
        thread_ts=job.root,
        message_ts=job.ts,
        visibility=slack.visibility.of(client, job.channel, job.channel_type, job.is_dm),
        permalink=None if job.is_dm else thread_link(slack.workspace_url, job.channel, job.ts, job.root),
    )
    return slack.runtime.ask(text, history, collections=collections, origin=origin, **callbacks)


def _stream_for(slack: Slack, client: WebClient, job: Job) -> SlackStream | None:
    """A stream into the thread for Claude's answers (a taken-over half answer is replaced instead)."""
    if not (slack.streaming and slack.runtime.agent.claude and not job.stream_ts):
        return None
    return SlackStream(
        client, job, on_start=lambda ts: _quietly_db(note_stream, slack.runtime.engine, replace(job, stream_ts=ts))
    )


def log_answered(job: Job, answer: Answer) -> None:
    """The line an operator reads for every answer (kept at INFO whatever LOG_LEVEL says: it has an event)."""
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


def replace_half_answer(client: WebClient, job: Job, messages: list[dict]) -> list[dict]:
    """End the stream a dead process left and put the answer's first message in its place; the messages still to
    post (all of them if the half message could not be replaced)."""
    if not job.stream_ts:
        return messages
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
            _work(slack, partial(answer_job, slack, client, job, [key]))
        done += 1
    return done
