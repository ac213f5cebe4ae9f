"""Live microphone dictation into any application. Imports no Qt.

    hotkey.py      the hotkey: "ctrl+alt+space" parsing, exact-combination matching, resynchronising
    global_hotkey.py  the system-wide pynput listener that feeds the matcher
    keystate.py    the system's own key state, which the matcher resynchronises with (lost key-ups)
    capture.py     the Microphone: stream on demand, take boundaries, device errors
    devices.py     PortAudio devices: open at the native format, re-scan, playback
    resample.py    device blocks -> 16 kHz mono, pre-roll ring buffer
    output.py      paste (clipboard saved and restored) or typing into the focused application
    history.py     SQLite history of takes with their WAV recordings, retention, crash leftovers
    settings.py    DictationSettings: validation, the tolerant parser of the stored settings
    states.py      DictationState: the one state enum (the controller, tray, overlay, theme, pages)
    commands.py    what the coordinator is told: one frozen class per Trigger
    coordinator.py the state machine: (state, trigger) -> action and next state, as one table
    events.py      what the user should see: one frozen class per EventKind
    live_vad.py    end of speech decided while a take runs
    recording.py   TakeRecorder: the take being recorded (live VAD, level, preview feed, the end it asks for)
    engine_api.py  what dictation needs from the engine (protocols)
    takes.py       a finished take: WAV -> VAD -> transcribe -> history -> output, on TakeWorker's thread
    recovery.py    WAVs a crash left without a history row
    controller.py  runs a session: hotkey -> commands -> coordinator -> capture -> takes, on its threads

The Qt side is tingji.gui.dictation: qt_clipboard.QtClipboard, panel.DictationPanel.

The names below load on first use, so that `tingji.dictation.states` (which the GUI's theme and tray
read) or the coordinator can be imported without the devices the controller opens.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .controller import DictationController
    from .events import DictationEvent
    from .history import DictationHistory, DictationTake
    from .settings import DictationSettings

__all__ = ["DictationController", "DictationEvent", "DictationSettings", "DictationHistory", "DictationTake"]

_HOMES = {
    "DictationController": "controller",
    "DictationEvent": "events",
    "DictationHistory": "history",
    "DictationTake": "history",
    "DictationSettings": "settings",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOMES[name]}", __name__), name)
