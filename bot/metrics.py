"""What an operator's Prometheus scrapes from /metrics: one registry, every series named here once."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from bot.agent.types import Answer

REGISTRY = CollectorRegistry()  # ours alone: no process or platform series from the default one

QUESTIONS = Counter(
    "supportbot_questions",
    "Questions answered, by how they ended and where they came from.",
    ["status", "source"],
    registry=REGISTRY,
)
ANSWER_SECONDS = Histogram(
    "supportbot_answer_seconds",
    "Time to make an answer (search, model, verification), by answerer.",
    ["answerer"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60),
    registry=REGISTRY,
)
SEARCH_SECONDS = Histogram(
    "supportbot_search_seconds",
    "Time of one search of the index.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1),
    registry=REGISTRY,
)
MODEL_CALLS = Counter("supportbot_model_calls", "Calls to the language model, by model.", ["model"], registry=REGISTRY)
MODEL_TOKENS = Counter(
    "supportbot_model_tokens",
    "Tokens the model read or wrote, by kind (input, output, cache_creation_input, cache_read_input).",
    ["kind"],
    registry=REGISTRY,
)
SYNC_RUNS = Counter("supportbot_sync_runs", "Scheduled syncs, by result (ok, failed, busy).", ["result"], registry=REGISTRY)
LAST_SYNC_SECONDS = Gauge("supportbot_last_sync_duration_seconds", "How long the last scheduled sync took.", registry=REGISTRY)
LAST_SYNC_TIME = Gauge(
    "supportbot_last_sync_timestamp_seconds", "When the last scheduled sync ended (Unix time).", registry=REGISTRY
)
LAST_SYNC_OK = Gauge("supportbot_last_sync_ok", "1 when the last scheduled sync succeeded, 0 when it failed.", registry=REGISTRY)
INDEX_VERSION = Gauge("supportbot_index_version", "The index version this process serves.", registry=REGISTRY)
INDEX_CHUNKS = Gauge("supportbot_index_chunks", "Chunks in the index this process serves.", registry=REGISTRY)
CLAIMS = Counter(
    "supportbot_claims", "Slack messages claimed for answering, by result (taken, duplicate).", ["result"], registry=REGISTRY
)
SLACK_ERRORS = Counter(
    "supportbot_slack_api_errors", "Slack Web API calls that failed, by method.", ["method"], registry=REGISTRY
)

MODEL_FAILURES = Counter(
    "supportbot_model_failures",
    "Questions the language model could not answer, by reason (busy, key, error, timeout, unreachable, malformed, too_long).",
    ["reason"],
    registry=REGISTRY,
)
FALLBACK_ANSWERS = Counter(
    "supportbot_fallback_answers",
    "Answers quoted from the docs by the local answerer because the model failed.",
    registry=REGISTRY,
)
FEEDBACK = Counter(
    "supportbot_feedback", "Votes on answers, by vote (up, down); a changed vote counts again.", ["vote"], registry=REGISTRY
)
ESCALATIONS = Counter(
    "supportbot_escalations",
    "'Ask a person' clicks, by outcome (handed_over, refused, no_channel, post_failed), and hand-overs marked resolved.",
    ["outcome"],
    registry=REGISTRY,
)
HANDOVER_FIRST_REPLY = Histogram(
    "supportbot_handover_first_reply_seconds",
    "Time from 'Ask a person' to a person's first reply in the hand-over thread.",
    buckets=(60, 300, 900, 1800, 3600, 4 * 3600, 8 * 3600, 24 * 3600, 3 * 24 * 3600),
    registry=REGISTRY,
)
ABSTENTIONS = Counter(
    "supportbot_abstentions",
    "Questions the docs did not answer, by channel: a channel ID for the first 50 channels seen, 'dm' for direct "
    "messages, 'other' after that, 'none' outside Slack.",
    ["channel"],
    registry=REGISTRY,
)
HEARTBEATS = Counter(
    "supportbot_heartbeats", "Renewals of this process's claims (a third of a lease apart): it is alive.", registry=REGISTRY
)
ANSWERS_IN_FLIGHT = Gauge(
    "supportbot_answers_in_flight", "Answers this process is making now (a stop waits for them).", registry=REGISTRY
)

MAX_CHANNEL_LABELS = 50  # Prometheus keeps a series per label value: the channels beyond these share one
_channels: set[str] = set()

_TOKEN_KINDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def channel_label(channel: str | None) -> str:
    if not channel:
        return "none"
    if channel.startswith("D"):
        return "dm"
    if channel in _channels or len(_channels) < MAX_CHANNEL_LABELS:
        _channels.add(channel)
        return channel
    return "other"


def observe_answer(answer: Answer, source: str, channel: str | None = None) -> None:
    QUESTIONS.labels(answer.status, source).inc()
    if answer.status == "abstained":
        ABSTENTIONS.labels(channel_label(channel)).inc()
    if answer.model_failure:
        MODEL_FAILURES.labels(answer.model_failure).inc()
    if any(p.kind == "model_fallback" for p in answer.problems):
        FALLBACK_ANSWERS.inc()
    ANSWER_SECONDS.labels(answer.answerer).observe(answer.latency_ms / 1000)
    for s in answer.searches:
        SEARCH_SECONDS.observe(s.ms / 1000)
    calls = answer.usage.get("calls", 0)
    if calls and answer.model:
        MODEL_CALLS.labels(answer.model).inc(calls)
    for kind in _TOKEN_KINDS:
        if answer.usage.get(kind):
            MODEL_TOKENS.labels(kind.removesuffix("_tokens")).inc(answer.usage[kind])
