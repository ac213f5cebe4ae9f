"""Start the desktop app: `run_app()` is what `tingji` with no arguments calls.

This is the one place where the app's parts are made and joined:

    settings.json ─▶ Settings
    tingji.sqlite3 ─▶ Store ───────────────▶ QueueController (files/) ─┐
    EngineHost (an engine thread per model: load, files, close) ◀─────┤
    dictation.sqlite3 ─▶ DictationHistory ─▶ DictationPanel ─▶ DictationHost (dictation/)
                                                                       └▶ MainWindow

Start-up order matters for how the app feels: the window is shown first and
the model loads in the background afterwards, so the user sees the queue (and
any files left from last time) within a second even when the model takes ten
to warm up.
"""

from __future__ import annotations

import logging
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence

from PySide6.QtCore import QLockFile, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from ..dictation.history import DictationHistory
from ..dictation.recording import AudioInput
from ..dictation.settings import DictationSettings
from ..models.staging import cleanup_incoming
from ..paths import database_path, dictation_database_path, gui_lock_path, gui_log_path
from . import gc_guard, i18n, icons, startup, theme
from . import settings as settings_mod
from .databases import open_or_set_aside
from .dictation.host import DictationHost
from .dictation.panel import DictationPanel
from .engine_host import EngineHost
from .faults import FaultReporter
from .files.controller import QueueController
from .files.storage import Store
from .main_window import MainWindow

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


def create_window(
    files: Sequence[str] = (),
    *,
    tray: bool | None = None,
    dictation_microphone: Callable[[DictationSettings], AudioInput] | None = None,
    use_hotkey: bool = True,
    model_picker: bool = True,
) -> MainWindow:
    """Make and join the app's parts, then start loading the models in the background.

    `tray` None uses one where the desktop has one (tests force it); `dictation_microphone`
    builds dictation's microphone (tests; default: the real device); `use_hotkey=False` leaves
    the global hotkey off; `model_picker=False` does not offer the model picker when no model
    is installed."""
    settings = settings_mod.load()
    # A damaged database, or one a newer Tingji wrote, is set aside (the window says where): never fatal.
    store, queue_aside = open_or_set_aside(Store, database_path())
    history, history_aside = open_or_set_aside(DictationHistory, dictation_database_path())
    engine = EngineHost(settings)
    controller = QueueController(store, engine, settings)
    panel = DictationPanel(history, settings.dictation)
    dictation = DictationHost(engine, panel, settings, microphone=dictation_microphone, use_hotkey=use_hotkey)
    window = MainWindow(controller, engine, dictation, settings, tray=tray)
    for part in (engine, controller, dictation):
        part.setParent(window)  # they live as long as the window
    window.storage_banner.show_set_aside([n for n in (queue_aside, history_aside) if n is not None])
    if files:
        window.files.add_paths(list(files))
    # After the window is up: the load itself runs on the engine thread.
    QTimer.singleShot(0, engine.reload)
    if model_picker:  # nothing installed (a first start): choose a model in the app, not in a terminal
        QTimer.singleShot(0, window.models.offer_picker)
    return window


def take_app_lock(lock: QLockFile) -> bool:
    """Hold the one-app-per-data-folder lock; False while another Tingji holds it.

    Only a live process holds it: a killed one's lock is taken over (stale time 0). Qt takes a
    lock whose process ID is alive and runs a program of the same name for a live one - and so
    a lock that names this very process, which no other instance can be: Windows hands a new
    process the ID of the killed one that left its lock (Wine does every time), so Tingji
    refused to start after a crash, saying it was already running.
    """
    lock.setStaleLockTime(0)
    if lock.tryLock(200):
        return True
    info = lock.getLockInfo()
    if isinstance(info, tuple) and info and info[0] == os.getpid():
        log.info("start-up: the app lock names this process (a killed Tingji's, its ID reused): taking it over")
        lock.removeStaleLockFile()
        return lock.tryLock(200)
    return False


def command_line_files(argv: Sequence[str], kept: Sequence[str]) -> list[str]:
    """The arguments of `argv` that Qt left in `kept` (its own options taken out), as absolute paths.

    Taken from `argv` and only checked against `kept`: on Windows Qt rebuilds its list from the
    process's command line, which for a Python script also holds the interpreter's own arguments.
    """
    left = Counter(kept[1:])
    files = []
    for arg in argv[1:]:
        if left[arg] > 0:
            left[arg] -= 1
            files.append(os.path.abspath(arg))
    return files


def setup_logging() -> logging.Handler:
    """Log to logs/tingji-gui.log (stderr when it cannot be opened); returns the handler added."""
    try:
        handler: logging.Handler = logging.FileHandler(gui_log_path(), encoding="utf-8")
    except OSError:
        handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if os.environ.get("TINGJI_DEBUG") else logging.INFO)
    return handler


def run_app(files: Sequence[str] = (), argv: Sequence[str] | None = None) -> int:
    """Open the main window and run until it closes.

    Args:
        files: files (or folders) to queue.
        argv: a command line (program first) for Qt, which applies its own options
            (`-platform offscreen`, `-style fusion`); the other arguments are queued too.
    """
    setup_logging()
    if QApplication.instance() is None:
        # Qt aborts the process when its platform plugin cannot load: say why in one line first.
        problem = startup.platform_problem(list(argv) if argv is not None else sys.argv[:1])
        if problem is not None:
            log.error("start-up: %s", problem)
            print(f"tingji: {problem}", file=sys.stderr)
            return 1
    app = create_app(argv)
    if argv is not None:
        files = [*files, *command_line_files(argv, app.arguments())]
    faults = FaultReporter(gui_log_path(), app)  # from here on, nothing unexpected goes unseen
    faults.install()
    # One app per data folder: two would both work through the same queue.
    lock = QLockFile(str(gui_lock_path()))
    if not take_app_lock(lock):
        QMessageBox.information(None, "Tingji", app.translate("App", "Tingji is already running."))
        return 1
    try:
        # Half-installed models a crash left behind (an install still running elsewhere holds a lock on its own).
        removed = cleanup_incoming()
        if removed:
            log.info(
                "start-up: removed %d leftover install folder(s): %s", len(removed), ", ".join(p.name for p in removed)
            )
        try:
            window = create_window(files)
        except Exception as exc:  # the windowed build has no console: say it, and where the details are
            log.exception("Tingji could not start")
            QMessageBox.critical(
                None,
                "Tingji",
                app.translate("App", "Tingji could not start: {0}\n\nThe details are in {1}.").format(
                    exc, gui_log_path()
                ),
            )
            return 1
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
