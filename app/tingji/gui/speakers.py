"""Speaker labels as the app shows them: the choices' words, the default names in the UI's language, one
colour per speaker, and whether a speaker model is installed at all.

Shared by the Files page (the transcript view, the queue's per-file choice) and Settings.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QPalette

from ..engine.speakers.labels import DEFAULT_NAME
from . import theme

_DEFAULT = re.compile(re.escape(DEFAULT_NAME).replace(r"\{number\}", r"(\d+)"))

# One colour per speaker, by number (the 9th speaker takes the 1st's): hues far apart, each a dark shade
# for a light background and a light shade of the same hue for a dark one, both readable as text.
#                  light      dark
SPEAKER_COLORS = (
    ("#1f5fbf", "#8ab4ff"),  # blue
    ("#b3261e", "#ff8a80"),  # red
    ("#1e7d32", "#81c784"),  # green
    ("#8e24aa", "#d7a0e8"),  # purple
    ("#a85400", "#ffb74d"),  # orange
    ("#00796b", "#4dd0c4"),  # teal
    ("#ad1457", "#f48fb1"),  # pink
    ("#5d4037", "#c8b0a8"),  # brown
)


def speaker_color(speaker: int, palette: QPalette | None = None) -> QColor:
    """The colour of speaker number `speaker` (0-based) in the current light or dark palette."""
    light, dark = SPEAKER_COLORS[speaker % len(SPEAKER_COLORS)]
    return QColor(dark if theme.is_dark(palette) else light)


def speaker_name(name: str) -> str:
    """A speaker's name for a new transcript: the engine's "Speaker 2" in the UI's language; others as they are."""
    found = _DEFAULT.fullmatch(name)
    if found is None:
        return name
    return QCoreApplication.translate("Speakers", "Speaker {0}").format(found.group(1))


def choice_label(value: str) -> str:
    """ "off", "auto" or a count, in words."""
    if value == "off":
        return QCoreApplication.translate("Speakers", "Off")
    if value == "auto":
        return QCoreApplication.translate("Speakers", "Automatic (count found from the audio)")
    return QCoreApplication.translate("Speakers", "{0} speakers").format(value)


def no_model_reason() -> str:
    """Why speakers cannot be identified: one line."""
    return QCoreApplication.translate(
        "Speakers", "No speaker model is installed: add one in Manage models to identify speakers."
    )


def speakers_available() -> bool:
    """True when a speaker model is installed (the choice can be used)."""
    from ..models.companions import speaker_model

    return speaker_model() is not None
