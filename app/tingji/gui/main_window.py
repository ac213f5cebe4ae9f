"""The main window: the frame around the pages (Files, Dictation), with the toolbar, banners and status bar.

The pages do their own work: Files (files/page.py) and Dictation (dictation/panel.py, run by its host).
The window owns what is about the whole app: the settings (`self.settings` is the app's copy; a change
is saved, then each page and host applies it), the way to the model dialogs, the status lines, the tray
icon, and its geometry. With a system tray, closing the window only hides it (dictation's hotkey keeps
working; a note says so once) and Quit in the tray menu ends the app; without one, closing quits.
Quitting stops dictation first, then the queue's threads and the engine.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QByteArray, QEvent, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..dictation.settings import DictationSettings
from ..errors import TingjiError
from . import i18n, icons, theme
from . import settings as settings_mod
from .dictation.host import DictationHost
from .dictation.status import DictationStatus
from .engine_host import EngineHost
from .errors import localized
from .files.controller import QueueController
from .files.page import FilesPage
from .models.dialogs import ModelDialogs
from .models.status import EngineBanner, EngineStatus
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
        *,
        tray: bool | None = None,
    ) -> None:
        """The parts come wired (gui/app.py). `tray`: None uses one where the desktop has one (tests force it)."""
        super().__init__()
        self.controller = controller
        self.engine = engine
        self.dictation_host = dictation
        self.settings = settings
        self._quitting = self._shut_down = False
        self.setWindowIcon(icons.app_icon())
        self.setAcceptDrops(True)  # the Files page takes the drops (its eventFilter)
        self.resize(1100, 700)
        self.setMinimumSize(760, 480)
        self._build_pages()
        self._build_toolbar()
        self._build_status_bar()
        self._build_tray(tray)
        self._connect()
        if settings.window_geometry:
            self.restoreGeometry(QByteArray.fromBase64(settings.window_geometry.encode()))
        self.files.restore_state(settings.splitter_state)
        self.refresh_icons()
        self.retranslate()

    def _build_pages(self) -> None:
        """The banners over two pages: Files (queue | transcript) and Dictation."""
        self.banner = EngineBanner(self.engine)  # the engine: no model, failed to load, warnings
        self.storage_banner = StorageBanner(self.controller)  # the app's databases: set aside, writes failing
        self.files = FilesPage(self.controller, self.engine, self.settings)
        self.installEventFilter(self.files)  # drops anywhere on the window
        self.dictation = self.dictation_host.panel
        self.pages = QTabWidget()
        self.pages.setObjectName("pages")
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.files, "")
        self.pages.addTab(self.dictation, "")
        self.show_page(self.settings.page)
        self.models = ModelDialogs(self.engine, self, lambda: self.settings, self.apply_settings)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 4, 8, 0)
        layout.setSpacing(6)
        layout.addWidget(self.banner)
        layout.addWidget(self.storage_banner)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

    def _build_toolbar(self) -> None:
        """The Files page's actions (add files/folder, Cancel, Cancel all), and Settings at the far end."""
        settings = QAction(self)
        settings.setShortcut(QKeySequence.StandardKey.Preferences)
        settings.triggered.connect(self.open_settings)
        self.actions: dict[str, QAction] = {**self.files.actions, "settings": settings}
        toolbar = QToolBar()
        toolbar.setObjectName("mainToolbar")
        toolbar.setMovable(False)
        toolbar.setFloatable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        self.addToolBar(toolbar)
        for key, action in self.files.actions.items():
            toolbar.addAction(action)
            if key == "add_folder":
                toolbar.addSeparator()
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        toolbar.addWidget(spacer)
        toolbar.addAction(settings)

    def _build_status_bar(self) -> None:
        """The engine's state, the folder-walk sign and dictation's state."""
        self.engine_label = EngineStatus(self.engine)
        self.dictation_label = DictationStatus(self.dictation_host)
        self.dictation_label.linkActivated.connect(lambda _: self.show_page("dictation"))
        self.statusBar().addWidget(self.engine_label, 1)
        self.statusBar().addPermanentWidget(self.files.scan_status)
        self.statusBar().addPermanentWidget(self.dictation_label)
        self.statusBar().setSizeGripEnabled(True)

    def _build_tray(self, tray: bool | None) -> None:
        """The tray icon (None: where the desktop has one) and Ctrl+Q, which quits even when closing hides."""
        use_tray = Tray.available() if tray is None else tray
        self.tray = Tray(self.windowIcon(), self) if use_tray else None
        if self.tray is not None:
            self.tray.showRequested.connect(self.bring_to_front)
            self.tray.quitRequested.connect(self.quit_app)
            self.controller.queueFinished.connect(self.tray.say_queue_finished)
        self.tray_notice: QMessageBox | None = None
        quit_action = QAction(self)  # Ctrl+Q quits even when closing only hides
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.quit_app)
        self.addAction(quit_action)

    def _connect(self) -> None:
        """Follow the parts' signals."""
        self.files.message.connect(self.statusBar().showMessage)
        self.files.raiseRequested.connect(lambda: self.show_page("files"))
        self.files.settingsChosen.connect(self.apply_settings)
        self.files.modelsRequested.connect(lambda: self.models.open_manager())
        self.files.queueChanged.connect(self._update_tray)
        self.dictation.model_label.linkActivated.connect(lambda _: self.models.open_manager())
        self.dictation_host.stateChanged.connect(self._update_tray)
        self.dictation_host.problem.connect(self._dictation_problem)
        self.dictation_host.settingsChanged.connect(self._dictation_settings_changed)
        self.banner.settingsRequested.connect(self.open_settings)
        self.banner.pickerRequested.connect(self.models.open_picker)
        self.banner.managerRequested.connect(lambda: self.models.open_manager())
        self.storage_banner.message.connect(lambda text: self.statusBar().showMessage(text, 15000))
        QApplication.styleHints().colorSchemeChanged.connect(self._scheme_changed)

    def _update_tray(self) -> None:
        if self.tray is not None:
            running = self.files.running_job()
            self.tray.show_activity(running.name if running is not None else None, self.dictation_host.state)

    def _dictation_problem(self, error: TingjiError) -> None:
        text = localized(error)
        self.statusBar().showMessage(self.tr("Dictation: {0}").format(text), 10000)
        if self.tray is not None and not self.isVisible():
            self.tray.notify(self.tr("Dictation"), text)

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.settings, self, languages=self.files.files_languages())
        dialog.manageModelsRequested.connect(lambda: self.models.open_manager(dialog))
        settings = dialog.settings() if dialog.exec() else None
        dialog.deleteLater()  # exec() leaves it Python's and the window's: Qt alone deletes it (gui/__init__.py)
        if settings is not None:
            self.apply_settings(settings)

    def apply_settings(self, new: Settings) -> None:
        """Save, then each page and host applies what is its own (a model reload in the background, the
        language spoken at once); the window applies the look."""
        old = self.settings
        new = self.settings = self._with_geometry(new)
        self._save_settings(quiet=False)
        for part in (self.files, self.dictation_host, self.engine):  # the engine last: a reload releases
            part.apply_settings(new)  # the engine after dictation has the new settings
        app = QApplication.instance()
        if new.ui_language != old.ui_language:
            i18n.install(app, new.ui_language)  # LanguageChange -> retranslate()
        if new.appearance != old.appearance:
            theme.apply_appearance(app, new.appearance)

    def _dictation_settings_changed(self, dictation: DictationSettings) -> None:
        """The dictation page changed a setting (its host and controller have it already): save it."""
        self.settings = replace(self.settings, dictation=replace(dictation))  # not apply_settings(): no reload
        self._save_settings()
        self.dictation_label.refresh()  # the status bar names the hotkey

    def _save_settings(self, quiet: bool = True) -> None:
        try:
            settings_mod.save(self._with_geometry(self.settings))
        except OSError as exc:  # a full disk, a read-only folder: the change still applies to this session
            if not quiet:
                message = self.tr("The settings could not be saved: {0}").format(exc.strerror or exc)
                self.statusBar().showMessage(message, 15000)

    def _scheme_changed(self) -> None:
        if self.settings.appearance == "system":
            theme.apply_appearance(QApplication.instance(), "system")

    def retranslate(self) -> None:
        """The window's own texts (the pages, banners and status lines follow LanguageChange themselves)."""
        self.setWindowTitle(self.tr("Tingji"))
        self.pages.setTabText(0, self.tr("Files"))
        self.pages.setTabToolTip(0, self.tr("Transcribe audio and video files"))
        self.pages.setTabText(1, self.tr("Dictation"))
        self.pages.setTabToolTip(1, self.tr("Speak into any application with a hotkey"))
        self.actions["settings"].setText(self.tr("Settings"))
        self.actions["settings"].setToolTip(self.tr("Model, language, output formats, appearance"))
        self.dictation_host.show_model()
        if self.tray is not None:
            self.tray.retranslate()
        self._update_tray()

    def refresh_icons(self) -> None:
        self.actions["settings"].setIcon(icons.glyph("settings", self.palette()))
        self.pages.setTabIcon(0, icons.glyph("files", self.palette()))
        self.pages.setTabIcon(1, icons.glyph("mic", self.palette()))
        self.banner.restyle()
        self.storage_banner.restyle()

    def changeEvent(self, event: QEvent) -> None:
        theme.follow(event, self.retranslate, self.refresh_icons)
        super().changeEvent(event)

    def bring_to_front(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def show_page(self, page: str) -> None:
        """ "files" or "dictation"."""
        self.pages.setCurrentWidget(self.dictation if page == "dictation" else self.files)

    def _with_geometry(self, s: Settings) -> Settings:
        return replace(
            s,
            window_geometry=bytes(self.saveGeometry().toBase64().data()).decode(),
            splitter_state=self.files.save_state(),
            page="dictation" if self.pages.currentWidget() is self.dictation else "files",
        )

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
        self.tray_notice = self.tray.say_still_running()  # once
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
        self._save_settings()
        self.files.shutdown()
        self.models.shutdown()
        self.dictation_host.shutdown()  # before the engine it uses is closed
        self.controller.shutdown()  # cancels the running file: the engine thread is free to end
        self.engine.shutdown()
        self.dictation.close_history()
        if self.tray is not None:
            self.tray.hide()
        self.quitting.emit()
