"""The Settings dialog: edits a copy of `Settings`; the window applies it on OK.

The dialog only edits values. Saving, reloading the model and switching the
UI language are the main window's job, so that every way of changing
settings (this dialog, a future model manager) goes through the same path.
"""

from __future__ import annotations

import re
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

from ..engine.writers import FORMATS
from ..models.installed import list_models
from . import theme
from .settings import Settings


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


class SettingsDialog(QDialog):
    manageModelsRequested = Signal()

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(520)
        self._original = settings

        # -- speech recognition
        self.model = QComboBox()
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model.setMinimumContentsLength(24)
        self.browse = QPushButton(self.tr("Browse…"))
        self.browse.setToolTip(self.tr("Use a Tingji model folder anywhere on this computer"))
        self.browse.clicked.connect(self._browse_model)
        self.manage = QPushButton(self.tr("Manage models…"))
        self.manage.clicked.connect(self.manageModelsRequested)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.browse)
        model_row.addWidget(self.manage)
        self.provider = QComboBox()
        for value, label in (("auto", self.tr("Automatic (GPU when available)")),
                             ("dml", self.tr("DirectML (Windows GPU)")),
                             ("cuda", self.tr("CUDA (NVIDIA GPU)")), ("cpu", self.tr("CPU only"))):
            self.provider.addItem(label, value)
        self.language = QComboBox()
        for value, label in (("", self.tr("Detect automatically")), ("zh", self.tr("Chinese")),
                             ("en", self.tr("English")), ("ja", self.tr("Japanese")),
                             ("yue", self.tr("Cantonese")), ("ko", self.tr("Korean"))):
            self.language.addItem(label, value)
        self.hotwords = QPlainTextEdit()
        self.hotwords.setPlaceholderText(self.tr("Names and terms to favour, one per line"))
        self.hotwords.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.hotwords.setTabChangesFocus(True)

        speech = QGroupBox(self.tr("Speech recognition"))
        form = QFormLayout(speech)
        form.addRow(self.tr("Model:"), model_row)
        form.addRow(self.tr("Run on:"), self.provider)
        form.addRow(self.tr("Language spoken:"), self.language)
        form.addRow(self.tr("Hotwords:"), self.hotwords)

        # -- output
        self.auto_export = QCheckBox(self.tr("Save transcripts next to each source file when done"))
        self.formats = {fmt: QCheckBox(fmt.upper()) for fmt in FORMATS}
        formats_row = QHBoxLayout()
        for box in self.formats.values():
            formats_row.addWidget(box)
        formats_row.addStretch(1)
        output = QGroupBox(self.tr("Output"))
        out_form = QFormLayout(output)
        out_form.addRow(self.auto_export)
        out_form.addRow(self.tr("Formats:"), formats_row)

        # -- interface
        self.ui_language = QComboBox()
        for value, label in (("system", self.tr("System default")), ("en", "English"), ("zh_CN", "简体中文")):
            self.ui_language.addItem(label, value)
        self.appearance = QComboBox()
        for value, label in (("system", self.tr("Follow the system")), ("light", self.tr("Light")),
                             ("dark", self.tr("Dark"))):
            self.appearance.addItem(label, value)
        interface = QGroupBox(self.tr("Interface"))
        ui_form = QFormLayout(interface)
        ui_form.addRow(self.tr("Language:"), self.ui_language)
        ui_form.addRow(self.tr("Appearance:"), self.appearance)
        note = QLabel(self.tr("Language and appearance change at once."))
        note.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        ui_form.addRow(note)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)

        # One label column for all three groups, so the fields line up down the dialog.
        forms = (form, out_form, ui_form)
        labels = [f.itemAt(r, QFormLayout.ItemRole.LabelRole) for f in forms for r in range(f.rowCount())]
        widgets = [item.widget() for item in labels if item is not None and item.widget() is not None]
        width = max((w.sizeHint().width() for w in widgets), default=0)
        for w in widgets:
            w.setMinimumWidth(width)

        layout = QVBoxLayout(self)
        for box in (speech, output, interface):
            layout.addWidget(box)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self._load(settings)

    # -- values in and out ----------------------------------------------------------------

    def _fill_models(self, current: str) -> None:
        self.model.clear()
        self.model.addItem(self.tr("Automatic (first installed model)"), "")
        for m in list_models():
            label = f"{m.name}  ({_size(m.size)})" if m.manifest_ok else \
                self.tr("{0} (incomplete)").format(m.name)
            self.model.addItem(label, m.name)
        if current and self.model.findData(current) < 0:
            self.model.addItem(current, current)  # a folder chosen with Browse…
            self.model.setItemData(self.model.count() - 1, current, Qt.ItemDataRole.ToolTipRole)
        self.model.setCurrentIndex(max(0, self.model.findData(current)))

    def _load(self, s: Settings) -> None:
        self._fill_models(s.model)
        for combo, value in ((self.provider, s.provider), (self.language, s.language),
                             (self.ui_language, s.ui_language), (self.appearance, s.appearance)):
            combo.setCurrentIndex(max(0, combo.findData(value)))
        self.hotwords.setPlainText("\n".join(s.hotwords))
        self.auto_export.setChecked(s.auto_export)
        for fmt, box in self.formats.items():
            box.setChecked(fmt in s.formats)

    def settings(self) -> Settings:
        """The edited settings (fields this dialog does not show are kept)."""
        words = [w.strip() for w in re.split(r"[\n,，、;；]", self.hotwords.toPlainText()) if w.strip()]
        return replace(
            self._original,
            model=str(self.model.currentData() or ""),
            provider=str(self.provider.currentData()),
            language=str(self.language.currentData() or ""),
            hotwords=list(dict.fromkeys(words)),
            formats=[f for f, box in self.formats.items() if box.isChecked()] or ["txt"],
            auto_export=self.auto_export.isChecked(),
            ui_language=str(self.ui_language.currentData()),
            appearance=str(self.appearance.currentData()),
        ).normalised()

    def _browse_model(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a Tingji model folder"))
        if folder:
            self._fill_models(folder)
