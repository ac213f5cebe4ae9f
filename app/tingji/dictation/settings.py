"""Dictation settings: what the user can configure, validated before the controller uses them.

Stored as JSON in `data_dir()/dictation.json`; a file from an older or newer
version loads (unknown keys dropped, missing ones defaulted) rather than
failing, because losing a hotkey setting is worse than ignoring a new field.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..engine.errors import TingjiError
from ..paths import data_dir
from .hotkey import parse_hotkey
from .output import OUTPUT_MODES

MODES = ("hold", "toggle", "continuous")


@dataclass
class DictationSettings:
    """Everything the user can configure about dictation (JSON-serialisable)."""

    hotkey: str = "ctrl+alt+space"
    mode: str = "hold"
    output: str = "paste"                # "paste" (clipboard + Ctrl/Cmd+V) or "type"
    keep_mic_open: bool = False          # see capture.py for the trade-off
    device: str | None = None            # input device name; None = system default
    pre_roll_s: float = 0.5              # audio kept from before the take starts (>= 0.3 recommended)
    silence_s: float = 1.0               # toggle/continuous: this much silence after speech ends the take
    no_speech_timeout_s: float = 8.0     # toggle: give up when nothing is said for this long
    max_take_s: float = 300.0            # safety net for a stuck key
    vad_threshold: float = 0.5
    restore_delay_s: float = 0.5         # paste: wait before giving the old clipboard back
    keep_recordings: int | None = 200    # newest takes whose WAV is kept; None = all, 0 = none
    language: str | None = None
    hotwords: list[str] = field(default_factory=list)
    itn: bool = True

    def validate(self) -> "DictationSettings":
        """Raise TingjiError (one line) for a setting the controller cannot use."""
        parse_hotkey(self.hotkey)
        if self.mode not in MODES:
            raise TingjiError(f"dictation mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.output not in OUTPUT_MODES:
            raise TingjiError(f"dictation output must be one of {', '.join(OUTPUT_MODES)}, not {self.output!r}")
        for name in ("pre_roll_s", "silence_s", "no_speech_timeout_s", "max_take_s", "restore_delay_s"):
            if getattr(self, name) < 0:
                raise TingjiError(f"dictation setting {name} must not be negative")
        if self.silence_s < 0.2:
            raise TingjiError("dictation silence must be at least 0.2 s (the VAD decides every 32 ms)")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DictationSettings":
        """Unknown keys are ignored, missing ones take defaults (settings from older/newer versions)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in dict(data).items() if k in names})

    @classmethod
    def load(cls, path: str | Path | None = None) -> "DictationSettings":
        path = Path(path) if path is not None else data_dir() / "dictation.json"
        try:
            return cls.from_dict(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, TypeError):
            return cls()

    def save(self, path: str | Path | None = None) -> None:
        path = Path(path) if path is not None else data_dir() / "dictation.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=2), "utf-8")
        tmp.replace(path)
