"""The dictation panel: history (play / copy / delete), a record button, settings.

Embedding (the main window owns the engine and the history):

    history = DictationHistory()
    settings = DictationSettings.load()
    panel = DictationPanel(history, settings)
    controller = DictationController(engine, settings, history=history,
                                     clipboard=QtClipboard(), on_event=panel.bridge.post)
    panel.attach(controller)          # events, record button, settings changes
    panel.settingsChanged.connect(lambda s: s.save())
    controller.start()
    ...
    controller.close()                # before the QApplication goes away

Also here, because they are Qt:

* `QtClipboard` - the `Clipboard` the controller pastes through. The
  controller calls it from its worker thread, but QClipboard may only be used
  from the GUI thread, so each call is run there (queued signal) and the
  worker waits for the result. The snapshot keeps every MIME format, so a
  copied image or rich text comes back after the paste, not only plain text.
* `DictationBridge` - turns controller events (from any thread) into a Qt
  signal delivered on the GUI thread.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QObject, Qt, QThread, Signal, Slot
from PySide6.QtGui import QClipboard, QGuiApplication, QImage
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QSpinBox, QTableWidget,
                               QTableWidgetItem, QToolButton, QVBoxLayout, QWidget)

from ..dictation.controller import MODES, DictationController, DictationEvent, DictationSettings
from ..dictation.history import DictationHistory, DictationTake
from ..dictation.hotkey import HotkeyError, parse_hotkey
from ..dictation.output import OUTPUT_MODES, OutputError
from ..engine.errors import TingjiError

# X11 selection meta-targets that Qt lists as formats; they are not content.
_NOT_CONTENT = {"TARGETS", "MULTIPLE", "TIMESTAMP", "SAVE_TARGETS"}


class QtClipboard(QObject):
    """A thread-safe `tingji.dictation.output.Clipboard` on top of QClipboard. Create it on the GUI thread."""

    _invoke = Signal(object)

    def __init__(self, clipboard: QClipboard | None = None, parent: QObject | None = None,
                 timeout_s: float = 5.0) -> None:
        super().__init__(parent)
        self._clipboard = clipboard or QGuiApplication.clipboard()
        self.timeout_s = timeout_s
        self._invoke.connect(self._run, Qt.ConnectionType.QueuedConnection)

    # -- Clipboard protocol ------------------------------------------------------------

    def save(self) -> object:
        return self._call(self._snapshot)

    def restore(self, snapshot: object) -> None:
        self._call(lambda: self._restore(snapshot))

    def set_text(self, text: str) -> None:
        self._call(lambda: self._clipboard.setText(text))

    def text(self) -> str:
        return str(self._call(self._clipboard.text))

    # -- GUI-thread side ----------------------------------------------------------------

    def _call(self, fn: Callable[[], Any]) -> Any:
        if QThread.currentThread() is self.thread():
            return fn()
        box: dict[str, Any] = {}
        done = threading.Event()
        self._invoke.emit((fn, box, done))
        if not done.wait(self.timeout_s):
            raise OutputError("the clipboard did not respond (is the app's window busy?)")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    @Slot(object)
    def _run(self, job: tuple) -> None:
        fn, box, done = job
        try:
            box["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    def _snapshot(self) -> dict[str, Any]:
        md = self._clipboard.mimeData()
        snap: dict[str, Any] = {}
        if md is None:
            return snap
        for fmt in md.formats():
            if fmt in _NOT_CONTENT or "/" not in fmt:
                continue
            snap[fmt] = bytes(md.data(fmt).data())
        if md.hasImage():
            image = md.imageData()
            if isinstance(image, QImage) and not image.isNull():
                snap["\0image"] = QImage(image)
        return snap

    def _restore(self, snapshot: object) -> None:
        snap = snapshot if isinstance(snapshot, dict) else {}
        if not snap:
            self._clipboard.clear()
            return
        md = QMimeData()
        for fmt, data in snap.items():
            if fmt == "\0image":
                md.setImageData(data)
            else:
                md.setData(fmt, QByteArray(data))
        self._clipboard.setMimeData(md)


class DictationBridge(QObject):
    """`post` is the controller's on_event; `event` fires on the GUI thread."""

    event = Signal(object)

    def post(self, event: DictationEvent) -> None:
        self.event.emit(event)  # queued automatically when emitted from another thread


