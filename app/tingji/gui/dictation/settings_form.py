"""The Dictation page's settings box: hotkey, mode, insertion, microphone, takes, overlay, preview, sounds.

    form = DictationSettingsForm(settings)
    form.edited.connect(apply)          # a validated DictationSettings, after each change the user makes
    form.rejected.connect(show_error)   # a TingjiError: that edit was not applied
    form.settings = new                 # the app changed them: the next edit starts from these

A hotkey that does not parse is said under its field and nothing is applied.
The microphones are listed when the box is first shown (PortAudio takes a
moment the app's start should not wait for); until then the list holds
"System default" and the saved choice.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from ...dictation.hotkey import HotkeyError, parse_hotkey
from ...dictation.output import OUTPUT_MODES
from ...dictation.settings import MODES, OVERLAY_POSITIONS, DictationSettings
from ...errors import TingjiError
from ..errors import localized
from .microphones import MicrophoneEntry, list_microphones

__all__ = ["DictationSettingsForm"]

_NOT_CONNECTED = Qt.ItemDataRole.UserRole + 1  # a saved microphone that is not plugged in now


class DictationSettingsForm(QGroupBox):
    """The "Dictation settings" group box; it holds the DictationSettings its edits start from."""

    edited = Signal(object)  # a validated DictationSettings that differs from the previous one
    rejected = Signal(object)  # the TingjiError that kept an edit from being applied

    def __init__(self, settings: DictationSettings, parent: QWidget | None = None) -> None:
        """Args:
        settings: what the widgets show first, and the base of the first edit.
        parent: the page.
        """
        super().__init__(parent)
        self.settings = settings
        self._updating = False
        self._devices_listed = False
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._build_take_rows()
        self._build_overlay_rows()
        self._lay_out()
        self.load(settings)
        self.retranslate()

    # -- public ----------------------------------------------------------------------------

    def load(self, s: DictationSettings) -> None:
        """Show `s` (without emitting `edited`); it becomes the base of the next edit."""
        self.settings = s
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
        self._fill_devices([])

    def refresh_microphones(self) -> None:
        """Re-read the input devices into the Microphone list (keeps the chosen one)."""
        self._fill_devices(list_microphones())
        self._devices_listed = True

    def show_overlay_unsupported(self, unsupported: bool) -> None:
        """Say (once, in the settings) that this desktop cannot float the overlay; the tray shows the state."""
        self.overlay_note.setVisible(unsupported)
        self.overlay_combo.setEnabled(not unsupported)

    # -- construction --------------------------------------------------------------------------

    def _build_take_rows(self) -> None:
        """How a take starts, ends and is inserted, the microphone, and what is kept."""
        self.hotkey_edit = QLineEdit(self)
        self.hotkey_edit.setObjectName("dictationHotkey")
        self.hotkey_edit.editingFinished.connect(self._on_edited)
        self.hotkey_error = QLabel(self)
        self.hotkey_error.setObjectName("dictationHotkeyError")
        self.hotkey_error.setWordWrap(True)
        self.hotkey_error.hide()
        self.mode_combo = QComboBox(self)
        self.mode_combo.setObjectName("dictationMode")
        for key in MODES:
            self.mode_combo.addItem("", key)
        self.output_combo = QComboBox(self)
        self.output_combo.setObjectName("dictationOutput")
        for key in OUTPUT_MODES:
            self.output_combo.addItem("", key)
        self.device_combo = QComboBox(self)
        self.device_combo.setObjectName("dictationDevice")
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(16)
        self.keep_open_check = QCheckBox(self)
        self.keep_open_check.setObjectName("dictationKeepOpen")
        self.pre_roll_spin = QSpinBox(self)
        self.pre_roll_spin.setRange(0, 3000)
        self.pre_roll_spin.setSingleStep(100)
        self.pre_roll_spin.setSuffix(" ms")
        self.silence_spin = QDoubleSpinBox(self)
        self.silence_spin.setObjectName("dictationSilence")
        self.silence_spin.setRange(0.2, 10.0)
        self.silence_spin.setSingleStep(0.1)
        self.silence_spin.setSuffix(" s")
        self.keep_spin = QSpinBox(self)
        self.keep_spin.setRange(-1, 100000)
        self.keep_spin.setObjectName("dictationKeepRecordings")

    def _build_overlay_rows(self) -> None:
        """The overlay's position, the live preview (and the model it uses) and the start/stop sounds."""
        self.overlay_combo = QComboBox(self)
        self.overlay_combo.setObjectName("dictationOverlay")
        for key in OVERLAY_POSITIONS:
            self.overlay_combo.addItem("", key)
        self.overlay_note = QLabel(self)  # only where no window can float over others (Wayland)
        self.overlay_note.setObjectName("dictationOverlayNote")
        self.overlay_note.setWordWrap(True)
        self.overlay_note.hide()
        self.preview_check = QCheckBox(self)
        self.preview_check.setObjectName("dictationPreview")
        self.preview_note = QLabel(self)  # which model previews: the host names it
        self.preview_note.setObjectName("dictationPreviewModel")
        self.preview_note.setWordWrap(True)
        self.sounds_check = QCheckBox(self)
        self.sounds_check.setObjectName("dictationSounds")

    def _lay_out(self) -> None:
        """One labelled row per setting, each note under its field; every change is an edit."""
        for combo in (self.mode_combo, self.output_combo, self.device_combo, self.overlay_combo):
            combo.currentIndexChanged.connect(self._on_edited)
        for check in (self.keep_open_check, self.sounds_check, self.preview_check):
            check.toggled.connect(self._on_edited)
        for spin in (self.pre_roll_spin, self.silence_spin, self.keep_spin):
            spin.valueChanged.connect(self._on_edited)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
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
        notes = {
            self.hotkey_edit: self.hotkey_error,
            self.overlay_combo: self.overlay_note,
            self.preview_check: self.preview_note,
        }
        self._labels = [QLabel(self) for _ in rows]
        for label, widget in zip(self._labels, rows):
            form.addRow(label, widget)
            if widget in notes:
                form.addRow("", notes[widget])

    # -- texts -------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setTitle(self.tr("Dictation settings"))
        for label, text in zip(
            self._labels,
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
        self._name_items()
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

    def _name_items(self) -> None:
        """The combo boxes' items, whose data are the settings' keys."""
        modes = {
            "hold": self.tr("Hold to talk"),
            "toggle": self.tr("Press to start, pause to stop"),
            "continuous": self.tr("Continuous (press to start and stop)"),
        }
        outputs = {"paste": self.tr("Paste (clipboard restored afterwards)"), "type": self.tr("Type the characters")}
        positions = {
            "bottom": self.tr("Bottom of the screen"),
            "top": self.tr("Top of the screen"),
            "off": self.tr("Off (the tray icon shows the state)"),
        }
        for combo, names in ((self.mode_combo, modes), (self.output_combo, outputs), (self.overlay_combo, positions)):
            for i in range(combo.count()):
                combo.setItemText(i, names[combo.itemData(i)])
        self._name_devices()

    def _name_devices(self) -> None:
        combo = self.device_combo
        for i in range(combo.count()):
            if combo.itemData(i) is None:
                combo.setItemText(i, self.tr("System default"))
            elif combo.itemData(i, _NOT_CONNECTED):
                combo.setItemText(i, self.tr("{0} (not connected)").format(combo.itemData(i)))

    def _fill_devices(self, entries: list[MicrophoneEntry]) -> None:
        self._updating = True
        try:
            combo = self.device_combo
            combo.clear()
            combo.addItem("", None)  # "System default", named in _name_devices()
            for entry in entries:
                combo.addItem(entry.label, entry.value)
            wanted = self.settings.device
            if wanted and combo.findData(wanted) < 0:
                combo.addItem(wanted, wanted)  # saved, but not connected now
                combo.setItemData(combo.count() - 1, True, _NOT_CONNECTED)
            combo.setCurrentIndex(max(0, combo.findData(wanted)) if wanted else 0)
            self._name_devices()
        finally:
            self._updating = False

    # -- events ------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        if not self._devices_listed:
            self.refresh_microphones()
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _on_edited(self, *_: object) -> None:
        if self._updating:
            return
        try:
            hotkey = str(parse_hotkey(self.hotkey_edit.text().strip()))
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
            self.rejected.emit(exc)
            return
        if new != self.settings:
            self.settings = new
            self.edited.emit(new)
