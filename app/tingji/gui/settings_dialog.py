"""The Settings dialog: edits a copy of `Settings`; the window applies it on OK.

The dialog only edits values. Saving, reloading the model and switching the
UI language are the main window's job, so that every way of changing
settings (this dialog, a future model manager) goes through the same path.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..engine import decoder_device as vulkan
from ..engine.sessions import PROVIDER_CHOICES, PROVIDER_NAMES
from ..engine.writers import FORMATS
from ..models.installed import list_models
from . import theme
from .devices import DecoderDevices, decoder_devices, graphics_adapters
from .errors import translated
from .languages import fill_language_menu
from .settings import MAX_UNLOAD_AFTER_MIN, SPEAKER_CHOICES, Settings
from .speakers import choice_label, no_model_reason, speakers_available
from .voice_library import VoiceLibraryBox


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _align_labels(forms: Sequence[QFormLayout]) -> None:
    """One label column for all the groups, so the fields line up down the dialog."""
    labels = [f.itemAt(r, QFormLayout.ItemRole.LabelRole) for f in forms for r in range(f.rowCount())]
    widgets = [item.widget() for item in labels if item is not None and item.widget() is not None]
    width = max((w.sizeHint().width() for w in widgets), default=0)
    for w in widgets:
        w.setMinimumWidth(width)


class SettingsDialog(QDialog):
    manageModelsRequested = Signal()

    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        languages: Sequence[str] | None = None,
        adapters: Sequence[str] | None = None,
        decoders: DecoderDevices | None = None,
    ) -> None:
        """`languages`: the codes the files model can be told (None: not known, it has not loaded).
        `adapters`: the graphics adapters' names, high-performance first (None: asked of DXGI here).
        `decoders`: the Vulkan devices an LLM decoder can run on (None: asked of the Vulkan driver here)."""
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(520)
        self._original = settings
        self._languages = tuple(languages) if languages is not None else None
        self._build_speech_fields(adapters)
        self._build_decoder_fields(decoder_devices() if decoders is None else decoders)
        speech, form = self._build_speech(show_device=bool(settings.device))
        output, out_form = self._build_output()
        speakers, speakers_form = self._build_speakers()
        interface, ui_form = self._build_interface()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        _align_labels((form, out_form, speakers_form, ui_form))
        # One tab per group: all four stacked were taller than a laptop's screen (Qt then squeezed the rows
        # into each other).
        self.tabs = QTabWidget(self)
        self.pages: dict[str, QWidget] = {}  # the tabs by name: "speech", "output", "speakers", "interface"
        for name, box in (("speech", speech), ("output", output), ("speakers", speakers), ("interface", interface)):
            self.pages[name] = page = QWidget(self.tabs)
            self.tabs.addTab(page, box.title())
            column = QVBoxLayout(page)
            column.addWidget(box)
            column.addStretch(1)  # a short tab's rows stay at the top, at their own heights
            box.setTitle("")  # the tab names it and frames it
            box.setStyleSheet("QGroupBox { border: none; margin: 0; padding: 0; }")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)
        self._load(settings)

    # -- construction ----------------------------------------------------------------------

    def _build_speech_fields(self, adapters: Sequence[str] | None) -> None:
        """The speech recognition group's fields: the models, where they run, what is spoken, memory."""
        # Widgets placed in a row layout before the row is in the form get their parent now (gui/__init__.py).
        self.model = QComboBox(self)
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model.setMinimumContentsLength(24)
        self.browse = QPushButton(self.tr("Browse…"), self)
        self.browse.setToolTip(self.tr("Use a Tingji model folder anywhere on this computer"))
        self.browse.clicked.connect(self._browse_model)
        self.manage = QPushButton(self.tr("Manage models…"), self)
        self.manage.clicked.connect(self.manageModelsRequested)
        self.dictation_model = QComboBox()
        self.dictation_model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.dictation_model.setMinimumContentsLength(24)
        self.dictation_model.setToolTip(
            QCoreApplication.translate(
                "ModelUse",
                "A fast model (SenseVoice-Small) answers dictation sooner; a second model takes memory of its own",
            )
        )
        self.provider = QComboBox()
        labels = {
            "auto": self.tr("Automatic (GPU when available)"),
            "dml": self.tr("DirectML (Windows GPU)"),
            "cuda": self.tr("CUDA (NVIDIA GPU)"),
            "cpu": self.tr("CPU only"),
        }
        for value in PROVIDER_CHOICES:  # the engine's list; one without words here is shown by its name
            self.provider.addItem(labels.get(value, PROVIDER_NAMES.get(value, value)), value)
        self.device = QComboBox()  # DirectML's adapter, by name ("": the high-performance one)
        self.device.setToolTip(self.tr("The graphics adapter DirectML runs the model on"))
        self.device.addItem(self.tr("Automatic (high-performance GPU)"), "")
        for name in graphics_adapters() if adapters is None else adapters:
            self.device.addItem(name, name)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.language = QComboBox()  # the files model's languages (gui/languages.py)
        self.hotwords = QPlainTextEdit()
        self.hotwords.setPlaceholderText(self.tr("Names and terms to favour, one per line"))
        self.hotwords.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.hotwords.setTabChangesFocus(True)

        self.unload_after = QSpinBox(self)
        self.unload_after.setRange(0, MAX_UNLOAD_AFTER_MIN)
        self.unload_after.setSpecialValueText(self.tr("Never"))
        self.unload_after.setSuffix(self.tr(" min idle"))
        self.unload_after.setToolTip(
            self.tr(
                "Free the model's memory when Tingji has had nothing to transcribe "
                "for this long; the next file or dictation loads it again"
            )
        )

        self.punctuation = QCheckBox(self.tr("Add punctuation where the model writes none"))
        self.punctuation.setToolTip(
            self.tr("Paraformer writes no punctuation; the punctuation model installed with it adds it")
        )

    def _decoder_hint(self, offer: DecoderDevices) -> str:
        """The line under the decoder choice: why only the CPU, or what Automatic takes here."""
        if offer.missing:
            return self.tr("Only the CPU here: {0}.").format(translated(offer.missing))
        gpu = vulkan.pick(vulkan.parse_choice("auto"), list(offer.devices))
        if gpu is not None:
            return self.tr("Automatic uses {0}.").format(gpu.name)
        names = ", ".join(d.name for d in offer.devices)
        return self.tr("Automatic uses the CPU: {0} renders in software only; choose it to try it.").format(names)

    def _build_decoder_fields(self, offer: DecoderDevices) -> None:
        """Where an LLM decoder runs (Fun-ASR-Nano, Qwen3-ASR) and whether it verifies drafts."""
        # Widgets placed in a row layout before the row is in the form get their parent now (gui/__init__.py).
        self.decoder_device = QComboBox(self)
        self.decoder_device.addItem(self.tr("Automatic (a Vulkan GPU when there is one)"), "auto")
        self.decoder_device.addItem(self.tr("CPU"), "cpu")
        for device in offer.devices:  # by name: the driver's numbers change when a GPU comes or goes
            label = self.tr("{0} (software)").format(device.name) if device.kind == "cpu" else device.name
            self.decoder_device.addItem(label, device.name)
        self.decoder_device.setToolTip(
            self.tr(
                "Where the language model of Fun-ASR-Nano and Qwen3-ASR runs; "
                "a GPU is checked against the CPU when the model loads"
            )
        )
        self.decoder_hint = QLabel(self._decoder_hint(offer), self)
        self.decoder_hint.setWordWrap(True)
        self.decoder_hint.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        self.draft = QCheckBox(self.tr("Verify drafts in blocks: the same text, faster (off only to compare)"))
        self.draft.setToolTip(
            self.tr(
                "Fun-ASR-Nano's language model checks its CTC head's guess of the text many tokens at a time "
                "instead of writing one token at a time"
            )
        )
        self.draft_model = QCheckBox(
            self.tr("Let an installed SenseVoice-Small or Fun-ASR-Nano draft for Qwen3-ASR (faster, the same text)"),
            self,
        )
        self.draft_model.setToolTip(
            self.tr(
                "Qwen3-ASR has no CTC head of its own: an installed model that has one hears the same audio, "
                "and Qwen3-ASR checks its text in blocks where both know the language"
            )
        )
        self.draft.toggled.connect(self.draft_model.setEnabled)  # no drafts at all: none from another model either

    def _build_speech(self, *, show_device: bool) -> tuple[QGroupBox, QFormLayout]:
        """The speech recognition group; the adapter row only where there is one to choose (or a saved one)."""
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.browse)
        model_row.addWidget(self.manage)
        speech = QGroupBox(self.tr("Speech recognition"))
        form = QFormLayout(speech)
        form.addRow(QCoreApplication.translate("ModelUse", "Model for files:"), model_row)
        form.addRow(QCoreApplication.translate("ModelUse", "Model for dictation:"), self.dictation_model)
        form.addRow(self.tr("Run on:"), self.provider)
        form.addRow(self.tr("Graphics adapter:"), self.device)
        # Only Windows has adapters to choose from; a saved choice still shows (_load adds it).
        form.setRowVisible(self.device, self.device.count() > 1 or show_device)
        decoder = QVBoxLayout()  # the hint right under its choice
        decoder.setSpacing(2)
        decoder.addWidget(self.decoder_device)
        decoder.addWidget(self.decoder_hint)
        self.decoder_hint.setHidden(not self.decoder_hint.text())
        form.addRow(self.tr("Decoder runs on:"), decoder)
        form.addRow(self.tr("Language spoken:"), self.language)
        form.addRow(self.tr("Hotwords:"), self.hotwords)
        form.addRow(self.punctuation)
        form.addRow(self.draft)
        form.addRow(self.draft_model)
        unload_row = QHBoxLayout()
        unload_row.addWidget(self.unload_after)
        unload_row.addStretch(1)
        form.addRow(self.tr("Unload the model after:"), unload_row)
        return speech, form

    def _build_output(self) -> tuple[QGroupBox, QFormLayout]:
        """What is saved when a file is done."""
        self.auto_export = QCheckBox(self.tr("Save transcripts next to each source file when done"))
        self.formats = {fmt: QCheckBox(fmt.upper(), self) for fmt in FORMATS}
        formats_row = QHBoxLayout()
        for box in self.formats.values():
            formats_row.addWidget(box)
        formats_row.addStretch(1)
        output = QGroupBox(self.tr("Output"))
        out_form = QFormLayout(output)
        out_form.addRow(self.auto_export)
        out_form.addRow(self.tr("Formats:"), formats_row)
        return output, out_form

    def _build_speakers(self) -> tuple[QGroupBox, QFormLayout]:
        """Who spoke: the files' "Identify speakers" (greyed, with the reason, without a speaker model) and the
        voice library."""
        self.speakers = QComboBox()
        for value in SPEAKER_CHOICES:
            self.speakers.addItem(choice_label(value), value)
        self.speakers.setToolTip(self.tr("Label each segment of a file with who spoke it; a file can have its own"))
        available = speakers_available()
        self.speakers.setEnabled(available)
        self.speakers_reason = QLabel(no_model_reason())
        self.speakers_reason.setWordWrap(True)
        self.speakers_reason.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        # Capabilities.word_speakers: only models that time their tokens can change speaker inside a sentence.
        self.speakers_granularity = QLabel(
            self.tr("Qwen3-ASR and Fun-ASR-Nano without a CTC head label whole sentences, not single words.")
        )
        self.speakers_granularity.setWordWrap(True)
        self.speakers_granularity.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        self.voices = VoiceLibraryBox()
        box = QGroupBox(self.tr("Speakers"))
        form = QFormLayout(box)
        form.addRow(self.tr("Identify speakers:"), self.speakers)
        form.addRow("", self.speakers_granularity)
        form.addRow(self.speakers_reason)
        form.setRowVisible(self.speakers_reason, not available)
        form.addRow(self.tr("Voice library:"), self.voices)
        return box, form

    def _build_interface(self) -> tuple[QGroupBox, QFormLayout]:
        """The interface's language and appearance."""
        self.ui_language = QComboBox()
        for value, label in (("system", self.tr("System default")), ("en", "English"), ("zh_CN", "简体中文")):
            self.ui_language.addItem(label, value)
        self.appearance = QComboBox()
        for value, label in (
            ("system", self.tr("Follow the system")),
            ("light", self.tr("Light")),
            ("dark", self.tr("Dark")),
        ):
            self.appearance.addItem(label, value)
        interface = QGroupBox(self.tr("Interface"))
        ui_form = QFormLayout(interface)
        ui_form.addRow(self.tr("Language:"), self.ui_language)
        ui_form.addRow(self.tr("Appearance:"), self.appearance)
        note = QLabel(self.tr("Language and appearance change at once."))
        note.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        ui_form.addRow(note)
        return interface, ui_form

    # -- values in and out ----------------------------------------------------------------

    def _fill_models(self, current: str, dictation: str | None = None) -> None:
        """Both model lists: files' (`current`) and dictation's (`dictation`; None keeps its choice)."""
        if dictation is None:
            dictation = (
                str(self.dictation_model.currentData() or "")
                if self.dictation_model.count()
                else self._original.dictation_model
            )
        installed = [m for m in list_models() if m.speech]  # a punctuation model is not a choice here
        for combo, first, value in (
            (self.model, self.tr("Automatic (first installed model)"), current),
            (self.dictation_model, QCoreApplication.translate("ModelUse", "Same as for files"), dictation),
        ):
            combo.clear()
            combo.addItem(first, "")
            for m in installed:
                label = f"{m.name}  ({_size(m.size)})" if m.manifest_ok else self.tr("{0} (incomplete)").format(m.name)
                combo.addItem(label, m.name)
            if value and combo.findData(value) < 0:
                combo.addItem(value, value)  # a folder chosen with Browse…
                combo.setItemData(combo.count() - 1, value, Qt.ItemDataRole.ToolTipRole)
            combo.setCurrentIndex(max(0, combo.findData(value)))

    def _load(self, s: Settings) -> None:
        self._fill_models(s.model, s.dictation_model)
        fill_language_menu(self.language, self._languages, s.language)
        for combo, value in (
            (self.provider, s.provider),
            (self.ui_language, s.ui_language),
            (self.appearance, s.appearance),
            (self.speakers, s.speakers),
        ):
            combo.setCurrentIndex(max(0, combo.findData(value)))
        for combo, value in ((self.device, s.device), (self.decoder_device, s.decoder_device)):
            if value and combo.findData(value) < 0:  # a saved adapter that is gone stays chosen, and says so
                combo.addItem(self.tr("{0} (not found)").format(value), value)
            combo.setCurrentIndex(max(0, combo.findData(value)))
        self._provider_changed()
        self.hotwords.setPlainText("\n".join(s.hotwords))
        self.auto_export.setChecked(s.auto_export)
        self.punctuation.setChecked(s.punctuation)
        self.draft.setChecked(s.draft)
        self.draft_model.setChecked(s.draft_model)
        self.draft_model.setEnabled(s.draft)
        self.unload_after.setValue(math.ceil(s.unload_after_min))  # whole minutes; the file may hold less
        for fmt, box in self.formats.items():
            box.setChecked(fmt in s.formats)

    def settings(self) -> Settings:
        """The edited settings (fields this dialog does not show are kept)."""
        words = [w.strip() for w in re.split(r"[\n,，、;；]", self.hotwords.toPlainText()) if w.strip()]
        return replace(
            self._original,
            model=str(self.model.currentData() or ""),
            dictation_model=str(self.dictation_model.currentData() or ""),
            provider=str(self.provider.currentData()),
            device=str(self.device.currentData() or ""),
            decoder_device=str(self.decoder_device.currentData() or "auto"),
            language=str(self.language.currentData() or ""),
            hotwords=list(dict.fromkeys(words)),
            formats=[f for f, box in self.formats.items() if box.isChecked()] or ["txt"],
            auto_export=self.auto_export.isChecked(),
            ui_language=str(self.ui_language.currentData()),
            appearance=str(self.appearance.currentData()),
            unload_after_min=self.unload_after.value(),
            punctuation=self.punctuation.isChecked(),
            draft=self.draft.isChecked(),
            draft_model=self.draft_model.isChecked(),
            speakers=str(self.speakers.currentData()),
        ).normalised()

    def _provider_changed(self) -> None:
        self.device.setEnabled(self.provider.currentData() in ("auto", "dml"))

    def refresh_models(self, files: str | None = None, dictation: str | None = None) -> None:
        """Re-read the installed models (the model manager changed them); a None choice keeps what the
        dialog shows, a name (or "") is the model the window now uses."""
        self._fill_models(str(self.model.currentData() or "") if files is None else files, dictation)

    def _browse_model(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a Tingji model folder"))
        if folder:
            self._fill_models(folder, None)
