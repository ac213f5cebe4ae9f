"""A line in the status bar: a dot coloured by a state, then rich text. Its subclasses say what.

The line is rendered again by `refresh()` whenever what it shows changes (the
signal given) and on a language or palette switch, so that its
words and colours always match the app's.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, SignalInstance
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QWidget

from . import theme


class StatusLine(QLabel):
    def __init__(self, name: str, changed: SignalInstance, parent: QWidget | None = None) -> None:
        """`name`: the object name (tests and style sheets find the line by it); `changed`: the signal
        after which the line is rendered again. The line is rendered here the first time, so a subclass
        sets what `refresh()` reads before it calls this."""
        super().__init__(parent)
        self.setObjectName(name)
        self.setTextFormat(Qt.TextFormat.RichText)
        changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Render the line from what it follows (each subclass)."""

    def show_state(self, color: QColor, text: str) -> None:
        """The dot in `color`, then `text` (rich text)."""
        self.setText(f'<span style="color:{color.name()}; font-size:14pt;">●</span>&nbsp;{text}')

    def changeEvent(self, event: QEvent) -> None:
        theme.follow(event, self.refresh, self.refresh)
        super().changeEvent(event)
