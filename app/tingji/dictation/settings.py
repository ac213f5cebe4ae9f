"""Dictation settings: what the user can configure, and the one parser that reads them.

They are stored in the app's one settings file (the `dictation` object of
`settings.json`, see tingji.gui.settings), which people edit by hand and which
a newer Tingji may have written. `DictationSettings.from_dict` therefore reads
it field by field: a value the controller cannot use falls back to that
field's default and is logged, unknown keys are ignored, and the result always
validates, because one bad value must never switch dictation off.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..errors import TingjiError
from . import messages
from .hotkey import parse_hotkey
from .output import OUTPUT_MODES

log = logging.getLogger(__name__)

MODES = ("hold", "toggle", "continuous")
OVERLAY_POSITIONS = ("bottom", "top", "off")  # where the floating overlay shows while dictating

# Seconds the controller waits or keeps; they must be finite and not negative.
_DURATIONS = ("pre_roll_s", "silence_s", "no_speech_timeout_s", "max_take_s", "restore_delay_s")
# Fields that may be None besides their usual type.
_OPTIONAL = frozenset({"device", "keep_recordings"})


@dataclass
class DictationSettings:
    """How dictation listens and where its text goes (JSON-serialisable).

    How a take is recognised (language, hotwords, ...) is not here: that is a
    `TranscribeOptions` given to the controller beside these, the same one the
    app's files use.
    """

    hotkey: str = "ctrl+alt+space"
    mode: str = "hold"
    output: str = "paste"  # "paste" (clipboard + Ctrl/Cmd+V) or "type"
    keep_mic_open: bool = False  # see capture.py for the trade-off
    device: str | None = None  # input device name; None = system default
    pre_roll_s: float = 0.5  # audio kept from before the take starts (>= 0.3 recommended)
    silence_s: float = 1.0  # toggle/continuous: this much silence after speech ends the take
    no_speech_timeout_s: float = 8.0  # toggle: give up when nothing is said for this long
    max_take_s: float = 300.0  # safety net for a stuck key
    vad_threshold: float = 0.5
    restore_delay_s: float = 0.5  # paste: wait before giving the old clipboard back
    keep_recordings: int | None = 200  # newest takes whose WAV is kept; None = all, 0 = none
    overlay: str = "bottom"  # OVERLAY_POSITIONS
    sounds: bool = False  # a short tone when a take starts and ends
    preview: bool = True  # re-transcribe the take while it records (shown, never pasted)

    def validate(self) -> DictationSettings:
        """Raise TingjiError (one line) for a setting the controller cannot use."""
        parse_hotkey(self.hotkey)
        if self.mode not in MODES:
            raise TingjiError(messages.BAD_MODE, choices=", ".join(MODES), value=repr(self.mode))
        if self.output not in OUTPUT_MODES:
            raise TingjiError(messages.BAD_OUTPUT, choices=", ".join(OUTPUT_MODES), value=repr(self.output))
        if self.overlay not in OVERLAY_POSITIONS:
            raise TingjiError(messages.BAD_OVERLAY, choices=", ".join(OVERLAY_POSITIONS), value=repr(self.overlay))
        for name in _DURATIONS:
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise TingjiError(messages.BAD_DURATION, name=name, value=repr(value))
        if self.silence_s < 0.2:
            raise TingjiError(messages.SILENCE_TOO_SHORT)
        if not 0.0 < self.vad_threshold < 1.0:
            raise TingjiError(messages.BAD_VAD_THRESHOLD, value=repr(self.vad_threshold))
        if self.keep_recordings is not None and self.keep_recordings < 0:
            raise TingjiError(messages.BAD_KEEP_RECORDINGS)
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> DictationSettings:
        """Read stored settings field by field; what cannot be used keeps its default (logged).

        Never raises: the result validates whatever `data` holds.
        """
        result = cls()
        if not isinstance(data, Mapping):
            if data is not None:
                log.warning("dictation settings: expected an object, not %r; using defaults", data)
            return result
        known = {f.name for f in fields(cls)}
        for key, value in data.items():
            if key not in known:
                continue  # written by a newer version, or a typo
            value, problem = _typed(key, value, getattr(result, key))
            if problem is None:
                trial = replace(result, **{key: value})
                try:
                    trial.validate()
                except TingjiError as exc:
                    problem = str(exc)
                else:
                    result = trial
                    continue
            log.warning("dictation settings: ignoring %s=%r (%s)", key, value, problem)
        return result


def _typed(key: str, value: Any, default: Any) -> tuple[Any, str | None]:
    """`value` in the field's own type, or the reason it is not one. JSON has no int/float
    distinction worth keeping, and a bool is not a number even though Python says so."""
    if value is None:
        return value, None if key in _OPTIONAL else "must not be null"
    if isinstance(default, bool):
        return value, None if isinstance(value, bool) else "expected true or false"
    if isinstance(value, bool):
        return value, "expected a number or text, not true/false"
    if isinstance(default, float):
        return (float(value), None) if isinstance(value, (int, float)) else (value, "expected a number")
    if key == "keep_recordings":
        return value, None if isinstance(value, int) else "expected a whole number or null"
    return value, None if isinstance(value, str) else "expected text"
