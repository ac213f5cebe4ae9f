"""The status bar's line about dictation: a dot coloured by its state, and what the hotkey does now.

Rendered from the DictationHost at each change, and on a language or palette
switch. The line is a link: the window shows the Dictation page when it is
clicked.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QWidget

from ...dictation.states import DictationState
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
        unavailable = state is DictationState.IDLE and problem is not None  # only the Dictate button works
        key = hotkey_label(self.host.panel.settings.hotkey)
        text = {
            DictationState.OFF: self.tr("Dictation: waiting for the model"),
            DictationState.IDLE: self.tr("Dictation: press {0}").format(key),
            DictationState.LISTENING: self.tr("Dictation: listening…"),
            DictationState.TRANSCRIBING: self.tr("Dictation: transcribing…"),
        }[state]
        if unavailable:
            text = self.tr("Dictation: hotkey unavailable")
        link = self.palette().color(self.palette().ColorRole.WindowText).name()
        self.show_state(
            theme.dictation_color(state, self.palette(), problem=unavailable),
            f'<a href="dictation" style="color:{link}; text-decoration:none;">{html.escape(text)}</a>',
        )
        self.setToolTip(localized(problem) if problem else self.tr("Open the dictation page"))
