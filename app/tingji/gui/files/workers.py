"""The Files page's light workers: probing durations and walking dropped folders.

Probing (reading a file's duration and rejecting non-media up front) runs on
its own thread so the queue shows durations at once even while a long file
is being transcribed on the engine thread. Walking a dropped folder runs on
another: a folder of a hundred thousand files, or one on a slow network
share, takes seconds that the GUI thread must not spend. Both are started by
`gui.threads.start_worker` and answer by signal only.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal, Slot

from ...engine import audio
from ..errors import problem_of
from .folders import expand

log = logging.getLogger(__name__)


class ProbeWorker(QObject):
    """Reads durations; a file that is not media fails here, before it reaches the engine."""

    probed = Signal(int, float)  # job id, duration in seconds (-1 = unknown)
    bad = Signal(int, object)  # job id, ErrorReport (errors.problem_of)

    @Slot(int, str)
    def probe(self, job_id: int, path: str) -> None:
        try:
            info = audio.probe(path)
        except Exception as exc:
            self.bad.emit(job_id, problem_of(exc))
            return
        self.probed.emit(job_id, float(info.duration_s) if info.duration_s is not None else -1.0)


class ScanWorker(QObject):
    """Expands dropped folders into the media files inside, off the GUI thread.

    Requests are served in order, so files dropped one after another are
    queued in that order. `progress` reports the count found so far (at most
    a few times a second) for the busy indicator."""

    progress = Signal(int, int)  # scan number, media files found so far
    done = Signal(int, list)  # scan number, expanded paths (empty when cancelled)

    @Slot(int, list, object)
    def scan(self, seq: int, paths: Sequence[str], cancel: threading.Event) -> None:
        last = 0.0

        def on_found(count: int) -> bool:
            nonlocal last
            now = time.monotonic()
            if now - last >= 0.2:
                last = now
                self.progress.emit(seq, count)
            return not cancel.is_set()

        try:
            found = expand(paths, on_found=on_found)
        except Exception:  # an unreadable folder part is skipped by os.walk; anything else is a bug
            log.exception("walking %s failed", paths)
            found = []
        self.done.emit(seq, [] if cancel.is_set() else found)
