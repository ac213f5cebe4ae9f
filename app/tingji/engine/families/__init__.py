"""Model families: each turns one window of audio into text (see `base.py` for the contract).

A family is found by the manifest's "family" value in `FAMILIES`, which maps
it to the module that implements it; both come from the family's one declaration
in `kit.KITS`. Modules are imported only when a model
of that family is loaded, so an engine for one family never pays for the
others' imports.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ...errors import ModelError
from .. import messages
from .kit import KITS

# manifest "family" -> module implementing it (FAMILY, FILE_ROLES, REQUIRED_FILES, load), from the one declaration.
# ct-punc is a punctuation model (engine/punctuation.py) and campplus a speaker model (engine/speakers): listed and
# verified like the others, refused as an Engine's model.
FAMILIES: dict[str, str] = {f.name: f.module for f in KITS}


def family_module(family: str, where: object = "model") -> ModuleType:
    """The module of a known family; a one-line ModelError names the model and the family otherwise."""
    name = FAMILIES.get(family)
    if name is None:
        known = ", ".join(sorted(FAMILIES))
        raise ModelError(messages.UNKNOWN_FAMILY, where=where, family=family, known=known)
    return importlib.import_module(name)
