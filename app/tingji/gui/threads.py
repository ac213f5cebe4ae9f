"""How the desktop app starts and stops its worker threads: one way, here.

Every background job of the GUI (the engine, probing durations, walking
folders, model downloads, starting dictation's global hotkey) is a QObject
worker moved to its own QThread. Requests reach it as queued signals, so they
run one after another in that thread, and answers come back as signals the
GUI thread receives; nobody shares a lock with the GUI thread. Why QThread
rather than `threading.Thread`: a worker that lives in a thread with an event
loop can take many requests, its signals are delivered on the GUI thread by
Qt, and `quit()` + `wait()` stops it after the request in hand.

The Qt-free packages the app drives (`tingji.dictation`'s capture and take
threads, the model manager's download watchdog) keep their own plain
threads; they run the same under the CLI, where no Qt exists.

An exception a worker's slot does not catch reaches `sys.excepthook`
(PySide6 reports it there, on the worker's thread): `gui/faults.py` logs it
and shows it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from PySide6.QtCore import QObject, QThread

log = logging.getLogger(__name__)

STOP_TIMEOUT_MS = 15_000


def start_worker(worker: QObject, name: str) -> QThread:
    """Move `worker` to a new running thread named `name`; the worker is deleted when the thread ends.

    The worker must have no parent (Qt moves only parentless objects); the caller keeps the
    returned thread and stops it with `stop_threads`."""
    thread = QThread()
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.finished.connect(worker.deleteLater)
    thread.start()
    return thread


def stop_threads(threads: Iterable[QThread], timeout_ms: int = STOP_TIMEOUT_MS) -> bool:
    """Ask every thread to stop after its current request, then wait for each. False if one did not stop."""
    threads = list(threads)
    for thread in threads:
        thread.quit()
    stopped = True
    for thread in threads:
        if not thread.wait(timeout_ms):
            log.warning("%s did not stop in time", thread.objectName())
            stopped = False
    return stopped
