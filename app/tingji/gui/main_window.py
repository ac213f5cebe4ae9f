"""The main window: toolbar, notice banner, two pages (Files: queue | transcript; Dictation), status bar.

The parts behind it (queue controller, engine host, dictation host) come
wired from gui/app.py; the window builds the widgets, connects them to those
parts, and owns the things that are about the whole app: drops anywhere on
the window, the settings (`self.settings` is the app's current copy; the
dialog's result is saved, then handed to each part), the engine and dictation
status lines, the tray icon, and saving its geometry.

Closing: with a system tray, closing the window only hides it (dictation's
global hotkey keeps working; a note says so the first time) and Quit in the
tray menu ends the app. Without a tray, closing quits. Quitting stops
dictation first, then the queue's threads and the engine.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..dictation.settings import DictationSettings
from ..errors import TingjiError
from . import i18n, icons, theme
from . import settings as settings_mod
from .banner import NoticeBanner
from .dictation.host import DictationHost
from .dictation.panel import hotkey_label
from .engine_host import EngineHost, EngineState
from .errors import localized
from .files.controller import QueueController
from .files.folders import FILE_DIALOG_PATTERNS
from .files.model_bar import FilesModelBar
from .files.queue_view import QueuePanel
from .files.scan_status import ScanStatus
from .files.storage import Status
from .files.transcript_view import PROVIDER_NAMES, TranscriptPanel
from .models import uses
from .settings import Settings
from .settings_dialog import SettingsDialog
from .storage_banner import StorageBanner
from .tray import Tray


class MainWindow(QMainWindow):
    quitting = Signal()  # the app is really ending (not hidden to the tray): everything is stopped

    def __init__(
        self,
        controller: QueueController,
        engine: EngineHost,
        dictation: DictationHost,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        tray: bool | None = None,
    ) -> None:
        """The parts come ready-made and wired to each other (gui/app.py); the window adds the
        widgets, shows their state and applies settings. `tray`: None uses one where the desktop
        has one; True/False force it (tests)."""
        super().__init__(parent)
        self.controller = controller
        self.engine = engine
        self.dictation_host = dictation
        self.settings = settings
        self._quitting = False
        self._shut_down = False
        self.setWindowIcon(icons.app_icon())
        self.setAcceptDrops(True)
        self.resize(1100, 700)
        self.setMinimumSize(760, 480)

        self._build_toolbar()
        self._build_pages()
        self._build_status_bar()
        self._build_tray(tray)
        self._connect()
        self._restore_geometry(settings)
        self.refresh_icons()
        self.retranslate()

    def _build_toolbar(self) -> None:
        """Add files/folder, Cancel, Cancel all, and Settings at the far end."""
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
            ("cancel_all", "cancel-all", self.controller.cancel_all, None),
            ("stretch", "", None, None),
            ("settings", "settings", self.open_settings, QKeySequence.StandardKey.Preferences),
        ):
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

    def _build_pages(self) -> None:
        """The banners over two pages: Files (queue | transcript) and Dictation."""
        self.banner = NoticeBanner()  # the engine: no model, failed to load, warnings
        self.storage_banner = StorageBanner(self.controller)  # the app's databases: set aside, writes failing
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
        self.files_bar.languageChosen.connect(self.choose_language)
        self.files_bar.modelsRequested.connect(lambda: self.open_model_manager())
        self.files_page = QWidget()
        files_layout = QVBoxLayout(self.files_page)
        files_layout.setContentsMargins(0, 4, 0, 0)
        files_layout.setSpacing(4)
        files_layout.addWidget(self.files_bar)
        files_layout.addWidget(self.splitter, 1)

        self.dictation = self.dictation_host.panel
        self.history = self.dictation.history
        self.pages = QTabWidget()
        self.pages.setObjectName("pages")
        self.pages.setDocumentMode(True)
        self.dictation.model_label.linkActivated.connect(lambda _: self.open_model_manager())
        self.pages.addTab(self.files_page, "")
        self.pages.addTab(self.dictation, "")
        self.pages.setCurrentWidget(self.dictation if self.settings.page == "dictation" else self.files_page)
        self.picker = None  # the model picker while it is open (models/picker.py)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 4, 8, 0)
        layout.setSpacing(6)
        layout.addWidget(self.banner)
        layout.addWidget(self.storage_banner)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

    def _build_status_bar(self) -> None:
        """The engine's state, the folder-walk sign and dictation's state."""
        self.engine_label = QLabel()
        self.engine_label.setObjectName("engineStatus")
        self.engine_label.setTextFormat(Qt.TextFormat.RichText)
        self.scan_status = ScanStatus(self.controller)
        self.dictation_label = QLabel()
        self.dictation_label.setObjectName("dictationState")
        self.dictation_label.setTextFormat(Qt.TextFormat.RichText)
        self.dictation_label.linkActivated.connect(lambda _: self.show_page("dictation"))
        self.statusBar().addWidget(self.engine_label, 1)
        self.statusBar().addPermanentWidget(self.scan_status)
        self.statusBar().addPermanentWidget(self.dictation_label)
        self.statusBar().setSizeGripEnabled(True)

    def _build_tray(self, tray: bool | None) -> None:
        """The tray icon (None: where the desktop has one) and Ctrl+Q, which quits even when closing hides."""
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

    def _connect(self) -> None:
        """Follow the parts' signals."""
        self.dictation_host.stateChanged.connect(self._dictation_changed)
        self.dictation_host.problem.connect(self._dictation_problem)
        self.dictation_host.settingsChanged.connect(self._dictation_settings_changed)
        self.controller.scanFinished.connect(self._scan_finished)

        self.engine.stateChanged.connect(self._engine_changed)
        self.controller.jobChanged.connect(self._job_changed)
        self.controller.liveSegments.connect(self._live_segments)
        self.controller.queueFinished.connect(self._queue_finished)
        self.controller.notice.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.storage_banner.message.connect(lambda text: self.statusBar().showMessage(text, 15000))
        self.controller.model.dataChanged.connect(lambda *_: self._update_actions())
        self.controller.model.rowsInserted.connect(lambda *_: self._update_actions())
        self.controller.model.rowsRemoved.connect(lambda *_: self._update_actions())
        self.queue.selectionChanged.connect(self._selection_changed)
        self.panel.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        QApplication.styleHints().colorSchemeChanged.connect(self._scheme_changed)

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

    def _queue_finished(self, done: int, failed: int) -> None:
        if self.tray is not None and not self.isActiveWindow():
            text = self.tr("Queue finished. Done: {0} · Failed: {1}").format(done, failed)
            self.tray.notify(self.tr("Tingji"), text)

    # -- engine status ------------------------------------------------------------------------

    def _failure(self, use: str) -> str:
        """Why the use's model failed to load, in the UI language (plain text)."""
        error = self.engine.error_of(use)
        return localized(error) if error is not None else self.engine.detail_of(use)

    def _engine_changed(self) -> None:
        e = self.engine
        state, detail = e.state, html.escape(e.detail)
        if not e.shared():  # two models: say which runs what
            text, state = uses.status_text(e)
        elif state is EngineState.LOADING:
            text = self.tr("Loading model {0}…").format(detail)
        elif state is EngineState.READY:
            where = PROVIDER_NAMES.get(e.provider, e.provider)
            if e.device:  # which GPU: a PC often has an integrated and a discrete one
                where += f" ({html.escape(e.device)})"
            text = self.tr("Ready · {0} on {1}").format(detail, where)
        elif state is EngineState.FAILED:
            text = self.tr("Model failed to load: {0}").format(html.escape(self._failure("files")))
        elif state is EngineState.UNLOADED:
            text = self.tr(
                "Model {0} unloaded to free memory (idle) · it loads again for the next file or dictation"
            ).format(detail)
        else:
            text = self.tr("No speech model installed")
        color = theme.engine_color(state.value, self.palette()).name()
        dot = f'<span style="color:{color}; font-size:14pt;">●</span>&nbsp;'
        self.engine_label.setText(dot + text)
        tips = [*e.warnings]
        if not e.shared():
            for use in ("files", "dictation"):
                engine = e.engine_of(use)
                tips += [w for w in (engine.warnings if engine is not None else ()) if w not in tips]
        self.engine_label.setToolTip("\n".join(tips))
        self.files_bar.show_model(uses.files_page_text(e))
        self.dictation.model_label.setText(uses.dictation_page_text(e))
        self._show_languages()
        self._update_banner()

    def _files_languages(self) -> tuple[str, ...] | None:
        """What the files model can be told, from its Engine (None until it has loaded once)."""
        engine = self.engine.engine_of("files")
        return engine.languages if engine is not None else None

    def _show_languages(self) -> None:
        self.files_bar.show_languages(self._files_languages(), self.settings.language)

    def choose_language(self, code: str) -> None:
        """The files page's language menu: saved like any setting (dictation uses it too)."""
        if code != self.settings.language:
            self.apply_settings(replace(self.settings, language=code))

    def _update_banner(self) -> None:
        e = self.engine
        settings_button = (self.tr("Settings…"), self.open_settings)
        dictation = e.state_of("dictation")
        if e.state is EngineState.NONE:
            self.banner.show_notice(
                "info",
                QCoreApplication.translate(
                    "ModelUse",
                    "<b>No speech model installed.</b> Choose one to download, or import a model folder "
                    "you have. Files you add now wait until a model is ready.",
                ),
                [
                    (QCoreApplication.translate("ModelUse", "Choose a model…"), self.open_model_picker),
                    (self.tr("Manage models…"), lambda: self.open_model_manager()),
                ],
            )
        elif e.state is EngineState.FAILED:
            self.banner.show_notice(
                "error",
                self.tr("<b>The speech model could not be loaded.</b> {0}").format(html.escape(self._failure("files"))),
                [settings_button],
            )
        elif dictation is EngineState.FAILED and not e.shared():
            self.banner.show_notice(
                "error",
                QCoreApplication.translate("ModelUse", "<b>The dictation model could not be loaded.</b> {0}").format(
                    html.escape(self._failure("dictation"))
                ),
                [settings_button],
            )
        elif e.state is EngineState.READY and e.warnings:
            self.banner.show_notice(
                "info", "<br>".join(html.escape(w) for w in e.warnings), [(self.tr("Dismiss"), self.banner.hide)]
            )
        else:
            self.banner.hide()

    def offer_model_picker(self) -> None:
        """Nothing configured and nothing installed (a first start): open the model picker."""
        choice = self.engine.choice
        if choice is not None and choice.none_installed and self.picker is None:
            self.open_model_picker()

    def open_model_picker(self) -> None:
        """The model picker, beside the window (not modal): files can be added while a model downloads."""
        from .models.picker import ModelPickerDialog  # loaded when first opened: the catalog

        if self.picker is not None:
            self.picker.raise_()
            self.picker.activateWindow()
            return
        picker = self.picker = ModelPickerDialog(self)
        picker.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        picker.modelInstalled.connect(self._model_installed)
        picker.finished.connect(self._picker_closed)
        picker.show()

    def _picker_closed(self) -> None:
        self.picker = None

    def _model_installed(self, name: str) -> None:
        """A model was installed from the picker: the uses that had none (or failed) load now."""
        self.engine.apply_settings(self.settings)

    # -- settings -------------------------------------------------------------------------------

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.settings, self, languages=self._files_languages())
        dialog.manageModelsRequested.connect(lambda: self.open_model_manager(dialog))
        if dialog.exec():
            self.apply_settings(dialog.settings())

    def apply_settings(self, new: Settings) -> None:
        """Save, then apply: model/provider reload in the background, language and look at once."""
        old = self.settings
        new = self.settings = self._with_geometry(new)
        try:
            settings_mod.save(new)
        except OSError as exc:  # a full disk, a read-only folder: the change still applies to this session
            self.statusBar().showMessage(
                self.tr("The settings could not be saved: {0}").format(exc.strerror or exc), 15000
            )
        self.controller.apply_settings(new)
        self.dictation_host.apply_app_settings(new)
        self.engine.apply_settings(new)  # last: a reload releases the engine after dictation has the new settings
        self._show_languages()
        app = QApplication.instance()
        if new.ui_language != old.ui_language:
            i18n.install(app, new.ui_language)  # LanguageChange -> retranslate()
        if new.appearance != old.appearance:
            theme.apply_appearance(app, new.appearance)

    def open_model_manager(self, settings_dialog: SettingsDialog | None = None) -> None:
        """The model manager. "Use for files" / "Use for dictation" are applied like a Settings change;
        after installs or removals the engines are reloaded, so a newly installed model is picked up at once."""
        from .models.manager import ModelManagerDialog  # loaded when first opened: the catalog, downloads

        files, dictation = self.engine.choice_of("files"), self.engine.choice_of("dictation")
        files_name = files.name if files is not None and files.ok else ""
        dictation_name = dictation.name if dictation is not None and dictation.ok else ""
        dialog = ModelManagerDialog(
            self, current=files_name, dictation=None if self.engine.shared() else dictation_name
        )
        chosen: list[str] = []
        dialog.modelChosen.connect(lambda name, use: chosen.append(use))
        dialog.modelChosen.connect(self.use_model)
        dialog.exec()
        if dialog.models_changed:
            self.engine.reload()
        if settings_dialog is not None:  # opened from Settings: its model lists are stale now
            if chosen:  # what the window uses now (use_model applied it)
                settings_dialog.refresh_models(self.settings.model, self.settings.dictation_model)
            else:
                settings_dialog.refresh_models()

    def use_model(self, name: str, use: str = "files") -> None:
        """Make an installed model the one `use` ("files" or "dictation") runs: saved, then loaded in the
        background. Files only: dictation keeps the model it runs (it followed files until now)."""
        if use == "dictation":
            self.apply_settings(replace(self.settings, dictation_model=name))
            return
        dictation = self.settings.dictation_model
        if not dictation:
            current = self.engine.choice_of("dictation")
            dictation = self.settings.model or (current.name if current is not None and current.ok else "")
        if dictation == name:
            dictation = ""
        self.apply_settings(replace(self.settings, model=name, dictation_model=dictation))

    def _dictation_settings_changed(self, dictation: DictationSettings) -> None:
        """The dictation page changed a setting (the controller has it already): save it."""
        self.settings = replace(self.settings, dictation=replace(dictation))  # not apply_settings(): no reload
        self.dictation_host.settings = self.settings
        self._save_settings()
        self._dictation_changed()  # the status bar names the hotkey

    def _save_settings(self) -> None:
        try:
            settings_mod.save(self._with_geometry(self.settings))
        except OSError:
            pass  # a read-only data folder must not break the window

    def _scheme_changed(self) -> None:
        if self.settings.appearance == "system":
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
        self.files_bar.retranslate()
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
        self.storage_banner.restyle()

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
        """ "files" or "dictation"."""
        self.pages.setCurrentWidget(self.dictation if page == "dictation" else self.files_page)

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
            f'<a href="dictation" style="color:{link}; text-decoration:none;">{html.escape(text)}</a>'
        )
        self.dictation_label.setToolTip(
            localized(host.hotkey_problem) if host.hotkey_problem else self.tr("Open the dictation page")
        )
        self._update_tray()

    def _dictation_problem(self, error: TingjiError) -> None:
        text = localized(error)
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
        if self.settings.tray_notice_shown or self.tray is None:
            return
        title = self.tr("Tingji is still running")
        text = self.tr(
            "Dictation and the queue keep working in the background. "
            "Click the tray icon to open the window; choose Quit in its menu to exit."
        )
        if self.tray.supports_messages() and Tray.available():
            self.tray.notify(title, text)
        else:  # no balloons on this desktop: a small window, not modal, once
            self.tray_notice = QMessageBox(QMessageBox.Icon.Information, title, text)
            self.tray_notice.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.tray_notice.show()
        self.settings = replace(self.settings, tray_notice_shown=True)
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
        if self.picker is not None:
            self.picker.shutdown()
            self.picker = None
        self.dictation_host.shutdown()  # before the engine it uses is closed
        self.controller.shutdown()  # cancels the running file: the engine thread is free to end
        self.engine.shutdown()
        self.dictation.close_history()
        if self.tray is not None:
            self.tray.hide()
        self.quitting.emit()
