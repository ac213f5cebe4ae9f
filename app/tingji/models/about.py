"""What a catalog model is like, for choosing one: the `"about"` object of a catalog entry.

The first-run model picker shows each model's download size, languages,
speed class and what it is best for. Those facts belong to the model, so
they live in the catalog next to its download locations (and a catalog
override can correct them), not in the widgets. The catalog gives only
words from a fixed vocabulary (`SPEEDS`, `BEST_FOR`, language codes); the
GUI turns each into text in the user's language.

    "about": {"family": "sense-voice-small", "download_mb": 940,
              "languages": ["zh", "en", "yue", "ja", "ko"],
              "speed": "fastest", "best_for": ["dictation", "drafts"], "rank": 1}

A `"companion": true` model (the punctuation model) is not offered on its own:
the entries that need it name it in their `"companions"` and it is installed
with them.

`download_mb` is approximate (what a user needs to know before starting a
download); the exact sizes, where known, are the files' own `size` fields.
Where an entry's mirrors hold different copies (Fun-ASR-Nano's model.pt), it
is the size of the first mirror's, the copy an install takes when it can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.families import FAMILIES
from ..errors import Message, ModelError
from . import messages

# From the quickest to the slowest family on the same computer.
SPEEDS = ("fastest", "fast", "moderate", "slow")
# What a model suits best; the GUI has one phrase for each.
BEST_FOR = (
    "dictation",
    "drafts",
    "files",
    "hotwords",
    "languages",
    "accuracy",
    "ready-made",
    "timestamps",
    "punctuation",
)
_CODE = re.compile(r"^[a-z]{2,3}$")


@dataclass(frozen=True)
class ModelAbout:
    family: str  # the manifest family the installed model will have
    languages: tuple[str, ...]  # codes (tingji.engine.languages) it transcribes, in the order to show them
    speed: str  # one of SPEEDS
    best_for: tuple[str, ...]  # words of BEST_FOR
    download_mb: int | None = None  # approximate download size; None: not known before downloading
    rank: int = 100  # the picker's order, lowest first; also which installed model files run when none is named
    # Installed with the models that need it (a catalog entry's "companions"), never picked on its own:
    # the punctuation model of models that write none.
    companion: bool = False


def parse_about(where: Path, name: str, raw: Any) -> ModelAbout | None:
    """The entry's `"about"` object checked word by word (None when the entry has none)."""
    if raw is None:
        return None

    def bad(what: Message, **fields: object) -> ModelError:
        return ModelError(messages.ABOUT_INVALID, path=where, name=name, problem=ModelError(what, **fields))

    if not isinstance(raw, dict):
        raise bad(messages.ABOUT_NOT_OBJECT)
    unknown = set(raw) - {"family", "languages", "speed", "best_for", "download_mb", "rank", "companion"}
    if unknown:
        raise bad(messages.ABOUT_UNKNOWN_KEYS, keys=", ".join(sorted(unknown)))
    family = raw.get("family")
    if family not in FAMILIES:
        raise bad(messages.ABOUT_FAMILY, family=repr(family), known=", ".join(sorted(FAMILIES)))
    languages = raw.get("languages")
    if (
        not isinstance(languages, list)
        or not languages
        or not all(isinstance(c, str) and _CODE.match(c) for c in languages)
    ):
        raise bad(messages.ABOUT_LANGUAGES)
    speed = raw.get("speed")
    if speed not in SPEEDS:
        raise bad(messages.ABOUT_SPEED, speed=repr(speed), choices=", ".join(SPEEDS))
    best_for = raw.get("best_for")
    if not isinstance(best_for, list) or not best_for or not all(b in BEST_FOR for b in best_for):
        raise bad(messages.ABOUT_BEST_FOR, choices=", ".join(BEST_FOR))
    size = raw.get("download_mb")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
        raise bad(messages.ABOUT_DOWNLOAD_MB, value=repr(size))
    rank = raw.get("rank", 100)
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise bad(messages.ABOUT_RANK, value=repr(rank))
    companion = raw.get("companion", False)
    if not isinstance(companion, bool):
        raise bad(messages.ABOUT_COMPANION, value=repr(companion))
    return ModelAbout(
        family=family,
        languages=tuple(dict.fromkeys(languages)),
        speed=speed,
        best_for=tuple(dict.fromkeys(best_for)),
        download_mb=size,
        rank=rank,
        companion=companion,
    )
