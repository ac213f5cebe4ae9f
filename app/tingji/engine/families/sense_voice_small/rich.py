"""SenseVoice's "rich" side: the query rows it is conditioned on and the tags it answers with.

The model reads four embedding rows before the audio: the language (or
auto), an event query, an emotion query and text normalisation on or off.
At those four positions its CTC head emits tags such as
<|en|><|NEUTRAL|><|Speech|><|withitn|>; the text follows. The row numbers
are the reference's (`SenseVoiceSmall.lid_dict`, `textnorm_dict`, and rows 1
and 2 for the event and emotion queries); the converter writes them into
the manifest, where the engine reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...languages import NAMES
from ...schema import entry


@dataclass(frozen=True, kw_only=True)
class ItnRows:
    on: int = entry(14, min=0)
    off: int = entry(15, min=0)


@dataclass(frozen=True, kw_only=True)
class QueryRows:
    """The query rows (the manifest's `queries`); the defaults are funasr's SenseVoiceSmall numbering."""

    language: dict[str, int] = entry(
        factory=lambda: {"auto": 0, "zh": 3, "en": 4, "yue": 7, "ja": 11, "ko": 12, "nospeech": 13},
        keys=("auto",),
        min=0,
    )
    event: int = entry(1, min=0)
    emotion: int = entry(2, min=0)
    itn: ItnRows = ItnRows()


N_QUERIES = 4

_TAG = re.compile(r"<\|([^|<>]+)\|>")
EMOTIONS = {
    "HAPPY": "happy",
    "SAD": "sad",
    "ANGRY": "angry",
    "NEUTRAL": "neutral",
    "FEARFUL": "fearful",
    "DISGUSTED": "disgusted",
    "SURPRISED": "surprised",
    "EMO_UNKNOWN": "unknown",
}
EVENTS = {
    "Speech": "speech",
    "BGM": "bgm",
    "Applause": "applause",
    "Laughter": "laughter",
    "Cry": "cry",
    "Sneeze": "sneeze",
    "Breath": "breath",
    "Cough": "cough",
    "Sing": "sing",
    "Speech_Noise": "speech_noise",
    "Event_UNK": "unknown",
}
ITN_TAGS = {"withitn": True, "woitn": False}


def languages(rows: QueryRows) -> tuple[str, ...]:
    """The language codes the model can be told (its language rows other than auto and nospeech)."""
    return tuple(code for code in rows.language if code not in ("auto", "nospeech"))


def query_ids(rows: QueryRows, language: str | None, itn: bool) -> np.ndarray:
    """The [1, 4] query ids for a language code (None: auto) and an ITN choice."""
    lang = rows.language.get(language or "auto", rows.language["auto"])
    return np.array([[lang, rows.event, rows.emotion, rows.itn.on if itn else rows.itn.off]], np.int64)


def classify(piece: str) -> tuple[str, Any] | None:
    """(kind, value) for a tag piece - ("language", "en"), ("emotion", "happy"), ... - None for text.

    A <|...|> piece of unknown meaning is ("tag", name): still not text.
    """
    m = _TAG.fullmatch(piece)
    if m is None:
        return None
    name = m.group(1)
    if name in NAMES or name == "nospeech":
        return "language", name
    if name in EMOTIONS:
        return "emotion", EMOTIONS[name]
    if name in EVENTS:
        return "event", EVENTS[name]
    if name in ITN_TAGS:
        return "itn", ITN_TAGS[name]
    return "tag", name


@dataclass(frozen=True)
class RichTags:
    """What the model said at its query positions, as codes and plain words."""

    language: str | None = None  # a language code; None for <|nospeech|> or no language tag
    extras: dict[str, Any] = field(default_factory=dict)  # emotion, event; no_speech when it heard none


def read_tags(kinds: list[tuple[str, Any]]) -> RichTags:
    """The first tag of each kind among those emitted at the query positions."""
    first: dict[str, Any] = {}
    for kind, value in kinds:
        first.setdefault(kind, value)
    language = first.get("language")
    extras = {k: first[k] for k in ("emotion", "event") if k in first}
    if language == "nospeech":
        language, extras["no_speech"] = None, True
    return RichTags(language=language, extras=extras)
