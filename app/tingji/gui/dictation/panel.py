"""The dictation page: a Dictate button, what dictation is doing, the history, the settings.

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

import time
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...dictation.controller import DictationController
from ...dictation.events import DictationEvent
from ...dictation.history import DictationHistory, DictationTake
from ...dictation.hotkey import HotkeyError, parse_hotkey
from ...dictation.output import OUTPUT_MODES
from ...dictation.settings import MODES, OVERLAY_POSITIONS, DictationSettings
from ...errors import ErrorReport, TingjiError
from .. import icons, theme
from ..errors import localized, localized_stored, stored_report
from .microphones import MicrophoneEntry, list_microphones

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
        self.settings = settings or DictationSettings()
        self.controller: DictationController | None = None
        self.bridge = DictationBridge(self)
        self.bridge.event.connect(self._on_event)
        self._play = play
        self._limit = limit
        self._takes: list[DictationTake] = []
        self._updating = False
        self._state = "idle"
        # What the status line says: ("key", name) for our own texts, ("error", a TingjiError or
        # ErrorReport, or an English line) for problems, ("take", text) after an insertion.
        self._status: tuple[str, object] = ("key", "waiting")
        self._status_is_error = False
        self._hotkey_problem: TingjiError | None = None
        self._closed = False
        self._devices_listed = False
        self._build()
        self._load_settings(self.settings)
        self.retranslate()
        self.refresh()

    # -- public ----------------------------------------------------------------------------

    def attach(self, controller: DictationController) -> None:
        """Drive `controller` from this panel (it should use `self.bridge.post` as on_event)."""
        self.controller = controller
        if controller.on_event is None:
            controller.on_event = self.bridge.post
        self.record_button.setEnabled(True)
        self._state = controller.state
        self._set_status("key", "ready")
        self._show_hotkey(controller.hotkey_unavailable)

    def detach(self) -> None:
        """The controller is going (the model reloads, the app quits): back to browsing only."""
        self.controller = None
        self._state = "idle"
        self.record_button.setEnabled(False)
        self._set_status("key", "waiting")
        self._render()

    def close_history(self) -> None:
        """The app is ending: close the history database; the page shows what it has until it goes."""
        self._closed = True
        self.history.close()

    def refresh(self) -> None:
        """Reload the history table."""
        if self._closed:
            return
        self._takes = self.history.recent(self._limit)
        table = self.table
        table.setRowCount(len(self._takes))
        today = time.strftime("%Y-%m-%d")
        for row, take in enumerate(self._takes):
            day = time.strftime("%Y-%m-%d", time.localtime(take.created))
            stamp = time.strftime("%H:%M:%S" if day == today else "%Y-%m-%d %H:%M", time.localtime(take.created))
            when = QTableWidgetItem(stamp)
            when.setToolTip(time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(take.created)))
            text = QTableWidgetItem(take.text)
            problem = localized_stored(take.error, take.error_code) if take.error else ""
            text.setToolTip(f"{take.text}\n\n{problem}" if problem else take.text)
            for item in (when, text):
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            table.setItem(row, 0, when)
            table.setItem(row, 1, text)
            table.setCellWidget(row, 2, self._row_buttons(take))
        table.resizeColumnToContents(0)
        table.resizeColumnToContents(2)
        self.empty_label.setVisible(not self._takes)

    def status_text(self) -> str:
        return self.status_label.text()

    def refresh_microphones(self) -> None:
        """Re-read the input devices into the Microphone list (keeps the chosen one)."""
        self._fill_devices(list_microphones())
        self._devices_listed = True

    def _fill_devices(self, entries: list[MicrophoneEntry]) -> None:
        self._updating = True
        try:
            combo = self.device_combo
            combo.clear()
            combo.addItem("", None)  # "System default", named in retranslate()
            for entry in entries:
                combo.addItem(entry.label, entry.value)
            wanted = self.settings.device
            if wanted and combo.findData(wanted) < 0:
                combo.addItem(wanted, wanted)  # saved, but not connected now
                combo.setItemData(combo.count() - 1, True, Qt.ItemDataRole.UserRole + 1)
            combo.setCurrentIndex(max(0, combo.findData(wanted)) if wanted else 0)
            self._name_devices()
        finally:
            self._updating = False

    # -- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 6, 4, 4)
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

        body = QHBoxLayout()
        body.setSpacing(12)
        history = QVBoxLayout()
        self.history_title = QLabel(self)
        self.history_title.setObjectName("dictationHistoryTitle")
        history.addWidget(self.history_title)
        self.table = QTableWidget(0, 3, self)
        self.table.setObjectName("dictationHistory")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setHighlightSections(False)
        history.addWidget(self.table, 1)
        self.empty_label = QLabel(self)
        self.empty_label.setObjectName("dictationEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        history.addWidget(self.empty_label)
        body.addLayout(history, 1)

        self.settings_box = QGroupBox(self)
        self.settings_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        form = QFormLayout(self.settings_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.hotkey_edit = QLineEdit(self.settings_box)
        self.hotkey_edit.setObjectName("dictationHotkey")
        self.hotkey_edit.editingFinished.connect(self._on_settings_edited)
        self.hotkey_error = QLabel(self.settings_box)
        self.hotkey_error.setObjectName("dictationHotkeyError")
        self.hotkey_error.setWordWrap(True)
        self.hotkey_error.hide()
        self.mode_combo = QComboBox(self.settings_box)
        self.mode_combo.setObjectName("dictationMode")
        for key in MODES:
            self.mode_combo.addItem("", key)
        self.output_combo = QComboBox(self.settings_box)
        self.output_combo.setObjectName("dictationOutput")
        for key in OUTPUT_MODES:
            self.output_combo.addItem("", key)
        self.device_combo = QComboBox(self.settings_box)
        self.device_combo.setObjectName("dictationDevice")
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(16)
        self.keep_open_check = QCheckBox(self.settings_box)
        self.keep_open_check.setObjectName("dictationKeepOpen")
        self.pre_roll_spin = QSpinBox(self.settings_box)
        self.pre_roll_spin.setRange(0, 3000)
        self.pre_roll_spin.setSingleStep(100)
        self.pre_roll_spin.setSuffix(" ms")
        self.silence_spin = QDoubleSpinBox(self.settings_box)
        self.silence_spin.setObjectName("dictationSilence")
        self.silence_spin.setRange(0.2, 10.0)
        self.silence_spin.setSingleStep(0.1)
        self.silence_spin.setSuffix(" s")
        self.keep_spin = QSpinBox(self.settings_box)
        self.keep_spin.setRange(-1, 100000)
        self.keep_spin.setObjectName("dictationKeepRecordings")
        self._build_overlay_settings()
        for w in (self.mode_combo, self.output_combo, self.device_combo, self.overlay_combo):
            w.currentIndexChanged.connect(self._on_settings_edited)
        for check in (self.keep_open_check, self.sounds_check, self.preview_check):
            check.toggled.connect(self._on_settings_edited)
        for w in (self.pre_roll_spin, self.silence_spin, self.keep_spin):
            w.valueChanged.connect(self._on_settings_edited)
        rows = (
            self.hotkey_edit,
            self.mode_combo,
            self.output_combo,
            self.device_combo,
            self.keep_open_check,
            self.silence_spin,
            self.pre_roll_spin,
            self.keep_spin,
            self.overlay_combo,
            self.preview_check,
            self.sounds_check,
        )
        self._form_labels = [QLabel(self.settings_box) for _ in rows]
        for label, widget in zip(self._form_labels, rows):
            form.addRow(label, widget)
            if widget is self.hotkey_edit:
                form.addRow("", self.hotkey_error)
            elif widget is self.overlay_combo:
                form.addRow("", self.overlay_note)
            elif widget is self.preview_check:
                form.addRow("", self.preview_note)
        settings_column = QVBoxLayout()
        settings_column.addWidget(self.settings_box)
        settings_column.addStretch(1)
        body.addLayout(settings_column)
        layout.addLayout(body, 1)
        self.refresh_icons()

    def _build_overlay_settings(self) -> None:
        """The overlay's position, the live preview (and the model it uses) and the start/stop sounds."""
        box = self.settings_box
        self.overlay_combo = QComboBox(box)
        self.overlay_combo.setObjectName("dictationOverlay")
        for key in OVERLAY_POSITIONS:
            self.overlay_combo.addItem("", key)
        self.overlay_note = QLabel(box)  # only where no window can float over others (Wayland)
        self.overlay_note.setObjectName("dictationOverlayNote")
        self.overlay_note.setWordWrap(True)
        self.overlay_note.hide()
        self.preview_check = QCheckBox(box)
        self.preview_check.setObjectName("dictationPreview")
        self.preview_note = QLabel(box)  # which model previews: the host names it
        self.preview_note.setObjectName("dictationPreviewModel")
        self.preview_note.setWordWrap(True)
        self.sounds_check = QCheckBox(box)
        self.sounds_check.setObjectName("dictationSounds")

    def show_overlay_unsupported(self, unsupported: bool) -> None:
        """Say (once, in the settings) that this desktop cannot float the overlay; the tray shows the state."""
        self.overlay_note.setVisible(unsupported)
        self.overlay_combo.setEnabled(not unsupported)

    def retranslate(self) -> None:
        self.settings_box.setTitle(self.tr("Dictation settings"))
        self.history_title.setText(self.tr("History"))
        self.empty_label.setText(self.tr("Nothing dictated yet. What you dictate is kept here, with its recording."))
        self.table.setHorizontalHeaderLabels([self.tr("Time"), self.tr("Text"), ""])
        for label, text in zip(
            self._form_labels,
            (
                self.tr("Hotkey"),
                self.tr("Mode"),
                self.tr("Insert by"),
                self.tr("Microphone"),
                "",
                self.tr("Silence ends take"),
                self.tr("Pre-roll"),
                self.tr("Keep recordings"),
                self.tr("Overlay"),
                "",
                "",
            ),
        ):
            label.setText(text)
        labels = {
            "hold": self.tr("Hold to talk"),
            "toggle": self.tr("Press to start, pause to stop"),
            "continuous": self.tr("Continuous (press to start and stop)"),
        }
        for i in range(self.mode_combo.count()):
            self.mode_combo.setItemText(i, labels[self.mode_combo.itemData(i)])
        outputs = {"paste": self.tr("Paste (clipboard restored afterwards)"), "type": self.tr("Type the characters")}
        for i in range(self.output_combo.count()):
            self.output_combo.setItemText(i, outputs[self.output_combo.itemData(i)])
        self._name_devices()
        positions = {
            "bottom": self.tr("Bottom of the screen"),
            "top": self.tr("Top of the screen"),
            "off": self.tr("Off (the tray icon shows the state)"),
        }
        for i in range(self.overlay_combo.count()):
            self.overlay_combo.setItemText(i, positions[self.overlay_combo.itemData(i)])
        self.overlay_note.setText(
            self.tr(
                "This desktop (Wayland) does not let an application float a window over others: "
                "the tray icon shows what dictation is doing instead."
            )
        )
        self.preview_check.setText(self.tr("Show the words while I speak (live preview, never pasted)"))
        self.sounds_check.setText(self.tr("Play a sound when a take starts and ends"))
        self.keep_open_check.setText(self.tr("Keep the microphone open between takes"))
        self.keep_open_check.setToolTip(
            self.tr("The first word is never cut, but the system shows the microphone as in use all the time.")
        )
        self.silence_spin.setToolTip(self.tr("How long a pause ends a take (press-to-start and continuous modes)."))
        self.pre_roll_spin.setToolTip(self.tr("Audio kept from just before the take starts."))
        self.keep_spin.setSpecialValueText(self.tr("All"))
        self.keep_spin.setToolTip(
            self.tr("How many of the newest takes keep their recording; the text is always kept.")
        )
        self.hotkey_edit.setPlaceholderText("ctrl+alt+space")
        self.hotkey_edit.setToolTip(self.tr("Modifiers and one key, e.g. ctrl+alt+space or ctrl+shift+d"))
        self._render()

    def refresh_icons(self) -> None:
        self.record_button.setIcon(icons.glyph("stop" if self._state == "listening" else "mic", self.palette()))
        self._render()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        if not self._devices_listed:
            self.refresh_microphones()
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh()
        elif event.type() == QEvent.Type.PaletteChange:
            self.refresh_icons()
        super().changeEvent(event)

    def _name_devices(self) -> None:
        combo = self.device_combo
        for i in range(combo.count()):
            if combo.itemData(i) is None:
                combo.setItemText(i, self.tr("System default"))
            elif combo.itemData(i, Qt.ItemDataRole.UserRole + 1):
                combo.setItemText(i, self.tr("{0} (not connected)").format(combo.itemData(i)))

    def _row_buttons(self, take: DictationTake) -> QWidget:
        box = QWidget(self.table)
        row = QHBoxLayout(box)
        row.setContentsMargins(2, 0, 2, 0)
        row.setSpacing(2)
        buttons = (
            ("dictationPlay", self.tr("Play"), "play", lambda _=False, t=take: self.play_take(t)),
            ("dictationCopy", self.tr("Copy"), "copy", lambda _=False, t=take: self.copy_take(t)),
            ("dictationDelete", self.tr("Delete"), "remove", lambda _=False, t=take: self.delete_take(t)),
        )
        for name, text, glyph, slot in buttons:
            b = QToolButton(box)
            b.setObjectName(name)
            b.setText(text)
            b.setToolTip(text)
            b.setIcon(icons.glyph(glyph, self.palette()))
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setAutoRaise(True)
            b.clicked.connect(slot)
            row.addWidget(b)
            if name == "dictationPlay":
                b.setEnabled(self.history.recording_path(take) is not None)
        return box

    # -- row actions ----------------------------------------------------------------------------

    def play_take(self, take: DictationTake) -> None:
        path = self.history.recording_path(take)
        if path is None:
            self._set_status("key", "deleted", error=True)
            return
        try:
            if self._play is not None:
                self._play(str(path))
            else:
                from ...dictation.devices import play_file

                play_file(str(path))
        except TingjiError as exc:
            self._set_status("error", exc, error=True)

    def copy_take(self, take: DictationTake) -> None:
        QGuiApplication.clipboard().setText(take.text)
        self._set_status("key", "copied")

    def delete_take(self, take: DictationTake) -> None:
        if take.id is not None:
            self.history.delete(take.id)
        self.refresh()

    # -- settings --------------------------------------------------------------------------------

    def _load_settings(self, s: DictationSettings) -> None:
        self._updating = True
        try:
            self.hotkey_edit.setText(s.hotkey)
            self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(s.mode)))
            self.output_combo.setCurrentIndex(max(0, self.output_combo.findData(s.output)))
            self.keep_open_check.setChecked(s.keep_mic_open)
            self.pre_roll_spin.setValue(int(round(s.pre_roll_s * 1000)))
            self.silence_spin.setValue(s.silence_s)
            self.keep_spin.setValue(-1 if s.keep_recordings is None else s.keep_recordings)
            self.overlay_combo.setCurrentIndex(max(0, self.overlay_combo.findData(s.overlay)))
            self.preview_check.setChecked(s.preview)
            self.sounds_check.setChecked(s.sounds)
        finally:
            self._updating = False
        # Only "System default" and the saved choice until the page is first shown: asking
        # PortAudio for the devices takes a moment that the app's start should not wait for.
        self._fill_devices([])

    def _on_settings_edited(self, *_: object) -> None:
        if self._updating:
            return
        hotkey = self.hotkey_edit.text().strip()
        try:
            hotkey = str(parse_hotkey(hotkey))
        except HotkeyError as exc:
            self.hotkey_error.setText(localized(exc))
            self.hotkey_error.show()
            return
        self.hotkey_error.hide()
        keep = self.keep_spin.value()
        device = self.device_combo.currentData()
        new = replace(
            self.settings,
            hotkey=hotkey,
            mode=self.mode_combo.currentData(),
            output=self.output_combo.currentData(),
            device=str(device) if device else None,
            keep_mic_open=self.keep_open_check.isChecked(),
            pre_roll_s=self.pre_roll_spin.value() / 1000,
            silence_s=round(self.silence_spin.value(), 2),
            keep_recordings=None if keep < 0 else keep,
            overlay=self.overlay_combo.currentData(),
            preview=self.preview_check.isChecked(),
            sounds=self.sounds_check.isChecked(),
        )
        try:
            new.validate()
        except TingjiError as exc:
            self._set_status("error", exc, error=True)
            return
        if new == self.settings:
            return
        self.settings = new
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
        if event.kind == "state":
            self._state = event.state
            if event.state != "idle":
                self._set_status("key", event.state)
            elif self._status in (("key", "listening"), ("key", "transcribing")):
                self._set_status("key", "ready")  # but keep what the take's outcome said
            self.refresh_icons()
        elif event.kind == "take":
            self.refresh()
            take = event.take
            if take is not None and take.output == "failed":
                self._set_status("error", stored_report(take.error, take.error_code), error=True)
            elif take is not None and take.output in ("paste", "type"):
                self._set_status("take", take.text)
        elif event.kind == "empty":
            self._set_status("key", "empty")
        elif event.kind == "error":
            self._set_status("error", event.error or event.message, error=True)
        elif event.kind == "hotkey":
            self._show_hotkey(event.error)

    # -- rendering -----------------------------------------------------------------------------------

    def _set_status(self, kind: str, value: object, *, error: bool = False) -> None:
        self._status = (kind, value)
        self._status_is_error = error
        self._render()

    def _status_texts(self) -> dict[str, str]:
        return {
            "waiting": self.tr("Dictation starts once the speech model is ready."),
            "ready": self.tr("Ready"),
            "listening": self.tr("Listening… speak now"),
            "transcribing": self.tr("Transcribing…"),
            "empty": self.tr("Nothing was said."),
            "copied": self.tr("Copied."),
            "deleted": self.tr("The recording of this take was deleted."),
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
        kind, value = self._status
        if kind == "key":
            text = self._status_texts().get(str(value), str(value))
        elif kind == "take":
            text = self.tr("Inserted: {0}").format(value)
        else:  # an error, or the English line of an event that carries none
            text = localized(value) if isinstance(value, (TingjiError, ErrorReport)) else str(value)
        self.status_label.setText(text)
        color = theme.dictation_color("listening" if self._status_is_error else self._state, self.palette())
        weight = "600" if self._state == "listening" or self._status_is_error else "normal"
        colored = self._status_is_error or self._state in ("listening", "transcribing")
        self.status_label.setStyleSheet(f"color: {color.name()}; font-weight: {weight};" if colored else "")
        self.record_button.setText(self.tr("Stop") if self._state == "listening" else self.tr("Dictate"))
        self.hint_label.setText(self._hint())
        self.hint_label.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        if self._hotkey_problem:
            self.hotkey_label.setText(
                self.tr("{0}. Use the Dictate button instead.").format(localized(self._hotkey_problem))
            )
            self.hotkey_label.setStyleSheet(f"color: {theme.dictation_color('unavailable', self.palette()).name()};")
        self.hotkey_label.setVisible(bool(self._hotkey_problem))
        self.hint_label.setVisible(not self._hotkey_problem)

    def _show_hotkey(self, error: TingjiError | None) -> None:
        self._hotkey_problem = error
        self._render()
