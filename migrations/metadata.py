"""Every table the migrations manage, gathered so autogenerate and checks see them all."""

import bot.logs.models  # noqa: F401  (its tables join the shared metadata)
from kb.models import metadata

target_metadata = metadata
