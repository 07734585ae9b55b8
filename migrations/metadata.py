"""Every table the migrations manage, gathered so autogenerate and checks see them all."""

import bot.logs.models
import bot.slack.claims  # noqa: F401
from kb.models import metadata

target_metadata = metadata
