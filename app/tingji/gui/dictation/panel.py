"""The dictation page: a Dictate button, what dictation is doing, the history, and the settings box
(settings_form.DictationSettingsForm, `panel.form`), whose edits the page applies and passes on.

Embedding (the app does this through `gui.dictation.host.DictationHost`):

    panel = DictationPanel(history, settings)
    controller = DictationController(engine, settings, history=history,
                                     clipboard=QtClipboard(), on_event=panel.bridge.post)
    panel.attach(controller)          # events, record button, settings changes
    panel.settingsChanged.connect(save)
    controller.start()
    ...
    panel.detach(); controller.close()

The panel works without a controller too (browse, play, copy the history),
which is what it shows while the speech model loads.

Every text it shows is kept as a key or as the error itself (its code) and
rendered in `retranslate()`, so a language switch changes the whole page at
once, including the status line.

`DictationBridge` turns controller events (from any thread) into a Qt
signal delivered on the GUI thread. The clipboard the controller pastes
through is tingji.gui.dictation.qt_clipboard.QtClipboard.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...dictation.controller import DictationController
from ...dictation.events import DictationEvent, HotkeyStatus, NothingSaid, Problem, StateChanged, TakeStored
from ...dictation.history import DictationHistory, DictationTake
from ...dictation.settings import DictationSettings
from ...dictation.states import DictationState
from ...errors import ErrorReport, TingjiError
from .. import icons, theme
from ..errors import localized, stored_report
from .history_table import RowAction, fill_history, history_table, row_buttons
from .settings_form import DictationSettingsForm

__all__ = ["DictationBridge", "DictationPanel", "hotkey_label"]


def hotkey_label(hotkey: str) -> str:
    """ "ctrl+alt+space" -> "Ctrl+Alt+Space", as keyboards and menus write it."""
    return "+".join(part if len(part) == 1 and not part.isalpha() else part.capitalize() for part in hotkey.split("+"))


class DictationBridge(QObject):
    """`post` is the controller's on_event; `event` fires on the GUI thread."""

    event = Signal(object)

    def post(self, event: DictationEvent) -> None:
        self.event.emit(event)  # queued automatically when emitted from another thread


