"""Every table the migrations manage, gathered so autogenerate and checks see them all."""

import bot.logs.models  # noqa: F401  (their tables join the shared metadata)
import bot.slack.claims  # noqa: F401
from kb.models import metadata

target_metadata = metadata
