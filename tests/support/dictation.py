"""Stand-ins for what dictation reaches outside the process: the keystrokes sent to other applications."""

from __future__ import annotations

from tests.support.clipboard import MemoryClipboard
from tingji.dictation import messages
from tingji.dictation.output import OutputError


class Keys:
    """The keystrokes dictation sends to other applications, recorded (`fail` makes a paste fail)."""

    def __init__(self, clipboard: MemoryClipboard) -> None:
        self.clipboard = clipboard
        self.pasted: list[str] = []
        self.fail = False

    def paste(self) -> None:
        if self.fail:
            raise OutputError(messages.CANNOT_SEND_KEYS, reason="no X display")
        self.pasted.append(self.clipboard.text())

    def type_text(self, text: str) -> None:
        self.pasted.append(text)
