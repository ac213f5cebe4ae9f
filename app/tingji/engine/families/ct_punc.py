"""The `ct-punc` family: a punctuation model (engine/punctuation.py), not a speech recogniser.

It is a model folder like the others - listed, verified and removed by the
model manager - so it has a place here; loading it as the model of an
Engine is refused with one line saying what it is for.
"""

from __future__ import annotations

from ...errors import ModelError
from .. import messages
from ..manifest import Manifest
from .base import LoadOptions

FAMILY = "ct-punc"
FILE_ROLES = ("punc", "punc_data", "tokens")
REQUIRED_FILES = ("punc", "tokens")


def load(manifest: Manifest, options: LoadOptions):
    raise ModelError(messages.NOT_A_RECOGNIZER, folder=manifest.folder)
