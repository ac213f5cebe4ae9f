"""The model manager's background thread: downloads, imports, verification, removal.

Every store operation can take minutes (gigabytes to fetch, hash or copy), so
the dialog hands each one to this worker as a queued slot call and hears back
only through signals; the GUI thread never waits on disk or network. One task
runs at a time. Cancelling cannot go through the queue (the worker is busy
inside the task), so each task carries a `threading.Event` the dialog sets
directly; the store checks it between blocks and the downloader's watchdog
closes a blocked socket at once. A cancelled download leaves its `.part`
file, and the next download of the same model resumes from it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal, Slot

from ...errors import Cancelled, TingjiError
from ...models import cache, installed, store
from ...models.catalog import load_catalog
from .. import messages
from ..errors import internal_error

log = logging.getLogger(__name__)
_PROGRESS_INTERVAL_S = 0.05


@dataclass
class Task:
    """One request: `kind` is download, import, verify, remove, discard (a partial download) or forget (pins)."""

    kind: str
    name: str
    folder: str = ""  # import: the folder to copy
    cancel: threading.Event = field(default_factory=threading.Event)


class ModelWorker(QObject):
    """Runs `Task`s in its own thread; slots run there, results return as signals."""

    # stage, bytes done, total bytes (None when unknown), bytes per second. Byte counts go as
    # Python objects: a Qt int is 32-bit and models are larger than 2 GB.
    progress = Signal(str, object, object, float)
    finished = Signal(object, object)  # Task, result (InstallResult, Manifest or None)
    failed = Signal(object, object)  # Task, why (a TingjiError: the dialog says it in the UI language)
    cancelled = Signal(object)  # Task

    def __init__(self) -> None:
        super().__init__()
        self._last_emit = 0.0

    def _progress_for(self, task: Task) -> Callable[[str, int, int | None, float], None]:
        """A store progress callback that also stops the task when cancelled.

        Raising from the callback is what makes every stage cancellable, even
        those the store gives no cancel argument (hashing, converting)."""

        def progress(stage: str, done: int, total: int | None, bps: float) -> None:
            if task.cancel.is_set():
                raise Cancelled()
            self._forward(stage, done, total, bps)

        return progress

    def _forward(self, stage: str, done: int, total: int | None, bps: float) -> None:
        """At most ~20 updates a second reach the GUI (hashing reports every MiB); the last one always."""
        now = time.monotonic()
        if now - self._last_emit < _PROGRESS_INTERVAL_S and not (total and done >= total):
            return
        self._last_emit = now
        self.progress.emit(stage, int(done), None if total is None else int(total), float(bps))

    @Slot(object)
    def run(self, task: Task) -> None:
        try:
            if task.cancel.is_set():
                raise Cancelled()
            progress = self._progress_for(task)
            if task.kind == "download":
                result: object = store.download_catalog_model(task.name, progress, task.cancel)
            elif task.kind == "import":
                result = store.import_folder(task.folder, task.name or None, progress=progress, cancel=task.cancel)
            elif task.kind == "verify":
                result = installed.verify(task.name, progress=progress)
            elif task.kind == "remove":
                installed.remove(task.name)
                result = None
            elif task.kind == "discard":
                cache.discard_cached(task.name)
                result = None
            elif task.kind == "forget":
                result = load_catalog().forget_pins(task.name)
            else:
                raise TingjiError(messages.UNKNOWN_TASK, task=task.kind)
        except Cancelled:
            self.cancelled.emit(task)
        except TingjiError as exc:
            self.failed.emit(task, exc)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.failed.emit(
                task,
                TingjiError(messages.SYSTEM_REFUSED, reason=reason, file=exc.filename)
                if exc.filename
                else TingjiError(messages.SYSTEM_REFUSED_NO_FILE, reason=reason),
            )
        except Exception as exc:  # a bug: say so in the dialog rather than die silently
            log.exception("model task %s %s failed", task.kind, task.name)
            self.failed.emit(task, internal_error(exc))
        else:
            self.finished.emit(task, result)
