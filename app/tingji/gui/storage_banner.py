"""The banner about the app's databases: one set aside at start-up, or the queue database failing.

Two things the user must hear about and can act on, shown under the toolbar
apart from the engine's banner:

  * at start-up, a database that could not be used was renamed
    (gui/databases.py): which one, why, and where it went;
  * while the app runs, writes to the queue database fail
    (`storageChanged` of the queue's controller, files/controller.py, seen
    here only as `QueueStorage`): SQLite's words, that the queue goes
    on, how many finished transcripts exist only in memory, and a button to
    save them to a folder (files/export.py: never replacing a file).

The text is rendered from that state at each change and on a language
switch.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QEvent, Signal, SignalInstance
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from ..errors import TingjiError
from ..paths import database_path
from .banner import NoticeBanner
from .databases import SetAside
from .errors import localized


class QueueStorage(Protocol):
    """What the banner reads of the queue (files/controller.py's QueueController)."""

    storageChanged: SignalInstance  # a write failed, or works again

    @property
    def storage_error(self) -> str: ...  # SQLite's words for the last failed write; "" once one works

    @property
    def unsaved_count(self) -> int: ...  # finished transcripts that exist only in memory

    def save_unsaved(self, folder: str | os.PathLike[str]) -> list[Path]: ...


class StorageBanner(NoticeBanner):
    message = Signal(str)  # for the status bar

    def __init__(self, controller: QueueStorage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.set_aside: list[SetAside] = []  # databases set aside at start-up, until dismissed
        controller.storageChanged.connect(self.refresh)

    def show_set_aside(self, notices: Sequence[SetAside]) -> None:
        """Databases that could not be used at start-up and were renamed: say where they went."""
        self.set_aside = list(notices)
        self.refresh()

    def refresh(self) -> None:
        c = self.controller
        if c.storage_error or c.unsaved_count:
            text = self.tr("<b>Tingji cannot write to its queue database</b> ({0}). The queue goes on.").format(
                html.escape(c.storage_error or "?")
            )
            actions = [(self.tr("Dismiss"), self.hide)]
            if c.unsaved_count:
                text += " " + self.tr(
                    "%n finished transcript(s) are kept only in memory until you save them.", "", c.unsaved_count
                )  # the others were exported beside their sources
                actions.insert(0, (self.tr("Save transcripts…"), self.save_dialog))
            self.show_notice("error", text, actions)
        elif self.set_aside:
            text = "<br>".join(self._set_aside_text(n) for n in self.set_aside)
            self.show_notice("info", text, [(self.tr("Dismiss"), self._dismiss_set_aside)])
        else:
            self.hide()

    def _set_aside_text(self, notice: SetAside) -> str:
        queue = notice.path == database_path()
        if notice.newer:
            text = (
                self.tr(
                    "The queue database was written by a newer version of Tingji. It was moved to {1}, "
                    "and Tingji started with an empty one."
                )
                if queue
                else self.tr(
                    "The dictation history was written by a newer version of Tingji. It was moved to {1}, "
                    "and the history starts empty."
                )
            )
        else:
            text = (
                self.tr(
                    "The queue database could not be read ({0}). It was moved to {1}, and Tingji started "
                    "with an empty one."
                )
                if queue
                else self.tr(
                    "The dictation history could not be read ({0}). It was moved to {1}, and the history starts empty."
                )
            )
        return html.escape(text.format(notice.reason, str(notice.moved_to)))

    def _dismiss_set_aside(self) -> None:
        self.set_aside = []
        self.refresh()

    def save_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Save the transcripts to a folder"))
        if folder:
            self.save_to(folder)

    def save_to(self, folder: str) -> list[Path]:
        """Write the transcripts the queue database could not keep into `folder`; says what was written."""
        try:
            written = self.controller.save_unsaved(folder)
        except (OSError, TingjiError) as exc:
            QMessageBox.warning(
                self,
                self.tr("Save the transcripts"),
                self.tr("The transcripts could not be saved in {0}: {1}").format(
                    folder, localized(exc) if isinstance(exc, TingjiError) else exc
                ),
            )
            return []
        self.message.emit(self.tr("Saved %n file(s) in {0}", "", len(written)).format(folder))
        return written

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange and self.isVisible():
            self.refresh()
        super().changeEvent(event)
