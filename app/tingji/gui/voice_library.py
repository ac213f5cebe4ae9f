"""Settings' voice library box: the remembered voices, renamed or deleted at once (not on OK).

The voices themselves are `tingji.engine.speakers.library` files in the user data folder; this box
only lists them and asks for names. A voice file that cannot be read is set aside by the library and
said here in one line.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..engine.speakers.library import VoiceLibrary
from ..errors import TingjiError
from ..paths import voices_dir
from . import theme
from .errors import localized

VoiceIdRole = Qt.ItemDataRole.UserRole + 1


class VoiceLibraryBox(QWidget):
    """The list of voices with Rename… and Delete beside it, and a line saying what the list is for.

    Args:
        library: the voice library shown; None: the user data folder's.
    """

    def __init__(self, library: VoiceLibrary | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library if library is not None else VoiceLibrary(voices_dir())
        self.name_dialog: QInputDialog | None = None  # the last rename asked for
        self.list = QListWidget(self)  # parented now: see gui/__init__.py on ownership
        self.list.setObjectName("voiceList")
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.list.itemDoubleClicked.connect(lambda _item: self.ask_rename())
        self.list.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 12)  # Settings must fit a laptop's screen
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {theme.warning_color(self.palette()).name()};")
        self.problem.hide()
        self.rename_button = QPushButton(self.tr("Rename…"), self)
        self.rename_button.clicked.connect(self.ask_rename)
        self.delete_button = QPushButton(self.tr("Delete"), self)
        self.delete_button.setToolTip(self.tr("Forget this voice: its print is deleted from this computer"))
        self.delete_button.clicked.connect(self.ask_delete)
        layout = QVBoxLayout(self)  # installed first, then the rows inside it (gui/__init__.py on ownership)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        layout.addLayout(row)
        row.addWidget(self.list, 1)
        buttons = QVBoxLayout()
        row.addLayout(buttons)
        buttons.addWidget(self.rename_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        layout.addWidget(self.hint)
        layout.addWidget(self.problem)
        self.refresh()

    def refresh(self) -> None:
        """Read the library again (a voice remembered meanwhile, a file set aside)."""
        voices = self.library.voices()
        self.list.clear()
        for voice in voices:
            item = QListWidgetItem(voice.name)
            item.setData(VoiceIdRole, voice.id)
            self.list.addItem(item)
        self.hint.setText(
            self.tr("Later files name the speakers whose voices are here (remembered from transcripts).")
            if voices
            else self.tr("No voices yet: right-click a speaker in a transcript and choose Remember this voice.")
        )
        if self.library.problems:
            self.problem.setText("\n".join(localized(p) for p in self.library.problems))
            self.problem.show()
            self.library.problems = []
        self._update_buttons()

    def names(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def _selected_id(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None or not item.isSelected() else str(item.data(VoiceIdRole))

    def select(self, name: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).text() == name:
                self.list.setCurrentRow(i)

    def _update_buttons(self) -> None:
        chosen = self._selected_id() is not None
        self.rename_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

    def ask_rename(self) -> None:
        """Ask for the selected voice's new name (a non-modal dialog: `name_dialog`)."""
        voice_id, item = self._selected_id(), self.list.currentItem()
        if voice_id is None or item is None:
            return
        dialog = QInputDialog(self)
        dialog.setWindowTitle(self.tr("Rename voice"))
        dialog.setLabelText(self.tr("New name for {0}:").format(item.text()))
        dialog.setTextValue(item.text())
        dialog.textValueSelected.connect(lambda text: self.rename(voice_id, text))
        dialog.finished.connect(dialog.deleteLater)
        self.name_dialog = dialog
        dialog.open()

    def rename(self, voice_id: str, name: str) -> bool:
        try:
            voice = self.library.rename(voice_id, name)
        except TingjiError as exc:
            QMessageBox.warning(self, self.tr("Rename voice"), localized(exc))
            return False
        self.refresh()
        self.select(voice.name)
        return True

    def ask_delete(self) -> None:
        voice_id, item = self._selected_id(), self.list.currentItem()
        if voice_id is None or item is None:
            return
        sure = QMessageBox.question(
            self,
            self.tr("Delete voice"),
            self.tr("Forget the voice of {0}? Later files will not name it.").format(item.text()),
        )
        if sure == QMessageBox.StandardButton.Yes:
            self.delete(voice_id)

    def delete(self, voice_id: str) -> bool:
        try:
            self.library.delete(voice_id)
        except TingjiError as exc:
            QMessageBox.warning(self, self.tr("Delete voice"), localized(exc))
            return False
        self.refresh()
        return True
