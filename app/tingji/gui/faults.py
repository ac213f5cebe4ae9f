"""Unexpected exceptions, from any thread: written to the log and shown in a dialog.

An exception nobody catches used to reach only stderr, which the windowed
build does not have: the user saw a queue that stopped moving and an empty
log. `FaultReporter.install()` takes over the three ways such an exception
surfaces in this app:

  * `sys.excepthook`: the main thread, and every slot Qt calls, including a
    worker's slot on its QThread (PySide6 reports those there, on the
    worker's thread);
  * `threading.excepthook`: plain Python threads (dictation's, the model
    manager's watchdog);
  * both run on the failing thread, so the dialog is posted to the GUI
    thread by a queued signal.

Each fault is logged with its traceback (logs/tingji-gui.log when
`run_app` set up logging), printed to stderr where there is one, and shown:
one dialog at a time, counting the faults that came while it was open.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QMessageBox

log = logging.getLogger(__name__)


class FaultReporter(QObject):
    """Logs and shows exceptions nothing else caught. Create it on the GUI thread."""

    _reported = Signal(str)  # "Type: message", to the GUI thread

    def __init__(self, log_path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.log_path = log_path
        self.count = 0  # faults shown since the dialog was last closed
        self.dialog: QMessageBox | None = None
        self._previous = (sys.excepthook, threading.excepthook)
        self._reported.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self) -> None:
        self._previous = (sys.excepthook, threading.excepthook)
        sys.excepthook = self._excepthook
        threading.excepthook = self._threading_excepthook

    def uninstall(self) -> None:
        """Put back the hooks that were there before install()."""
        sys.excepthook, threading.excepthook = self._previous

    # -- any thread ----------------------------------------------------------------------

    def _excepthook(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):  # Ctrl+C in a console: as Python does it
            self._previous[0](exc_type, exc, tb)
            return
        thread = threading.current_thread()
        name = thread.name
        if thread is not threading.main_thread():  # a QThread is a "Dummy" to Python: Qt knows its name
            name = QThread.currentThread().objectName() or name
        self.report(exc_type, exc, tb, name)

    def _threading_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        self.report(
            args.exc_type, args.exc_value, args.exc_traceback, args.thread.name if args.thread is not None else "?"
        )

    def report(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None, thread: str) -> None:
        log.critical("unexpected error in thread %s", thread, exc_info=(exc_type, exc, tb))
        if sys.stderr is not None:  # the console build, a terminal: the traceback as Python prints it
            traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
        self._reported.emit(f"{exc_type.__name__}: {exc}")

    # -- GUI thread ----------------------------------------------------------------------

    @Slot(str)
    def _show(self, summary: str) -> None:
        self.count += 1
        text = QCoreApplication.translate(
            "Faults",
            "Tingji ran into an unexpected problem and may not work as it should:\n\n{0}\n\n"
            "The details are in {1}. Restarting Tingji usually helps; please report the problem with "
            "that file.",
        ).format(summary, self.log_path)
        if self.count > 1:
            text += "\n\n" + QCoreApplication.translate(
                "Faults", "%n more problem(s) happened while this message was open.", "", self.count - 1
            )
        if self.dialog is None:
            self.dialog = QMessageBox(QMessageBox.Icon.Critical, "Tingji", text)
            self.dialog.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.dialog.finished.connect(self._closed)
            self.dialog.show()  # not modal: the app keeps running under it
        else:
            self.dialog.setText(text)

    def _closed(self) -> None:
        self.count = 0
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None
