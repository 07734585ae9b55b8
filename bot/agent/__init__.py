"""The agent: a question in, a short cited answer (or an honest "the docs don't cover this") out."""

from bot.agent.answer import Agent, Limits
from bot.agent.types import Answer, Source

__all__ = ["Agent", "Answer", "Limits", "Source"]
