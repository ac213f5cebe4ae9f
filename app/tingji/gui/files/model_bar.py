"""The strip over the Files page: which model transcribes files, and the language spoken in them.

The language menu lists what the files model can be told: the codes its
manifest carries, as the loaded Engine reports them (`ModelEngine.languages`,
kept while the model is unloaded for being idle), "Auto" first. Before a
model has loaded once the list is not known and only the current choice is
offered. Choosing emits `languageChosen`; the window saves it like any
setting (the language applies to dictation too).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from ..languages import FittingComboBox, fill_language_menu


class FilesModelBar(QWidget):
    languageChosen = Signal(str)  # a code, "" = detect
    modelsRequested = Signal()  # the model name's link: open the model manager

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_label = QLabel()
        self.model_label.setObjectName("filesModel")
        self.model_label.setTextFormat(Qt.TextFormat.RichText)
        self.model_label.linkActivated.connect(lambda _: self.modelsRequested.emit())
        self.language_label = QLabel()
        self.language = FittingComboBox()
        self.language.setObjectName("filesLanguage")
        self.language.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.language.setMaxVisibleItems(16)
        self.language.setStyleSheet("QComboBox { combobox-popup: 0; }")  # a scrolling list, not screen-high
        self.language.activated.connect(lambda _: self.languageChosen.emit(str(self.language.currentData() or "")))
        self.language_label.setBuddy(self.language)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.addWidget(self.model_label)
        layout.addStretch(1)
        layout.addWidget(self.language_label)
        layout.addWidget(self.language)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._codes: tuple[str, ...] | None = None
        self._current = ""
        self.retranslate()

    def show_model(self, html_text: str) -> None:
        self.model_label.setText(html_text)

    def show_languages(self, codes: Sequence[str] | None, current: str) -> None:
        """The files model's languages (None: not known yet) and the chosen one."""
        self._codes, self._current = (tuple(codes) if codes is not None else None), current
        fill_language_menu(self.language, self._codes, current)

    def languages(self) -> list[str]:
        """The codes the menu offers, in order ("" is Auto)."""
        return [str(self.language.itemData(i)) for i in range(self.language.count())]

    def retranslate(self) -> None:
        self.language_label.setText(self.tr("Language spoken:"))
        self.language.setToolTip(
            self.tr(
                "The languages this model can be told; Auto lets it detect the "
                "language. Dictation uses this choice too."
            )
        )
        fill_language_menu(self.language, self._codes, self._current)
