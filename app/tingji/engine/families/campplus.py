"""The `campplus` family: a speaker model (engine/speakers), not a speech recogniser.

It is a model folder like the others - listed, verified and removed by the
model manager - so it has a place here; loading it as an Engine's model is
refused with one line saying what it is for.
"""

from __future__ import annotations

from ...errors import ModelError
from .. import messages
from ..frontend import FrontendConfig
from ..manifest import Manifest
from ..speakers.model import SpeakerSection
from .base import LoadOptions

FAMILY = "campplus"
FILE_ROLES = ("embedder", "embedder_fixed", "embedder_data")
REQUIRED_FILES = ("embedder",)
FRONTEND = FrontendConfig
SECTION = SpeakerSection


def load(manifest: Manifest, options: LoadOptions):
    raise ModelError(messages.SPEAKER_MODEL_NOT_ASR, folder=manifest.folder)
