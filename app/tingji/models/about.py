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

`download_mb` is approximate (what a user needs to know before starting a
download); the exact sizes, where known, are the files' own `size` fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.errors import ModelError
from ..engine.families import FAMILIES

# From the quickest to the slowest family on the same computer.
SPEEDS = ("fastest", "fast", "moderate", "slow")
# What a model suits best; the GUI has one phrase for each.
BEST_FOR = ("dictation", "drafts", "files", "hotwords", "languages", "accuracy", "ready-made")
_CODE = re.compile(r"^[a-z]{2,3}$")


@dataclass(frozen=True)
class ModelAbout:
    family: str  # the manifest family the installed model will have
    languages: tuple[str, ...]  # codes (tingji.engine.languages) it transcribes, in the order to show them
    speed: str  # one of SPEEDS
    best_for: tuple[str, ...]  # words of BEST_FOR
    download_mb: int | None = None  # approximate download size; None: not known before downloading
    rank: int = 100  # the picker's order, lowest first


def parse_about(where: Path, name: str, raw: Any) -> ModelAbout | None:
    """The entry's `"about"` object checked word by word (None when the entry has none)."""
    if raw is None:
        return None

    def bad(what: str) -> ModelError:
        return ModelError(f"{where}: model {name!r}: \"about\" {what}")

    if not isinstance(raw, dict):
        raise bad("is not an object")
    unknown = set(raw) - {"family", "languages", "speed", "best_for", "download_mb", "rank"}
    if unknown:
        raise bad(f"has unknown key(s) {', '.join(sorted(unknown))}")
    family = raw.get("family")
    if family not in FAMILIES:
        raise bad(f"names family {family!r}; known: {', '.join(sorted(FAMILIES))}")
    languages = raw.get("languages")
    if not isinstance(languages, list) or not languages or \
            not all(isinstance(c, str) and _CODE.match(c) for c in languages):
        raise bad("needs \"languages\": a list of language codes such as \"zh\"")
    speed = raw.get("speed")
    if speed not in SPEEDS:
        raise bad(f"speed {speed!r} is not one of {', '.join(SPEEDS)}")
    best_for = raw.get("best_for")
    if not isinstance(best_for, list) or not best_for or not all(b in BEST_FOR for b in best_for):
        raise bad(f"needs \"best_for\": a list of {', '.join(BEST_FOR)}")
    size = raw.get("download_mb")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
        raise bad(f"download_mb {size!r} is not a positive whole number")
    rank = raw.get("rank", 100)
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise bad(f"rank {rank!r} is not a whole number")
    return ModelAbout(family=family, languages=tuple(dict.fromkeys(languages)), speed=speed,
                      best_for=tuple(dict.fromkeys(best_for)), download_mb=size, rank=rank)
