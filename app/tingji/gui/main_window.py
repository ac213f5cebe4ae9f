"""The main window: toolbar, notice banner, queue | transcript, status bar.

It wires widgets to the controller and owns the things that are about the
whole app: drops anywhere on the window, the settings dialog (and applying
its result: save, reload model, switch language and appearance), the engine
status line, the tray icon, and saving its geometry on close.
"""

from __future__ import annotations

import html
from typing import Sequence

from PySide6.QtCore import QByteArray, QEvent, Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (QApplication, QFileDialog, QLabel, QMainWindow, QMessageBox, QSizePolicy, QSplitter,
                               QToolBar, QVBoxLayout, QWidget)

from . import files, i18n, icons, settings as settings_mod, theme
from .banner import NoticeBanner
from .controller import EngineState, QueueController
from .model_choice import DOWNLOAD_COMMAND
from .queue_view import QueuePanel
from .settings import Settings
from .settings_dialog import SettingsDialog
from .storage import Status
from .transcript_view import PROVIDER_NAMES, TranscriptPanel
from .tray import Tray


class MainWindow(QMainWindow):
    def __init__(self, controller: QueueController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowIcon(icons.app_icon())
        self.setAcceptDrops(True)
        self.resize(1100, 700)
        self.setMinimumSize(760, 480)

        self.actions: dict[str, QAction] = {}
        toolbar = QToolBar()
        toolbar.setObjectName("mainToolbar")
        toolbar.setMovable(False)
        toolbar.setFloatable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        self.addToolBar(toolbar)
        for key, glyph, slot, shortcut in (
                ("add_files", "add-file", self.add_files_dialog, QKeySequence.StandardKey.Open),
                ("add_folder", "folder", self.add_folder_dialog, None),
                ("-", "", None, None),
                ("cancel", "cancel", self.cancel_selected, None),
                ("cancel_all", "cancel-all", controller.cancel_all, None),
                ("stretch", "", None, None),
                ("settings", "settings", self.open_settings, QKeySequence.StandardKey.Preferences)):
            if key == "-":
                toolbar.addSeparator()
                continue
            if key == "stretch":
                spacer = QWidget()
                spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
                toolbar.addWidget(spacer)
                continue
            action = QAction(self)
            action.setProperty("glyph", glyph)
            action.triggered.connect(slot)
            if shortcut is not None:
                action.setShortcut(shortcut)
            toolbar.addAction(action)
            self.actions[key] = action

        self.banner = NoticeBanner()
        self.queue = QueuePanel(controller)
        self.panel = TranscriptPanel()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.queue)
        self.splitter.addWidget(self.panel)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([600, 480])
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 6, 8, 0)
        layout.setSpacing(6)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self.engine_label = QLabel()
        self.engine_label.setObjectName("engineStatus")
        self.engine_label.setTextFormat(Qt.TextFormat.RichText)
        self.statusBar().addWidget(self.engine_label, 1)
        self.statusBar().setSizeGripEnabled(True)

        self.tray = Tray(self.windowIcon(), self) if Tray.available() else None
        if self.tray is not None:
            self.tray.showRequested.connect(self.bring_to_front)
            self.tray.quitRequested.connect(self.close)

        controller.engineStateChanged.connect(self._engine_changed)
        controller.jobChanged.connect(self._job_changed)
        controller.liveSegments.connect(self._live_segments)
        controller.queueFinished.connect(self._queue_finished)
        controller.notice.connect(lambda text: self.statusBar().showMessage(text, 10000))
        controller.model.dataChanged.connect(lambda *_: self._update_actions())
        controller.model.rowsInserted.connect(lambda *_: self._update_actions())
        controller.model.rowsRemoved.connect(lambda *_: self._update_actions())
        self.queue.selectionChanged.connect(self._selection_changed)
        self.panel.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        QApplication.styleHints().colorSchemeChanged.connect(self._scheme_changed)

        self._restore_geometry(controller.settings)
        self.refresh_icons()
        self.retranslate()

    # -- adding files ----------------------------------------------------------------------

    def add_paths(self, paths: Sequence[str]) -> None:
        jobs = self.controller.add_paths(paths)
        if jobs and not self.queue.selected_ids():
            self.queue.select_job(jobs[0].id)
        if not jobs and paths:
            self.statusBar().showMessage(self.tr("No new audio or video files there."), 6000)

    def add_files_dialog(self) -> None:
        pattern = self.tr("Audio and video files ({0})").format(files.FILE_DIALOG_PATTERNS)
        paths, _ = QFileDialog.getOpenFileNames(self, self.tr("Add files"), "",
                                                f"{pattern};;{self.tr('All files (*)')}")
        if paths:
            self.add_paths(paths)

    def add_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add folder"))
        if folder:
            self.add_paths([folder])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.add_paths(paths)

    # -- queue actions ---------------------------------------------------------------------

    def cancel_selected(self) -> None:
        self.controller.cancel(self.queue.selected_ids())

    def _update_actions(self) -> None:
        jobs = self.controller.model.jobs()
        active = {Status.WAITING, Status.RUNNING}
        self.actions["cancel"].setEnabled(any(j.status in active for j in self.queue.selected_jobs()))
        self.actions["cancel_all"].setEnabled(any(j.status in active for j in jobs))
        running = next((j for j in jobs if j.status is Status.RUNNING), None)
        if self.tray is not None:
            self.tray.set_status(self.tr("transcribing {0}").format(running.name) if running else "")

    def _selection_changed(self) -> None:
        self._update_actions()
        job = self.queue.current_job()
        if job is None:
            self.panel.show_job(None)
            return
        live = self.controller.live_segments(job.id) if job.status is Status.RUNNING else None
        self.panel.show_job(job, self.controller.transcript(job.id), live)

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
            self.panel.append_live(live[len(self.panel.segments.segments):])

    def _queue_finished(self, done: int, failed: int) -> None:
        if self.tray is not None and not self.isActiveWindow():
            text = self.tr("Queue finished. Done: {0} · Failed: {1}").format(done, failed)
            self.tray.notify(self.tr("Tingji"), text)

    # -- engine status ------------------------------------------------------------------------

    def _engine_changed(self) -> None:
        c = self.controller
        state, detail = c.engine_state, html.escape(c.engine_detail)
        color = theme.engine_color(state.value, self.palette()).name()
        dot = f'<span style="color:{color}; font-size:14pt;">●</span>&nbsp;'
        if state is EngineState.LOADING:
            text = self.tr("Loading model {0}…").format(detail)
        elif state is EngineState.READY:
            where = PROVIDER_NAMES.get(c.engine_provider, c.engine_provider)
            text = self.tr("Ready · {0} on {1}").format(detail, where)
        elif state is EngineState.FAILED:
            text = self.tr("Model failed to load: {0}").format(detail)
        else:
            text = self.tr("No speech model installed")
        self.engine_label.setText(dot + text)
        self.engine_label.setToolTip("\n".join(c.engine_warnings))
        self._update_banner()

    def _update_banner(self) -> None:
        c = self.controller
        settings_button = (self.tr("Settings…"), self.open_settings)
        if c.engine_state is EngineState.NONE:
            self.banner.show_notice("info", self.tr(
                "<b>No speech model installed.</b> Run <code>{0}</code> in a terminal, "
                "or choose a model folder in Settings. Files you add now wait until a model is ready."
            ).format(DOWNLOAD_COMMAND), [settings_button, (self.tr("Manage models…"), self.open_model_manager)])
        elif c.engine_state is EngineState.FAILED:
            self.banner.show_notice("error", self.tr("<b>The speech model could not be loaded.</b> {0}").format(
                html.escape(c.engine_detail)), [settings_button])
        elif c.engine_state is EngineState.READY and c.engine_warnings:
            self.banner.show_notice("info", "<br>".join(html.escape(w) for w in c.engine_warnings),
                                    [(self.tr("Dismiss"), self.banner.hide)])
        else:
            self.banner.hide()

    # -- settings -------------------------------------------------------------------------------

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.controller.settings, self)
        dialog.manageModelsRequested.connect(self.open_model_manager)
        if dialog.exec():
            self.apply_settings(dialog.settings())

    def apply_settings(self, new: Settings) -> None:
        """Save, then apply: model/provider reload in the background, language and look at once."""
        old = self.controller.settings
        new = self._with_geometry(new)
        settings_mod.save(new)
        self.controller.apply_settings(new)
        app = QApplication.instance()
        if new.ui_language != old.ui_language:
            i18n.install(app, new.ui_language)  # LanguageChange -> retranslate()
        if new.appearance != old.appearance:
            theme.apply_appearance(app, new.appearance)

    def open_model_manager(self) -> None:
        """Hook for the model manager dialog (a later module: `tingji.gui.model_manager`).

        When it exists it must provide `ModelManagerDialog(parent)`; after it closes the
        engine is reloaded, so a newly installed model is picked up at once."""
        try:
            from .model_manager import ModelManagerDialog  # type: ignore[import-not-found]
        except ImportError:
            QMessageBox.information(self, self.tr("Models"), self.tr(
                "To install the recommended model, run this in a terminal:\n\n    {0}\n\n"
                "Then choose it in Settings, or restart Tingji.").format(DOWNLOAD_COMMAND))
            return
        ModelManagerDialog(self).exec()
        self.controller.reload_engine()

    def _scheme_changed(self) -> None:
        if self.controller.settings.appearance == "system":
            theme.apply_appearance(QApplication.instance(), "system")

    # -- looks ----------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Tingji"))
        texts = {
            "add_files": (self.tr("Add files"), self.tr("Add audio or video files to the queue (Ctrl+O)")),
            "add_folder": (self.tr("Add folder"), self.tr("Add every audio and video file in a folder")),
            "cancel": (self.tr("Cancel"), self.tr("Cancel the selected files")),
            "cancel_all": (self.tr("Cancel all"), self.tr("Cancel every file that is waiting or transcribing")),
            "settings": (self.tr("Settings"), self.tr("Model, language, output formats, appearance")),
        }
        for key, (text, tip) in texts.items():
            self.actions[key].setText(text)
            self.actions[key].setToolTip(tip)
        self.queue.retranslate()
        self.panel.retranslate()
        if self.tray is not None:
            self.tray.retranslate()
        self._engine_changed()
        self._update_actions()

    def refresh_icons(self) -> None:
        for action in self.actions.values():
            action.setIcon(icons.glyph(str(action.property("glyph")), self.palette()))
        self.queue.refresh_icons()
        self.panel.refresh_icons()
        self.banner.restyle()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.PaletteChange:
            self.refresh_icons()
            self._engine_changed()
        super().changeEvent(event)

    def bring_to_front(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    # -- geometry and closing ----------------------------------------------------------------------

    def _restore_geometry(self, s: Settings) -> None:
        if s.window_geometry:
            self.restoreGeometry(QByteArray.fromBase64(s.window_geometry.encode()))
        if s.splitter_state:
            self.splitter.restoreState(QByteArray.fromBase64(s.splitter_state.encode()))

    def _with_geometry(self, s: Settings) -> Settings:
        s = Settings(**{**s.__dict__})
        s.window_geometry = bytes(self.saveGeometry().toBase64().data()).decode()
        s.splitter_state = bytes(self.splitter.saveState().toBase64().data()).decode()
        return s

    def closeEvent(self, event: QCloseEvent) -> None:
        try:
            settings_mod.save(self._with_geometry(self.controller.settings))
        except OSError:
            pass  # a read-only data folder must not keep the window open
        self.panel.stop_playback()
        self.controller.shutdown()
        if self.tray is not None:
            self.tray.hide()
        event.accept()
