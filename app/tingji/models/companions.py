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
is this module's. The same goes for the model that drafts for an LLM model
without a CTC head (`draft_model`: `--draft-model`, else an installed one that
can, `engine.draft_sources.DRAFTERS`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..engine.draft_sources import drafters_for, drafts_for
from ..engine.families import campplus, ct_punc
from ..engine.manifest import load_manifest
from ..errors import ModelError
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


def draft_model(family: str, named: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder of the model that drafts for a model of `family` (`engine.draft_sources`): the named one,
    else the first installed model of the first family that can draft for it, else None (no drafts).

    Args:
        family: The family of the model drafted for (e.g. `"qwen3-asr"`).
        named: An installed model's name or a model folder the user chose; None: an installed one.

    Raises:
        ModelError: `named` is neither (whether it can draft is checked when it loads).
    """
    if named:
        return resolve_model(named)
    for drafter in drafters_for(family):
        folder = first_of_family(drafter)
        try:
            if folder is not None and drafts_for(load_manifest(folder), family):
                return folder
        except ModelError:
            continue  # read when it was found; gone or broken since: the next family
    return None
