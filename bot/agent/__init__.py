"""The agent: a question in, a short cited answer (or an honest "the docs don't cover this") out."""

from bot.agent.answer import answer, choose_answerer
from bot.agent.types import Answer, Source

__all__ = ["Answer", "Source", "answer", "choose_answerer"]
