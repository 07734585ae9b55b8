"""The weekly digest: the log's week (bot.logs.digest) written for Slack or the terminal, and posted to
REVIEW_DIGEST_CHANNEL once a week at REVIEW_DIGEST_AT in REVIEW_TIMEZONE, by one process however many serve."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlalchemy import Engine

from bot.logs.digest import Digest, digest
from bot.slack.claims import claim, forget, mark_answered
from bot.slack.mrkdwn import escape, one_line
from bot.slack.render import link_label
from kb.clock import now
from kb.errors import SupportbotError

log = logging.getLogger(__name__)

POST_WITHIN = timedelta(hours=24)  # a process that was down at the hour still posts later that day, not days late


class DigestError(SupportbotError, RuntimeError):
    pass


def due(at: tuple[int, time], zone: str, moment: datetime) -> str | None:
    """This week's digest, named by the day it is due, when `moment` is at or after its hour and within a day of
    it; else None."""
    local = moment.astimezone(ZoneInfo(zone))
    weekday, hour = at
    day = local.date() - timedelta(days=(local.weekday() - weekday) % 7)
    start = datetime.combine(day, hour, tzinfo=local.tzinfo)
    return day.isoformat() if start <= local < start + POST_WITHIN else None


@dataclass(frozen=True)
class Style:
    text: Callable[[str], str]
    link: Callable[[str, str], str]  # (url, label)
    bold: Callable[[str], str]


SLACK = Style(escape, lambda url, label: f"<{escape(url)}|{link_label(label)}>", lambda s: f"*{s}*")
PLAIN = Style(lambda s: s, lambda url, label: url, lambda s: s)  # a terminal shows the address; labels are Slack's


def _rate(part: int, whole: int) -> str:
    return f"{part} of {whole} ({part / whole:.0%})" if whole else "none"


def write(d: Digest, review_url: str | None, style: Style, zone: str = "UTC") -> str:
    """The digest as a message: each item linked to its review page when REVIEW_URL is set."""
    base = review_url.rstrip("/") if review_url else None

    def question(q_id: int, text: str) -> str:
        label = style.text(one_line(text, 90))
        return f"{label} ({style.link(f'{base}/questions/{q_id}', f'#{q_id}') if base else f'#{q_id}'})"

    def heading(title: str, path: str) -> str:
        return style.bold(title) + (f" · {style.link(base + path, 'review')}" if base else "")

    tz = ZoneInfo(zone)
    span = f"{d.since.astimezone(tz):%b %d} – {d.until.astimezone(tz):%b %d}"
    answered = d.by_status.get("answered", 0)
    rated = d.helpful + d.not_helpful
    helpful = f"helpful {d.helpful} of {rated} rated ({d.helpful / rated:.0%})." if rated else "no answer rated."
    lines = [
        heading(f"The docs' week, {span}", "/"),
        f"{d.asked} question{'' if d.asked == 1 else 's'}: answered {_rate(answered, d.asked)}, "
        f"not in the docs {d.by_status.get('abstained', 0)}, errors {d.by_status.get('error', 0)}; {helpful}",
        "",
        heading("Top gaps", "/gaps"),
    ]
    lines += [f"• {g.count}× {question(g.latest['id'], g.latest['question'])}" for g in d.gaps] or [
        "Every question was answered."
    ]
    lines += ["", heading(f"New stale answers ({d.stale_count})", "/stale")]
    lines += [f"• {question(s['id'], s['question'])}: {style.text(', '.join(s['paths']))} changed" for s in d.stale]
    lines += [] if d.stale else ["No docs change overtook an answer."]
    lines += ["", heading(f"Marked not helpful ({d.unhelpful_count})", "/questions?feedback=down")]
    for u in d.unhelpful:
        why = f": “{style.text(one_line(u['reason'], 160))}”" if u["reason"] else " (no reason given)"
        lines.append(f"• {question(u['id'], u['question'])}{why}")
    lines += [] if d.unhelpful else ["Nothing was marked not helpful."]
    return "\n".join(lines)


def post(engine: Engine, client: WebClient, channel: str, review_url: str | None, zone: str, days: int = 7) -> str:
    """Post the digest now; its message's ts."""
    text = write(digest(engine, days), review_url, SLACK, zone)
    try:
        return client.chat_postMessage(channel=channel, text=text, unfurl_links=False)["ts"]
    except SlackApiError as e:
        raise DigestError(f"Slack refused the digest in {channel}: {e.response.get('error')}") from None


def post_if_due(engine: Engine, client: WebClient, channel: str, review_url: str | None, zone: str, at: tuple[int, time]) -> bool:
    """The scheduled job: post this week's digest once, across processes and restarts (a claim per week)."""
    week = due(at, zone, now())
    if week is None:
        return False
    if not claim(engine, [f"digest:{week}"]):
        log.debug("the digest due %s is posted (or being posted) already", week)
        return False
    try:
        post(engine, client, channel, review_url, zone)
    except (DigestError, OSError) as e:
        forget(engine, [f"digest:{week}"])  # not posted: the next run tries again
        log.warning("weekly digest not posted: %s", e)
        return False
    mark_answered(engine, [f"digest:{week}"])
    log.info("weekly digest posted to %s", channel)
    return True
