"""What dictation is doing: the one state enum the controller, the tray, the overlay, the theme and the pages read.

Imports nothing, so the GUI's shared modules (theme, tray) can name a state without the dictation package's
devices. The transitions between these states are coordinator.py's table.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["DictationState"]


class DictationState(Enum):
    """A dictation session's state, as a user sees it.

    OFF           no session: no model to dictate with yet, or the controller was closed
    IDLE          ready: the hotkey or the Dictate button starts a take
    LISTENING     a take is recording (earlier takes may still be transcribed meanwhile)
    TRANSCRIBING  nothing records, a finished take is being recognised and inserted
    """

    OFF = "off"
    IDLE = "idle"
    LISTENING = "listening"
    TRANSCRIBING = "transcribing"
