"""The Files page: the model bar over the queue | transcript splitter, and what the user does with files.

The page holds the queue's widgets and their behaviour: adding files (the
toolbar's add dialogs, and drops anywhere on the window, which passes its drag
events here through `eventFilter`), cancelling, showing the selected file's
transcript (live segments while it runs), and the strip naming the files model
with its language menu. The window puts the page's `actions` in its toolbar
and its `scan_status` in the status bar, and shows what `message` says. The
page follows language and palette switches itself.

All changes to the queue go through the QueueController (files/controller.py).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QSplitter, QVBoxLayout, QWidget

from .. import icons, theme
from ..engine_host import EngineHost
from ..settings import Settings
from .controller import QueueController
from .folders import FILE_DIALOG_PATTERNS
from .model_bar import FilesModelBar
from .queue_view import QueuePanel
from .scan_status import ScanStatus
from .storage import Job, Status
from .transcript_view import TranscriptPanel


class FilesPage(QWidget):
    message = Signal(str, int)  # for the status bar: the text and how long to show it (ms)
    raiseRequested = Signal()  # files were added: show this page
    settingsChosen = Signal(object)  # the language menu changed the settings: save and apply these
    modelsRequested = Signal()  # the model name's link: open the model manager
    queueChanged = Signal()  # a file was added, changed or removed (the tray names the running file)

    def __init__(
        self, controller: QueueController, engine: EngineHost, settings: Settings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.engine = engine
        self.settings = settings
        self.actions: dict[str, QAction] = {}  # Add files, Add folder, Cancel, Cancel all: the window's toolbar
        for key, glyph, slot, shortcut in (
            ("add_files", "add-file", self.add_files_dialog, QKeySequence.StandardKey.Open),
            ("add_folder", "folder", self.add_folder_dialog, None),
            ("cancel", "cancel", self.cancel_selected, None),
            ("cancel_all", "cancel-all", self.controller.cancel_all, None),
        ):
            action = QAction(self)
            action.setProperty("glyph", glyph)
            action.triggered.connect(slot)
            if shortcut is not None:
                action.setShortcut(shortcut)
            self.actions[key] = action

        self.queue = QueuePanel(self.controller)
        self.panel = TranscriptPanel()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.queue)
        self.splitter.addWidget(self.panel)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([600, 480])
        self.files_bar = FilesModelBar()  # the files model and the language spoken
        self.files_bar.languageChosen.connect(self._choose_language)
        self.files_bar.modelsRequested.connect(self.modelsRequested)
        self.scan_status = ScanStatus(self.controller)  # the status bar's sign while a folder is walked
        files_layout = QVBoxLayout(self)
        files_layout.setContentsMargins(0, 4, 0, 0)
        files_layout.setSpacing(4)
        files_layout.addWidget(self.files_bar)
        files_layout.addWidget(self.splitter, 1)

        self.controller.scanFinished.connect(self._scan_finished)
        self.controller.jobChanged.connect(self._job_changed)
        self.controller.liveSegments.connect(self._live_segments)
        self.controller.notice.connect(lambda text: self.message.emit(text, 10000))
        self.controller.model.dataChanged.connect(lambda *_: self._update_actions())
        self.controller.model.rowsInserted.connect(lambda *_: self._update_actions())
        self.controller.model.rowsRemoved.connect(lambda *_: self._update_actions())
        self.queue.selectionChanged.connect(self._selection_changed)
        self.panel.message.connect(lambda text: self.message.emit(text, 8000))
        self.panel.speakerRenamed.connect(self.controller.rename_speaker)
        self.panel.voiceRemembered.connect(self.controller.remember_voice)
        self.engine.stateChanged.connect(self._engine_changed)
        self.refresh_icons()
        self.retranslate()

    def apply_settings(self, new: Settings) -> None:
        """The next file runs with the new language and hotwords; the menu shows the language."""
        self.settings = new
        self.controller.apply_settings(new)
        self._show_languages()

    # -- adding files ----------------------------------------------------------------------

    def add_paths(self, paths: Sequence[str]) -> None:
        """Queue files; folders are walked in the background and queued when the walk ends."""
        if not paths:
            return
        self.raiseRequested.emit()
        jobs = self.controller.add_paths(paths)
        if not self.controller.scanning:
            self._scan_finished(jobs)

    def _scan_finished(self, jobs: list) -> None:
        if jobs and not self.queue.selected_ids():
            self.queue.select_job(jobs[0].id)
        if not jobs:
            self.message.emit(self.tr("No new audio or video files there."), 6000)

    def add_files_dialog(self) -> None:
        pattern = self.tr("Audio and video files ({0})").format(FILE_DIALOG_PATTERNS)
        paths, _ = QFileDialog.getOpenFileNames(
            self, self.tr("Add files"), "", f"{pattern};;{self.tr('All files (*)')}"
        )
        if paths:
            self.add_paths(paths)

    def add_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add folder"))
        if folder:
            self.add_paths([folder])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Drags over the window (it installs this page as its event filter): files and folders are taken."""
        if isinstance(event, QDragEnterEvent):
            if event.mimeData().hasUrls():
                event.acceptProposedAction()
            else:
                event.ignore()
            return True
        if isinstance(event, QDragMoveEvent) and event.type() == QEvent.Type.DragMove:
            if event.mimeData().hasUrls():
                event.acceptProposedAction()
            return True
        if isinstance(event, QDropEvent) and event.type() == QEvent.Type.Drop:
            paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
            if paths:
                event.acceptProposedAction()
                self.add_paths(paths)
            return True
        return super().eventFilter(watched, event)

    # -- queue actions ---------------------------------------------------------------------

    def cancel_selected(self) -> None:
        self.controller.cancel(self.queue.selected_ids())

    def _update_actions(self) -> None:
        jobs = self.controller.model.jobs()
        active = {Status.WAITING, Status.RUNNING}
        self.actions["cancel"].setEnabled(any(j.status in active for j in self.queue.selected_jobs()))
        self.actions["cancel_all"].setEnabled(any(j.status in active for j in jobs))
        self.queueChanged.emit()

    def running_job(self) -> Job | None:
        """The file being transcribed now, if any."""
        return next((j for j in self.controller.model.jobs() if j.status is Status.RUNNING), None)

    def _selection_changed(self) -> None:
        self._update_actions()
        job = self.queue.current_job()
        if job is None:
            self.panel.show_job(None)
            return
        live = self.controller.live_segments(job.id) if job.status is Status.RUNNING else None
        self.panel.show_job(job, self.controller.transcript(job.id), live, unsaved=self.controller.is_unsaved(job.id))

    def _job_changed(self, job_id: int) -> None:
        job = self.queue.current_job()
        if job is not None and job.id == job_id:
            self._selection_changed()

    def _live_segments(self, job_id: int) -> None:
        job = self.queue.current_job()
        live = self.controller.live_segments(job_id)
        if job is None or job.id != job_id or live is None:
            return
        if self.panel.transcript is None:
            self.panel.show_job(job, None, live)
        else:
            self.panel.append_live(live[len(self.panel.segments.segments) :])

    # -- the files model ---------------------------------------------------------------------

    def _engine_changed(self) -> None:
        self.files_bar.show_model(files_page_text(self.engine))
        self._show_languages()

    def files_languages(self) -> tuple[str, ...] | None:
        """What the files model can be told, from its Engine (None until it has loaded once)."""
        engine = self.engine.engine_of("files")
        return engine.languages if engine is not None else None

    def _show_languages(self) -> None:
        self.files_bar.show_languages(self.files_languages(), self.settings.language)

    def _choose_language(self, code: str) -> None:
        """The language menu: saved like any setting (dictation uses it too)."""
        if code != self.settings.language:
            self.settingsChosen.emit(replace(self.settings, language=code))

    # -- looks, state, ending ------------------------------------------------------------------

    def retranslate(self) -> None:
        texts = {
            "add_files": (self.tr("Add files"), self.tr("Add audio or video files to the queue (Ctrl+O)")),
            "add_folder": (self.tr("Add folder"), self.tr("Add every audio and video file in a folder")),
            "cancel": (self.tr("Cancel"), self.tr("Cancel the selected files")),
            "cancel_all": (self.tr("Cancel all"), self.tr("Cancel every file that is waiting or transcribing")),
        }
        for key, (text, tip) in texts.items():
            self.actions[key].setText(text)
            self.actions[key].setToolTip(tip)
        self.files_bar.retranslate()
        self.queue.retranslate()
        self.panel.retranslate()
        self.scan_status.retranslate()
        self._engine_changed()
        self._update_actions()

    def refresh_icons(self) -> None:
        for action in self.actions.values():
            action.setIcon(icons.glyph(str(action.property("glyph")), self.palette()))
        self.queue.refresh_icons()
        self.panel.refresh_icons()

    def changeEvent(self, event: QEvent) -> None:
        theme.follow(event, self.retranslate, self.refresh_icons)
        super().changeEvent(event)

    def save_state(self) -> str:
        """The splitter's state, base64 (kept in the settings with the window's geometry)."""
        return bytes(self.splitter.saveState().toBase64().data()).decode()

    def restore_state(self, state: str) -> None:
        if state:
            self.splitter.restoreState(QByteArray.fromBase64(state.encode()))

    def shutdown(self) -> None:
        self.panel.stop_playback()


def files_page_text(host: EngineHost) -> str:
    """The Files page's line naming its model (rich text)."""
    choice = host.choice_of("files")
    name = html.escape(choice.name if choice is not None else "")
    if not name:
        return QCoreApplication.translate("ModelUse", "Model: none installed yet")
    return QCoreApplication.translate("ModelUse", "Model: <b>{0}</b>").format(name)
