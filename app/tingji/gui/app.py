"""Start the desktop app: `run_app()` is what `tingji` with no arguments calls.

Start-up order matters for how the app feels: the window is shown first and
the model loads in the background afterwards, so the user sees the queue (and
any files left from last time) within a second even when the model takes ten
to warm up.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Sequence

from PySide6.QtCore import QLockFile, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from ..models.staging import cleanup_incoming
from ..paths import database_path, gui_lock_path, gui_log_path
from . import gc_guard, i18n, icons, settings as settings_mod, theme
from .controller import QueueController
from .main_window import MainWindow
from .storage import Store

log = logging.getLogger(__name__)


def create_app(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication with our names, icon, language and appearance (reused if one exists)."""
    app = QApplication.instance()
    if app is None:
        if sys.platform == "win32":  # our own taskbar icon instead of python.exe's
            try:
                import ctypes

                ctypes.windll.shell32.SetCurrentProcessExplicitAppUserModelID("Tingji.Tingji")
            except Exception:
                pass
        app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    assert isinstance(app, QApplication)
    gc_guard.install(app)
    app.setApplicationName("Tingji")
    app.setApplicationDisplayName("Tingji")
    app.setOrganizationName("Tingji")
    app.setDesktopFileName("tingji")
    app.setWindowIcon(icons.app_icon())
    settings = settings_mod.load()
    i18n.install(app, settings.ui_language)
    theme.apply_appearance(app, settings.appearance)
    return app


def create_window(files: Sequence[str] = (), **options: Any) -> MainWindow:
    """Settings + store + controller + window; starts loading the model in the background.

    `options` go to MainWindow (tests: tray, dictation_microphone, use_hotkey)."""
    settings = settings_mod.load()
    controller = QueueController(Store(database_path()), settings)
    window = MainWindow(controller, **options)
    controller.setParent(window)
    if files:
        window.add_paths(list(files))
    # After the window is up: the load itself runs on the engine thread.
    QTimer.singleShot(0, controller.reload_engine)
    return window


def _setup_logging() -> None:
    try:
        handler: logging.Handler = logging.FileHandler(gui_log_path(), encoding="utf-8")
    except OSError:
        handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if os.environ.get("TINGJI_DEBUG") else logging.INFO)


def run_app(files: Sequence[str] = (), argv: Sequence[str] | None = None) -> int:
    """Open the main window and run until it closes; files given are queued."""
    _setup_logging()
    app = create_app(argv)
    # One app per data folder: two would both work through the same queue.
    lock = QLockFile(str(gui_lock_path()))
    lock.setStaleLockTime(0)  # only a live process holds it; a killed one's lock is taken over
    if not lock.tryLock(200):
        QMessageBox.information(None, "Tingji", app.translate("App", "Tingji is already running."))
        return 1
    try:
        # Half-installed models a crash left behind (an install still running elsewhere holds a lock on its own).
        removed = cleanup_incoming()
        if removed:
            log.info("start-up: removed %d leftover install folder(s): %s", len(removed),
                     ", ".join(p.name for p in removed))
        window = create_window(files)
        # With a tray, closing the window hides it; the app ends on the tray's Quit. (Qt would
        # otherwise also quit when some dialog closes while the main window is hidden.)
        app.setQuitOnLastWindowClosed(window.tray is None)
        window.quitting.connect(app.quit)
        # Logging off: a window that only hides would veto the session's end.
        app.commitDataRequest.connect(lambda _manager: window.quit_app())
        app.aboutToQuit.connect(window.quit_app)  # any other way out stops the threads too
        window.show()
        return app.exec()
    finally:
        lock.unlock()
