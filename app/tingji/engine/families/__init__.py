"""Model families: each turns one window of audio into text (see `base.py` for the contract).

A family is found by the manifest's "family" value in `FAMILIES`, which maps
it to the module that implements it. Modules are imported only when a model
of that family is loaded, so an engine for one family never pays for the
others' imports.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ...errors import ModelError
from .. import messages

# manifest "family" -> module implementing it (FAMILY, FILE_ROLES, REQUIRED_FILES, load).
FAMILIES: dict[str, str] = {
    "fun-asr-nano": "tingji.engine.families.fun_asr_nano",
    "sense-voice-small": "tingji.engine.families.sense_voice_small",
    "qwen3-asr": "tingji.engine.families.qwen3_asr",
    "paraformer": "tingji.engine.families.paraformer",
    "ct-punc": "tingji.engine.families.ct_punc",  # a punctuation model (engine/punctuation.py), no recogniser
    "campplus": "tingji.engine.families.campplus",  # a speaker model (engine/speakers), no recogniser
}


def family_module(family: str, where: object = "model") -> ModuleType:
    """The module of a known family; a one-line ModelError names the model and the family otherwise."""
    name = FAMILIES.get(family)
    if name is None:
        known = ", ".join(sorted(FAMILIES))
        raise ModelError(messages.UNKNOWN_FAMILY, where=where, family=family, known=known)
    return importlib.import_module(name)
