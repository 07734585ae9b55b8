"""The agent: a question in, a short cited answer (or an honest "the docs don't cover this") out.

Import from the modules themselves (`bot.agent.answer`, `bot.agent.types`): this package imports nothing, so
a command that only reads the logs never loads the Anthropic SDK.
"""