class DictationPanel(QWidget):
    """Self-contained: works with only a history (browse/play/copy), fully once attach()ed to a controller."""

    settingsChanged = Signal(object)  # a validated DictationSettings

    def __init__(self, history: DictationHistory, settings: DictationSettings | None = None,
                 parent: QWidget | None = None, *, play: Callable[[str], None] | None = None,
                 limit: int = 200) -> None:
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
        if controller.hotkey_unavailable:
            self._show_hotkey(controller.hotkey_unavailable)

    def refresh(self) -> None:
        """Reload the history table."""
        self._takes = self.history.recent(self._limit)
        table = self.table
        table.setRowCount(len(self._takes))
        for row, take in enumerate(self._takes):
            when = QTableWidgetItem(time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(take.created)))
            text = QTableWidgetItem(take.text)
            text.setToolTip(take.text if not take.error else f"{take.text}\n\n{take.error}")
            for item in (when, text):
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            table.setItem(row, 0, when)
            table.setItem(row, 1, text)
            table.setCellWidget(row, 2, self._row_buttons(take))
        table.resizeColumnToContents(0)

    def status_text(self) -> str:
        return self.status_label.text()

    # -- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.record_button = QPushButton(self)
        self.record_button.setObjectName("dictationRecord")
        self.record_button.setEnabled(False)
        self.record_button.clicked.connect(self._on_record)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("dictationStatus")
        self.status_label.setWordWrap(True)
        top.addWidget(self.record_button)
        top.addWidget(self.status_label, 1)
        layout.addLayout(top)
        self.hotkey_label = QLabel(self)
        self.hotkey_label.setObjectName("dictationHotkeyStatus")
        self.hotkey_label.setWordWrap(True)
        self.hotkey_label.hide()
        layout.addWidget(self.hotkey_label)

        self.table = QTableWidget(0, 3, self)
        self.table.setObjectName("dictationHistory")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)

        self.settings_box = QGroupBox(self)
        form = QFormLayout(self.settings_box)
        self.hotkey_edit = QLineEdit(self.settings_box)
        self.hotkey_edit.setObjectName("dictationHotkey")
        self.hotkey_edit.editingFinished.connect(self._on_settings_edited)
        self.hotkey_error = QLabel(self.settings_box)
        self.hotkey_error.setObjectName("dictationHotkeyError")
        self.hotkey_error.hide()
        self.mode_combo = QComboBox(self.settings_box)
        self.mode_combo.setObjectName("dictationMode")
        for key in MODES:
            self.mode_combo.addItem("", key)
        self.output_combo = QComboBox(self.settings_box)
        self.output_combo.setObjectName("dictationOutput")
        for key in OUTPUT_MODES:
            self.output_combo.addItem("", key)
        self.keep_open_check = QCheckBox(self.settings_box)
        self.keep_open_check.setObjectName("dictationKeepOpen")
        self.pre_roll_spin = QSpinBox(self.settings_box)
        self.pre_roll_spin.setRange(0, 3000)
        self.pre_roll_spin.setSingleStep(100)
        self.pre_roll_spin.setSuffix(" ms")
        self.silence_spin = QDoubleSpinBox(self.settings_box)
        self.silence_spin.setRange(0.2, 10.0)
        self.silence_spin.setSingleStep(0.1)
        self.silence_spin.setSuffix(" s")
        self.keep_spin = QSpinBox(self.settings_box)
        self.keep_spin.setRange(-1, 100000)
        self.keep_spin.setObjectName("dictationKeepRecordings")
        for w in (self.mode_combo, self.output_combo):
            w.currentIndexChanged.connect(self._on_settings_edited)
        self.keep_open_check.toggled.connect(self._on_settings_edited)
        for w in (self.pre_roll_spin, self.silence_spin, self.keep_spin):
            w.valueChanged.connect(self._on_settings_edited)
        self._form_labels = [QLabel(self.settings_box) for _ in range(7)]
        rows = (self.hotkey_edit, self.mode_combo, self.output_combo, self.keep_open_check, self.pre_roll_spin,
                self.silence_spin, self.keep_spin)
        for label, widget in zip(self._form_labels, rows):
            form.addRow(label, widget)
            if widget is self.hotkey_edit:
                form.addRow("", self.hotkey_error)
        layout.addWidget(self.settings_box)

    def retranslate(self) -> None:
        self.settings_box.setTitle(self.tr("Dictation settings"))
        self.table.setHorizontalHeaderLabels([self.tr("Time"), self.tr("Text"), ""])
        for label, text in zip(self._form_labels, (
                self.tr("Hotkey"), self.tr("Mode"), self.tr("Insert by"), self.tr("Microphone"),
                self.tr("Pre-roll"), self.tr("Silence ends take"), self.tr("Keep recordings"))):
            label.setText(text)
        labels = {"hold": self.tr("Hold to talk"), "toggle": self.tr("Press to start, pause to stop"),
                  "continuous": self.tr("Continuous (press to start and stop)")}
        for i in range(self.mode_combo.count()):
            self.mode_combo.setItemText(i, labels[self.mode_combo.itemData(i)])
        outputs = {"paste": self.tr("Paste (clipboard restored afterwards)"), "type": self.tr("Type the characters")}
        for i in range(self.output_combo.count()):
            self.output_combo.setItemText(i, outputs[self.output_combo.itemData(i)])
        self.keep_open_check.setText(self.tr("Keep open between takes (no cut first word; mic shows as in use)"))
        self.keep_spin.setSpecialValueText(self.tr("All"))
        self.hotkey_edit.setPlaceholderText("ctrl+alt+space")
        self._update_record_button(self.controller.state if self.controller else "idle")
        if not self.status_label.text():
            self.status_label.setText(self.tr("Ready"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh()
        super().changeEvent(event)

    def _row_buttons(self, take: DictationTake) -> QWidget:
        box = QWidget(self.table)
        row = QHBoxLayout(box)
        row.setContentsMargins(2, 0, 2, 0)
        play = QToolButton(box)
        play.setText(self.tr("Play"))
        play.setObjectName("dictationPlay")
        play.setEnabled(self.history.recording_path(take) is not None)
        play.clicked.connect(lambda _=False, t=take: self.play_take(t))
        copy = QToolButton(box)
        copy.setText(self.tr("Copy"))
        copy.setObjectName("dictationCopy")
        copy.clicked.connect(lambda _=False, t=take: self.copy_take(t))
        delete = QToolButton(box)
        delete.setText(self.tr("Delete"))
        delete.setObjectName("dictationDelete")
        delete.clicked.connect(lambda _=False, t=take: self.delete_take(t))
        for b in (play, copy, delete):
            row.addWidget(b)
        return box

    # -- row actions ----------------------------------------------------------------------------

    def play_take(self, take: DictationTake) -> None:
        path = self.history.recording_path(take)
        if path is None:
            self._show_status(self.tr("The recording of this take was deleted."))
            return
        try:
            if self._play is not None:
                self._play(str(path))
            else:
                from ..dictation.capture import play_file

                play_file(str(path))
        except TingjiError as exc:
            self._show_status(str(exc))

    def copy_take(self, take: DictationTake) -> None:
        QGuiApplication.clipboard().setText(take.text)
        self._show_status(self.tr("Copied."))

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
        finally:
            self._updating = False

    def _on_settings_edited(self, *_: object) -> None:
        if self._updating:
            return
        hotkey = self.hotkey_edit.text().strip()
        try:
            hotkey = str(parse_hotkey(hotkey))
        except HotkeyError as exc:
            self.hotkey_error.setText(str(exc))
            self.hotkey_error.show()
            return
        self.hotkey_error.hide()
        keep = self.keep_spin.value()
        data = self.settings.to_dict() | {
            "hotkey": hotkey, "mode": self.mode_combo.currentData(), "output": self.output_combo.currentData(),
            "keep_mic_open": self.keep_open_check.isChecked(), "pre_roll_s": self.pre_roll_spin.value() / 1000,
            "silence_s": round(self.silence_spin.value(), 2), "keep_recordings": None if keep < 0 else keep}
        new = DictationSettings.from_dict(data)
        try:
            new.validate()
        except TingjiError as exc:
            self._show_status(str(exc))
            return
        if new == self.settings:
            return
        self.settings = new
        if self.controller is not None:
            self.controller.apply_settings(new)
        self.settingsChanged.emit(new)

    # -- controller events -------------------------------------------------------------------------

    def _on_record(self) -> None:
        if self.controller is not None:
            self.controller.toggle()

    @Slot(object)
    def _on_event(self, event: DictationEvent) -> None:
        if event.kind == "state":
            self._update_record_button(event.state)
            self._show_status({"idle": self.tr("Ready"), "listening": self.tr("Listening…"),
                               "transcribing": self.tr("Transcribing…")}.get(event.state, event.state))
        elif event.kind == "take":
            self.refresh()
            if event.take is not None and event.take.output == "failed":
                self._show_status(event.take.error or "")
        elif event.kind == "empty":
            self._show_status(self.tr("Nothing was said."))
        elif event.kind == "error":
            self._show_status(event.message)
        elif event.kind == "hotkey":
            self._show_hotkey(event.message)

    def _update_record_button(self, state: str) -> None:
        self.record_button.setText(self.tr("Stop") if state == "listening" else self.tr("Dictate"))

    def _show_status(self, text: str) -> None:
        self.status_label.setText(text)

    def _show_hotkey(self, message: str) -> None:
        if message:
            self.hotkey_label.setText(message)
            self.hotkey_label.show()
        else:
            self.hotkey_label.hide()
