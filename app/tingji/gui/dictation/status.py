"""The status bar's line about dictation: a dot coloured by its state, and what the hotkey does now.

Rendered from the DictationHost at each change, and on a language or palette
switch. The line is a link: the window shows the Dictation page when it is
clicked.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QWidget

from .. import theme
from ..errors import localized
from ..status_line import StatusLine
from .host import DictationHost
from .panel import hotkey_label


class DictationStatus(StatusLine):
    def __init__(self, host: DictationHost, parent: QWidget | None = None) -> None:
        self.host = host
        super().__init__("dictationState", host.stateChanged, parent)

    def refresh(self) -> None:
        state, problem = self.host.state, self.host.hotkey_problem
        state = "unavailable" if state == "idle" and problem else state
        key = hotkey_label(self.host.panel.settings.hotkey)
        text = {
            "waiting": self.tr("Dictation: waiting for the model"),
            "idle": self.tr("Dictation: press {0}").format(key),
            "unavailable": self.tr("Dictation: hotkey unavailable"),
            "listening": self.tr("Dictation: listening…"),
            "transcribing": self.tr("Dictation: transcribing…"),
        }.get(state, state)
        link = self.palette().color(self.palette().ColorRole.WindowText).name()
        self.show_state(
            theme.dictation_color(state, self.palette()),
            f'<a href="dictation" style="color:{link}; text-decoration:none;">{html.escape(text)}</a>',
        )
        self.setToolTip(localized(problem) if problem else self.tr("Open the dictation page"))
