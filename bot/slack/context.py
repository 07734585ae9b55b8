"""What every Slack listener needs: the runtime, the channel rules and the settings that shape an answer, the
answers in flight (so a stopping process can wait for them) and the questions held while the database is away."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from bot.metrics import ANSWERS_IN_FLIGHT
from bot.runtime import Runtime
from bot.slack.access import Access
from bot.slack.claims import Job
from bot.slack.people import People
from bot.slack.visibility import ChannelVisibility


class InFlight:
    """How many answers are being made right now, so a stopping process can wait for them (and /metrics shows it)."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()

    @contextmanager
    def track(self):
        with self._idle:
            self._count += 1
            ANSWERS_IN_FLIGHT.inc()
        try:
            yield
        finally:
            with self._idle:
                self._count -= 1
                ANSWERS_IN_FLIGHT.dec()
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout)


@dataclass
class Slack:
    """What every listener needs (the Slack context, built once by bot.slack.app.build_app)."""

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
    workspace_url: str | None = None  # https://team.slack.com/ (auth.test): the log keeps each question's thread link
    people: People = field(default_factory=People)
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
