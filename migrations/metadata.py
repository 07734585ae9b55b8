"""Every table the migrations manage, gathered so autogenerate and checks see them all."""

from kb.models import metadata as kb_metadata

target_metadata = [kb_metadata]
