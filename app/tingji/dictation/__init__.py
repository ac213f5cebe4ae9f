"""Live microphone dictation into any application. Imports no Qt.

    hotkey.py      global hotkey: "ctrl+alt+space" parsing, exact-combination matching, pynput listener
    capture.py     microphone at its native format -> 16 kHz mono, pre-roll ring buffer, device errors
    output.py      paste (clipboard saved and restored) or typing into the focused application
    history.py     SQLite history of takes with their WAV recordings, retention, crash leftovers
    controller.py  the pipeline: hotkey -> capture -> Silero VAD -> engine -> output -> history

The Qt side (QtClipboard, DictationPanel) is tingji.gui.dictation_panel.
"""

from .controller import DictationController, DictationEvent, DictationSettings
from .history import DictationHistory, DictationTake

__all__ = ["DictationController", "DictationEvent", "DictationSettings", "DictationHistory", "DictationTake"]
