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
    events.py      DictationEvent: what the user should see
    live_vad.py    end of speech decided while a take runs
    takes.py       a finished take: WAV -> VAD -> transcribe -> history -> output
    recovery.py    WAVs a crash left without a history row
    controller.py  the take state machine: hotkey -> capture -> takes, on its threads

The Qt side is tingji.gui: qt_clipboard.QtClipboard, dictation_panel.DictationPanel.
"""

from .controller import DictationController
from .events import DictationEvent
from .history import DictationHistory, DictationTake
from .settings import DictationSettings

__all__ = ["DictationController", "DictationEvent", "DictationSettings", "DictationHistory", "DictationTake"]