class DictationPanel(QWidget):
    """Self-contained: works with only a history (browse/play/copy), fully once attach()ed to a controller."""

    settingsChanged = Signal(object)  # a validated DictationSettings

    def __init__(
        self,
        history: DictationHistory,
        settings: DictationSettings | None = None,
        parent: QWidget | None = None,
        *,
        play: Callable[[str], None] | None = None,
        limit: int = 200,
    ) -> None:
        super().__init__(parent)
        self.history = history
        self.controller: DictationController | None = None
        self.bridge = DictationBridge(self)
        self.bridge.event.connect(self._on_event)
        self._play = play
        self._limit = limit
        self._takes: list[DictationTake] = []
        self._state = DictationState.IDLE
        # What the status line says, rendered in the UI language at each `_render` (a language switch);
        # `_status_live`: it says the take's state, which the next StateChanged replaces.
        self._status: Callable[[], str] = lambda: self._state_texts()[DictationState.OFF]
        self._status_is_error = False
        self._status_live = False
        self._hotkey_problem: TingjiError | None = None
        self._closed = False
        self.form = DictationSettingsForm(settings or DictationSettings(), self)
        self.form.edited.connect(self._on_settings_edited)
        self.form.rejected.connect(self._show_error)
        self._build()
        self.retranslate()
        self.refresh()

    # -- public ----------------------------------------------------------------------------

    @property
    def settings(self) -> DictationSettings:
        """The dictation settings the page shows; set it when the app changed them (the next edit starts there)."""
        return self.form.settings

    @settings.setter
    def settings(self, value: DictationSettings) -> None:
        self.form.settings = value

    def attach(self, controller: DictationController) -> None:
        """Drive `controller` from this panel (it should use `self.bridge.post` as on_event)."""
        self.controller = controller
        if controller.on_event is None:
            controller.on_event = self.bridge.post
        self.record_button.setEnabled(True)
        self._state = controller.state
        self._say_state(DictationState.IDLE)
        self._show_hotkey(controller.hotkey_unavailable)

    def detach(self) -> None:
        """The controller is going (the model reloads, the app quits): back to browsing only."""
        self.controller = None
        self._state = DictationState.IDLE
        self.record_button.setEnabled(False)
        self._say_state(DictationState.OFF)

    def close_history(self) -> None:
        """The app is ending: close the history database; the page shows what it has until it goes."""
        self._closed = True
        self.history.close()

    def refresh(self) -> None:
        """Reload the history table."""
        if self._closed:
            return
        self._takes = self.history.recent(self._limit)
        fill_history(self.table, self._takes, self._row_buttons)
        self.empty_label.setVisible(not self._takes)

    def status_text(self) -> str:
        return self.status_label.text()

    # -- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        """The Dictate button and the lines about dictation on top; the history beside the settings below."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 6, 4, 4)
        self._build_header(layout)
        # Each nested layout goes into its installed parent before it is filled (gui/__init__.py on ownership).
        body = QHBoxLayout()
        layout.addLayout(body, 1)
        body.setSpacing(12)
        self._build_history(body)
        settings_column = QVBoxLayout()
        body.addLayout(settings_column)
        settings_column.addWidget(self.form)
        settings_column.addStretch(1)
        self.refresh_icons()

    def _build_header(self, layout: QVBoxLayout) -> None:
        """The Dictate button with the status line, the hint, dictation's model, the hotkey's problem."""
        top = QHBoxLayout()
        self.record_button = QPushButton(self)
        self.record_button.setObjectName("dictationRecord")
        self.record_button.setEnabled(False)
        self.record_button.setMinimumHeight(34)
        self.record_button.setMinimumWidth(120)
        self.record_button.clicked.connect(self._on_record)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("dictationStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.record_button)
        top.addSpacing(6)
        top.addWidget(self.status_label, 1)
        layout.addLayout(top)
        self.hint_label = QLabel(self)
        self.hint_label.setObjectName("dictationHint")
        self.hint_label.setWordWrap(True)
        layout.addWidget(self.hint_label)
        self.model_label = QLabel(self)  # which model dictation runs; its text comes from the host
        self.model_label.setObjectName("dictationModel")
        self.model_label.setTextFormat(Qt.TextFormat.RichText)
        self.model_label.setWordWrap(True)
        layout.addWidget(self.model_label)
        self.hotkey_label = QLabel(self)
        self.hotkey_label.setObjectName("dictationHotkeyStatus")
        self.hotkey_label.setWordWrap(True)
        self.hotkey_label.hide()
        layout.addWidget(self.hotkey_label)

    def _build_history(self, body: QHBoxLayout) -> None:
        """The takes, newest first, each with Play, Copy and Delete; a line in their place while there are none."""
        history = QVBoxLayout()
        body.addLayout(history, 1)
        self.history_title = QLabel(self)
        self.history_title.setObjectName("dictationHistoryTitle")
        history.addWidget(self.history_title)
        self.table = history_table(self)
        history.addWidget(self.table, 1)
        self.empty_label = QLabel(self)
        self.empty_label.setObjectName("dictationEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        history.addWidget(self.empty_label)

    def retranslate(self) -> None:
        self.history_title.setText(self.tr("History"))
        self.empty_label.setText(self.tr("Nothing dictated yet. What you dictate is kept here, with its recording."))
        self.table.setHorizontalHeaderLabels([self.tr("Time"), self.tr("Text"), ""])
        self._render()

    def refresh_icons(self) -> None:
        self.record_button.setIcon(
            icons.glyph("stop" if self._state is DictationState.LISTENING else "mic", self.palette())
        )
        self._render()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh()
        elif event.type() == QEvent.Type.PaletteChange:
            self.refresh_icons()
        super().changeEvent(event)

    def _row_buttons(self, take: DictationTake) -> QWidget:
        playable = self.history.recording_path(take) is not None
        actions: list[RowAction] = [
            ("dictationPlay", self.tr("Play"), "play", lambda _=False, t=take: self.play_take(t), playable),
            ("dictationCopy", self.tr("Copy"), "copy", lambda _=False, t=take: self.copy_take(t), True),
            ("dictationDelete", self.tr("Delete"), "remove", lambda _=False, t=take: self.delete_take(t), True),
        ]
        return row_buttons(self.table, actions, self.palette())

    # -- row actions ----------------------------------------------------------------------------

    def play_take(self, take: DictationTake) -> None:
        path = self.history.recording_path(take)
        if path is None:
            self._set_status(lambda: self.tr("The recording of this take was deleted."), error=True)
            return
        try:
            if self._play is not None:
                self._play(str(path))
            else:
                from ...dictation.devices import play_file

                play_file(str(path))
        except TingjiError as exc:
            self._show_error(exc)

    def copy_take(self, take: DictationTake) -> None:
        QGuiApplication.clipboard().setText(take.text)
        self._set_status(lambda: self.tr("Copied."))

    def delete_take(self, take: DictationTake) -> None:
        if take.id is not None:
            self.history.delete(take.id)
        self.refresh()

    # -- settings --------------------------------------------------------------------------------

    def _on_settings_edited(self, new: DictationSettings) -> None:
        """The form took a valid change: the controller gets it now, the app saves it."""
        if self.controller is not None:
            self.controller.apply_settings(new)
        self._render()
        self.settingsChanged.emit(new)

    # -- controller events -------------------------------------------------------------------------

    def _on_record(self) -> None:
        if self.controller is not None:
            self.controller.toggle()

    @Slot(object)
    def _on_event(self, event: DictationEvent) -> None:
        if self.controller is None:
            return  # the last words of a controller that was detached
        match event:
            case StateChanged(state=state):
                self._state = state
                if state is not DictationState.IDLE or self._status_live:  # but keep what a take's outcome said
                    self._say_state(state)
                self.refresh_icons()
            case TakeStored(take=take):
                self.refresh()
                if take.output == "failed":
                    self._show_error(stored_report(take.error, take.error_code))
                elif take.output in ("paste", "type"):
                    self._set_status(lambda: self.tr("Inserted: {0}").format(take.text))
            case NothingSaid():
                self._set_status(lambda: self.tr("Nothing was said."))
            case Problem(error=error):
                self._show_error(error)
            case HotkeyStatus(error=error):
                self._show_hotkey(error)

    # -- rendering -----------------------------------------------------------------------------------

    def _set_status(self, text: Callable[[], str], *, error: bool = False, live: bool = False) -> None:
        """Args:
        text: the status line in the UI language (called again after a language switch).
        error: it is a problem (shown in the alarm colour).
        live: it says the take's state.
        """
        self._status, self._status_is_error, self._status_live = text, error, live
        self._render()

    def _say_state(self, state: DictationState) -> None:
        live = state in (DictationState.LISTENING, DictationState.TRANSCRIBING)
        self._set_status(lambda: self._state_texts()[state], live=live)

    def _show_error(self, error: TingjiError | ErrorReport) -> None:
        self._set_status(lambda: localized(error), error=True)

    def _state_texts(self) -> dict[DictationState, str]:
        return {
            DictationState.OFF: self.tr("Dictation starts once the speech model is ready."),
            DictationState.IDLE: self.tr("Ready"),
            DictationState.LISTENING: self.tr("Listening… speak now"),
            DictationState.TRANSCRIBING: self.tr("Transcribing…"),
        }

    def _hint(self) -> str:
        key = hotkey_label(self.settings.hotkey)
        return {
            "hold": self.tr(
                "Hold {0} in any application and speak; let go and the text is inserted where your cursor is."
            ),
            "toggle": self.tr(
                "Press {0} in any application and speak; a pause ends the take and the text is "
                "inserted where your cursor is."
            ),
            "continuous": self.tr(
                "Press {0} to start listening; after each pause what you said is inserted "
                "where your cursor is. Press it again to stop."
            ),
        }.get(self.settings.mode, "").format(key)

    def _render(self) -> None:
        self.status_label.setText(self._status())
        listening = self._state is DictationState.LISTENING
        # A problem is as loud as a live microphone: the same red.
        color = theme.dictation_color(
            DictationState.LISTENING if self._status_is_error else self._state, self.palette()
        )
        weight = "600" if listening or self._status_is_error else "normal"
        colored = self._status_is_error or self._state in (DictationState.LISTENING, DictationState.TRANSCRIBING)
        self.status_label.setStyleSheet(f"color: {color.name()}; font-weight: {weight};" if colored else "")
        self.record_button.setText(self.tr("Stop") if listening else self.tr("Dictate"))
        self.hint_label.setText(self._hint())
        self.hint_label.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        if self._hotkey_problem:
            self.hotkey_label.setText(
                self.tr("{0}. Use the Dictate button instead.").format(localized(self._hotkey_problem))
            )
            color = theme.dictation_color(DictationState.IDLE, self.palette(), problem=True)
            self.hotkey_label.setStyleSheet(f"color: {color.name()};")
        self.hotkey_label.setVisible(bool(self._hotkey_problem))
        self.hint_label.setVisible(not self._hotkey_problem)

    def _show_hotkey(self, error: TingjiError | None) -> None:
        self._hotkey_problem = error
        self._render()
