"""The main window: toolbar, notice banner, two pages (Files: queue | transcript; Dictation), status bar.

It wires widgets to the controller and owns the things that are about the
whole app: drops anywhere on the window, the settings dialog (and applying
its result: save, reload model, switch language and appearance), the engine
and dictation status lines, the tray icon, and saving its geometry.

Closing: with a system tray, closing the window only hides it (dictation's
global hotkey keeps working; a note says so the first time) and Quit in the
tray menu ends the app. Without a tray, closing quits. Quitting stops
dictation first, then the queue's threads and the engine.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any, Sequence

from PySide6.QtCore import QByteArray, QEvent, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (QApplication, QFileDialog, QLabel, QMainWindow, QMessageBox, QSizePolicy,
                               QSplitter, QTabWidget, QToolBar, QVBoxLayout, QWidget)

from ..dictation.history import DictationHistory
from ..dictation.settings import DictationSettings
from . import files, i18n, icons, settings as settings_mod, theme
from .banner import NoticeBanner
from .controller import EngineState, QueueController
from .dictation_host import DictationHost, dictation_settings
from .dictation_panel import DictationPanel, hotkey_label
from .errors import localized_message
from .model_choice import DOWNLOAD_COMMAND
from .queue_view import QueuePanel
from .scan_status import ScanStatus
from .settings import Settings
from .settings_dialog import SettingsDialog
from .storage import Status
from .transcript_view import PROVIDER_NAMES, TranscriptPanel
from .tray import Tray


class MainWindow(QMainWindow):
    quitting = Signal()  # the app is really ending (not hidden to the tray): everything is stopped

    def __init__(self, controller: QueueController, parent: QWidget | None = None, *,
                 tray: bool | None = None, dictation_microphone: Any = None, use_hotkey: bool = True,
                 history: DictationHistory | None = None) -> None:
        """`tray`: None uses one where the desktop has one; True/False force it (tests).
        `dictation_microphone` builds the microphone from DictationSettings (tests; default: the
        real device); `use_hotkey=False` leaves the global hotkey off."""
        super().__init__(parent)
        self.controller = controller
        self._quitting = False
        self._shut_down = False
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

        self.history = history if history is not None else DictationHistory()
        self.dictation = DictationPanel(self.history, dictation_settings(controller.settings))
        self.dictation_host = DictationHost(controller, self.dictation, microphone=dictation_microphone,
                                            use_hotkey=use_hotkey, parent=self)
        self.pages = QTabWidget()
        self.pages.setObjectName("pages")
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.splitter, "")
        self.pages.addTab(self.dictation, "")
        self.pages.setCurrentWidget(self.dictation if controller.settings.page == "dictation" else self.splitter)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 4, 8, 0)
        layout.setSpacing(6)
        layout.addWidget(self.banner)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

        self.engine_label = QLabel()
        self.engine_label.setObjectName("engineStatus")
        self.engine_label.setTextFormat(Qt.TextFormat.RichText)
        self.scan_status = ScanStatus(controller)
        self.dictation_label = QLabel()
        self.dictation_label.setObjectName("dictationState")
        self.dictation_label.setTextFormat(Qt.TextFormat.RichText)
        self.dictation_label.linkActivated.connect(lambda _: self.show_page("dictation"))
        self.statusBar().addWidget(self.engine_label, 1)
        self.statusBar().addPermanentWidget(self.scan_status)
        self.statusBar().addPermanentWidget(self.dictation_label)
        self.statusBar().setSizeGripEnabled(True)

        use_tray = Tray.available() if tray is None else tray
        self.tray = Tray(self.windowIcon(), self) if use_tray else None
        if self.tray is not None:
            self.tray.showRequested.connect(self.bring_to_front)
            self.tray.quitRequested.connect(self.quit_app)
        self.tray_notice: QMessageBox | None = None
        quit_action = QAction(self)  # Ctrl+Q quits even when closing only hides
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.quit_app)
        self.addAction(quit_action)

        self.dictation_host.stateChanged.connect(self._dictation_changed)
        self.dictation_host.problem.connect(self._dictation_problem)
        self.dictation_host.settingsChanged.connect(self._dictation_settings_changed)
        controller.scanFinished.connect(self._scan_finished)

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
        """Queue files; folders are walked in the background and queued when the walk ends."""
        if not paths:
            return
        self.show_page("files")
        jobs = self.controller.add_paths(paths)
        if not self.controller.scanning:
            self._scan_finished(jobs)

    def _scan_finished(self, jobs: list) -> None:
        if jobs and not self.queue.selected_ids():
            self.queue.select_job(jobs[0].id)
        if not jobs:
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
        self._update_tray()

    def _update_tray(self) -> None:
        if self.tray is None:
            return
        running = next((j for j in self.controller.model.jobs() if j.status is Status.RUNNING), None)
        parts = [self.tr("transcribing {0}").format(running.name)] if running else []
        state = self.dictation_host.state
        if state == "listening":
            parts.append(self.tr("dictation: listening"))
        elif state == "transcribing":
            parts.append(self.tr("dictation: transcribing"))
        self.tray.set_status(" · ".join(parts))
        self.tray.set_recording(state == "listening")

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
        dialog.manageModelsRequested.connect(lambda: self.open_model_manager(dialog))
        if dialog.exec():
            self.apply_settings(dialog.settings())

    def apply_settings(self, new: Settings) -> None:
        """Save, then apply: model/provider reload in the background, language and look at once."""
        old = self.controller.settings
        new = self._with_geometry(new)
        settings_mod.save(new)
        self.controller.apply_settings(new)
        self.dictation_host.apply_app_settings(new)
        app = QApplication.instance()
        if new.ui_language != old.ui_language:
            i18n.install(app, new.ui_language)  # LanguageChange -> retranslate()
        if new.appearance != old.appearance:
            theme.apply_appearance(app, new.appearance)

    def open_model_manager(self, settings_dialog: SettingsDialog | None = None) -> None:
        """The model manager. "Use this model" is applied like a Settings change; after installs
        or removals the engine is reloaded, so a newly installed model is picked up at once."""
        from .model_manager import ModelManagerDialog

        choice = self.controller.model_choice
        dialog = ModelManagerDialog(self, current=choice.name if choice is not None and choice.ok else "")
        chosen: list[str] = []
        dialog.modelChosen.connect(chosen.append)
        dialog.modelChosen.connect(self.use_model)
        dialog.exec()
        if dialog.models_changed:
            self.controller.reload_engine()
        if isinstance(settings_dialog, SettingsDialog):  # opened from Settings: its model list is stale now
            settings_dialog._fill_models(chosen[-1] if chosen else str(settings_dialog.model.currentData() or ""))

    def use_model(self, name: str) -> None:
        """Make an installed model the app's model: saved, then loaded in the background."""
        self.apply_settings(replace(self.controller.settings, model=name))

    def _dictation_settings_changed(self, dictation: DictationSettings) -> None:
        """The dictation page changed a setting (the controller has it already): save it."""
        new = replace(self.controller.settings, dictation=replace(dictation))
        self.controller.settings = new  # not apply_settings(): that may reload the model
        self._save_settings()
        self._dictation_changed()  # the status bar names the hotkey

    def _save_settings(self) -> None:
        try:
            settings_mod.save(self._with_geometry(self.controller.settings))
        except OSError:
            pass  # a read-only data folder must not break the window

    def _scheme_changed(self) -> None:
        if self.controller.settings.appearance == "system":
            theme.apply_appearance(QApplication.instance(), "system")

    # -- looks ----------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Tingji"))
        self.pages.setTabText(0, self.tr("Files"))
        self.pages.setTabToolTip(0, self.tr("Transcribe audio and video files"))
        self.pages.setTabText(1, self.tr("Dictation"))
        self.pages.setTabToolTip(1, self.tr("Speak into any application with a hotkey"))
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
        self.scan_status.retranslate()
        if self.tray is not None:
            self.tray.retranslate()
        self._engine_changed()
        self._dictation_changed()
        self._update_actions()

    def refresh_icons(self) -> None:
        for action in self.actions.values():
            action.setIcon(icons.glyph(str(action.property("glyph")), self.palette()))
        self.pages.setTabIcon(0, icons.glyph("files", self.palette()))
        self.pages.setTabIcon(1, icons.glyph("mic", self.palette()))
        self.queue.refresh_icons()
        self.panel.refresh_icons()
        self.banner.restyle()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.PaletteChange:
            self.refresh_icons()
            self._engine_changed()
            self._dictation_changed()
        super().changeEvent(event)

    def bring_to_front(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def show_page(self, page: str) -> None:
        """"files" or "dictation"."""
        self.pages.setCurrentWidget(self.dictation if page == "dictation" else self.splitter)

    # -- dictation status ------------------------------------------------------------------------

    def _dictation_changed(self) -> None:
        host = self.dictation_host
        state = "unavailable" if host.state == "idle" and host.hotkey_problem else host.state
        key = hotkey_label(self.dictation.settings.hotkey)
        text = {
            "waiting": self.tr("Dictation: waiting for the model"),
            "idle": self.tr("Dictation: press {0}").format(key),
            "unavailable": self.tr("Dictation: hotkey unavailable"),
            "listening": self.tr("Dictation: listening…"),
            "transcribing": self.tr("Dictation: transcribing…"),
        }.get(state, state)
        color = theme.dictation_color(state, self.palette()).name()
        link = self.palette().color(self.palette().ColorRole.WindowText).name()
        self.dictation_label.setText(
            f'<span style="color:{color}; font-size:14pt;">●</span>&nbsp;'
            f'<a href="dictation" style="color:{link}; text-decoration:none;">{html.escape(text)}</a>')
        self.dictation_label.setToolTip(localized_message(host.hotkey_problem) if host.hotkey_problem else
                                        self.tr("Open the dictation page"))
        self._update_tray()

    def _dictation_problem(self, message: str) -> None:
        text = localized_message(message)
        self.statusBar().showMessage(self.tr("Dictation: {0}").format(text), 10000)
        if self.tray is not None and not self.isVisible():
            self.tray.notify(self.tr("Dictation"), text)

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
        s.page = "dictation" if self.pages.currentWidget() is self.dictation else "files"
        return s

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.tray is not None and not self._quitting:
            event.ignore()
            self.hide_to_tray()
            return
        self._shutdown()
        event.accept()

    def hide_to_tray(self) -> None:
        """Hide the window; the app, the queue and dictation keep running. Says so once."""
        self._save_settings()
        self.hide()
        if self.controller.settings.tray_notice_shown or self.tray is None:
            return
        title = self.tr("Tingji is still running")
        text = self.tr("Dictation and the queue keep working in the background. "
                       "Click the tray icon to open the window; choose Quit in its menu to exit.")
        if self.tray.supports_messages() and Tray.available():
            self.tray.notify(title, text)
        else:  # no balloons on this desktop: a small window, not modal, once
            self.tray_notice = QMessageBox(QMessageBox.Icon.Information, title, text)
            self.tray_notice.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.tray_notice.show()
        self.controller.settings = replace(self.controller.settings, tray_notice_shown=True)
        self._save_settings()

    def quit_app(self) -> None:
        """Really quit (the tray's Quit): stop dictation, the queue's threads and the engine."""
        self._quitting = True
        self.close()

    def _shutdown(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        if self.tray_notice is not None:
            self.tray_notice.close()
            self.tray_notice = None
        self._save_settings()
        self.panel.stop_playback()
        self.dictation_host.stop()  # before the engine it uses is closed
        self.controller.shutdown()
        self.dictation.close_history()
        if self.tray is not None:
            self.tray.hide()
        self.quitting.emit()
