"""Which companion model a use loads: the one policy the CLI, the app's files and dictation share.

A recogniser that writes no punctuation is punctuated by a punctuation model
(family `ct-punc`), and speaker labels need a speaker model (`campplus`).
Whoever loads one asks here: the model named (an installed model's name or
a model folder, `--punctuation-model` / `--speaker-model`), else the
installed one of that family (the first by name), else none - then the
caller says so (the CLI refuses `--speakers` without one and warns about
punctuation; the engine's transcript warns when labels were asked of an
engine without a speaker model). Whether the model is loaded now (the CLI)
or when a file first asks (the app) is the caller's business; which model,
is this module's.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..engine.families import campplus, ct_punc
from .installed import first_of_family, resolve_model

PUNCTUATION = ct_punc.FAMILY
SPEAKERS = campplus.FAMILY


def companion_model(family: str, named: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder of the companion model of `family` a use loads; None: none named and none installed.

    Args:
        family: `PUNCTUATION` or `SPEAKERS` (a companion family).
        named: An installed model's name or a model folder the user chose; None: the installed one.

    Raises:
        ModelError: `named` is neither (its family is checked when it loads).
    """
    if named:
        return resolve_model(named)
    return first_of_family(family)


def punctuation_model(named: str | os.PathLike[str] | None = None) -> Path | None:
    """`companion_model(PUNCTUATION, named)`."""
    return companion_model(PUNCTUATION, named)


def speaker_model(named: str | os.PathLike[str] | None = None) -> Path | None:
    """`companion_model(SPEAKERS, named)`."""
    return companion_model(SPEAKERS, named)
