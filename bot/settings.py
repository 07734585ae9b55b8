"""Every setting, read from the environment and `.env` (documented in .env.example)."""

from __future__ import annotations

import os
import re
import tempfile
from datetime import time
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.agent.types import Limits
from kb.errors import SupportbotError

TEAM_ANSWER_DAYS = 180  # a published team answer is due for review after this many days

SAMPLE_DOCS = Path(__file__).parent / "sample_docs"
SAMPLE_EVAL = Path(__file__).parent / "sample_eval.yaml"


def default_cache() -> Path:
    """Where a large index is kept between starts: $XDG_CACHE_HOME/supportbot, else ~/.cache/supportbot, else (a
    user with no home directory, as some containers run) the temporary folder's supportbot."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no HOME and no password entry: settings must still load
            base = tempfile.gettempdir()
    return Path(base) / "supportbot"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True)

    # Knowledge base
    docs_dir: Path = Field(SAMPLE_DOCS, alias="DOCS_DIR")
    database_url: str = Field("sqlite:///supportbot.db", alias="DATABASE_URL")
    docs_base_url: str | None = Field(None, alias="DOCS_BASE_URL")
    docs_source_url: str | None = Field(None, alias="DOCS_SOURCE_URL")
    docs_anchor_style: str | None = Field(None, alias="DOCS_ANCHOR_STYLE")  # kb.anchors.STYLES
    docs_git_url: str | None = Field(None, alias="DOCS_GIT_URL")
    docs_git_branch: str = Field("main", alias="DOCS_GIT_BRANCH")
    docs_git_subdir: str = Field("", alias="DOCS_GIT_SUBDIR")
    docs_git_checkout: Path = Field(Path("docs-checkout"), alias="DOCS_GIT_CHECKOUT")
    sync_interval_minutes: float = Field(30, alias="SYNC_INTERVAL_MINUTES", gt=0)
    sync_memory_mb: float = Field(4096, alias="SYNC_MEMORY_MB", gt=0)
    sync_timeout_seconds: float = Field(1800, alias="SYNC_TIMEOUT_SECONDS", gt=0)
    max_file_bytes: int = Field(2 * 1024 * 1024, alias="DOCS_MAX_FILE_BYTES", gt=0)
    search_min_score: float | None = Field(None, alias="SEARCH_MIN_SCORE", ge=0)
    search_mode: Literal["rerank", "hybrid", "bm25"] = Field("rerank", alias="SEARCH_MODE")
    index_snapshot_dir: Path | None = Field(default_factory=lambda: default_cache() / "index", alias="INDEX_SNAPSHOT_DIR")

    # The model
    anthropic_api_key: SecretStr | None = Field(None, alias="ANTHROPIC_API_KEY")
    anthropic_model: str = Field("claude-haiku-4-5", alias="ANTHROPIC_MODEL")
    anthropic_base_url: str | None = Field(None, alias="ANTHROPIC_BASE_URL")
    anthropic_timeout_s: float = Field(60, alias="ANTHROPIC_TIMEOUT_SECONDS", gt=0)
    anthropic_max_retries: int = Field(2, alias="ANTHROPIC_MAX_RETRIES", ge=0)
    max_searches: int = Field(Limits.max_searches, alias="AGENT_MAX_SEARCHES", ge=1)
    max_turns: int = Field(Limits.max_turns, alias="AGENT_MAX_TURNS", ge=1)
    answer_fallback: Literal["local", "none"] = Field("local", alias="ANSWER_FALLBACK")

    # Slack
    slack_bot_token: SecretStr | None = Field(None, alias="SLACK_BOT_TOKEN")
    slack_app_token: SecretStr | None = Field(None, alias="SLACK_APP_TOKEN")
    slack_signing_secret: SecretStr | None = Field(None, alias="SLACK_SIGNING_SECRET")
    slack_api_url: str = Field("https://slack.com/api/", alias="SLACK_API_URL")
    slack_timeout_seconds: float = Field(30, alias="SLACK_TIMEOUT_SECONDS", ge=1)
    slack_workers: int = Field(16, alias="SLACK_WORKERS", ge=1)
    slack_channels_file: Path | None = Field(None, alias="SLACK_CHANNELS_FILE")
    slack_max_question_chars: int = Field(2000, alias="SLACK_MAX_QUESTION_CHARS", ge=50)
    slack_answer_bots: bool = Field(False, alias="SLACK_ANSWER_BOTS")
    slack_escalation_channel: str | None = Field(None, alias="SLACK_ESCALATION_CHANNEL", pattern=r"^[A-Z0-9]{2,30}$")
    slack_escalation_mention: str | None = Field(None, alias="SLACK_ESCALATION_MENTION", pattern=r"^S[A-Z0-9]{1,29}$")
    slack_claim_lease_seconds: float = Field(30, alias="SLACK_CLAIM_LEASE_SECONDS", gt=0)
    answer_recovery_hours: float = Field(1, alias="ANSWER_RECOVERY_HOURS", ge=0)
    shutdown_grace_seconds: float = Field(20, alias="SHUTDOWN_GRACE_SECONDS", ge=0)
    db_retry_seconds: float = Field(10, alias="DB_RETRY_SECONDS", ge=0)
    slack_start_attempts: int = Field(5, alias="SLACK_START_ATTEMPTS", ge=1)
    slack_streaming: bool = Field(True, alias="SLACK_STREAMING")
    slack_suggested_prompts: Annotated[list[str], NoDecode] = Field(default_factory=list, alias="SLACK_SUGGESTED_PROMPTS")

    # Operations
    health_port: int | None = Field(None, alias="HEALTH_PORT", ge=1, le=65535)
    log_format: Literal["text", "json"] = Field("text", alias="LOG_FORMAT")

    # Review
    review_token: SecretStr | None = Field(None, alias="REVIEW_TOKEN")
    review_eval_file: Path = Field(Path("eval.yaml"), alias="REVIEW_EVAL_FILE")
    log_retention_days: int | None = Field(None, alias="LOG_RETENTION_DAYS", ge=1)
    review_timezone: str = Field("UTC", alias="REVIEW_TIMEZONE")
    review_url: str | None = Field(None, alias="REVIEW_URL")
    review_digest_channel: str | None = Field(None, alias="REVIEW_DIGEST_CHANNEL")
    review_digest_at: Annotated[tuple[int, time], NoDecode] = Field(
        (0, time(9, 0)), alias="REVIEW_DIGEST_AT"
    )  # weekday (0: Monday), time
    team_answer_days: int = Field(TEAM_ANSWER_DAYS, alias="TEAM_ANSWER_DAYS", ge=1, le=36_500)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO", alias="LOG_LEVEL")

    @field_validator("index_snapshot_dir", mode="before")
    @classmethod
    def _off(cls, value):
        """INDEX_SNAPSHOT_DIR=off (or empty): always read the index from the database at start."""
        return None if isinstance(value, str) and value.strip().lower() in ("", "off", "none") else value

    @field_validator("slack_suggested_prompts", mode="before")
    @classmethod
    def _prompts(cls, value):
        """Questions separated by '|' in the environment ("How long is the warranty?|How do I get a refund?")."""
        return [p.strip() for p in value.split("|") if p.strip()] if isinstance(value, str) else value

    @field_validator("review_timezone")
    @classmethod
    def _a_time_zone(cls, value: str) -> str:
        """An IANA time zone name ("Europe/Berlin"), checked at start rather than on the first page."""
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("must be a time zone name such as UTC or Europe/Berlin") from None
        return value

    @field_validator("docs_anchor_style")
    @classmethod
    def _a_site_generator(cls, value: str | None) -> str | None:
        """How the site behind DOCS_BASE_URL makes its pages' paths and heading anchors."""
        from kb.anchors import STYLES

        value = (value or "").strip().lower() or None
        if value is not None and value not in STYLES:
            raise ValueError(f"must be one of {', '.join(STYLES)} (the generator of the site at DOCS_BASE_URL)")
        return value

    @field_validator("review_url")
    @classmethod
    def _a_web_address(cls, value: str | None) -> str | None:
        """Where people open the review page: the digest links there."""
        if value and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError("must be the review page's address, such as https://supportbot.example.com")
        return value or None

    @field_validator("review_digest_at", mode="before")
    @classmethod
    def _a_weekday_and_time(cls, value):
        return parse_at(value) if isinstance(value, str) else value

    @field_validator("docs_git_subdir")
    @classmethod
    def _inside_the_repository(cls, value: str) -> str:
        """A folder of the repository: never absolute, never climbing out with '..'."""
        if value.startswith(("/", "\\")) or Path(value).is_absolute() or ".." in Path(value).parts:
            raise ValueError("must be a folder inside the docs repository, without '..' or a leading '/'")
        return value

    def __repr__(self) -> str:  # never print a secret, even by accident
        return f"Settings(database_url={self.database_url!r}, docs_dir={str(self.docs_dir)!r})"


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_AT = re.compile(r"^\s*(mon|tue|wed|thu|fri|sat|sun)[a-z]*\s+([01]?\d|2[0-3]):([0-5]\d)\s*$", re.IGNORECASE)


def parse_at(text: str) -> tuple[int, time]:
    """ "mon 09:00" -> (0, 09:00): a weekday and a time of day."""
    m = _AT.match(text)
    if not m:
        raise ValueError("must be a weekday and a time, such as 'mon 09:00'")
    return WEEKDAYS.index(m[1][:3].lower()), time(int(m[2]), int(m[3]))


class ConfigError(SupportbotError, ValueError):
    pass


def load_settings(**overrides) -> Settings:
    """The settings from the environment and .env (overrides: the command line's); a bad value is one line
    naming the setting."""
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as e:
        bad = e.errors()[0]
        name = ".".join(str(part) for part in bad["loc"]) or "a setting"
        field = Settings.model_fields.get(name)
        name = field.alias if field is not None and field.alias else name
        raise ConfigError(f"{name}: {bad['msg']} (got {bad.get('input')!r:.60})") from None


def secret(value: SecretStr | None) -> str:
    """A secret setting's value ("" when unset: the start-up checks have said so before anything uses it)."""
    return value.get_secret_value() if value is not None else ""
