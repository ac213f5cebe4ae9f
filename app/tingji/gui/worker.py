"""Background workers: the engine thread and the probe thread.

The engine (ONNX Runtime + llama.cpp) is created, used and closed in ONE
thread that lives as long as the app, so its warm state is reused for every
file. The worker talks to the GUI by signals only (queued across threads); it
never touches a widget, the store or the settings. Requests arrive as queued
slot calls, so they are naturally serialised: a model reload asked for while a
file is transcribing runs after that file.

Cancelling cannot wait for the queue (the worker is busy inside
`transcribe`), so each request carries a `threading.Event` that the GUI sets
directly; the engine checks it between windows and between decoded tokens.

Probing (reading a file's duration and rejecting non-media up front) runs on a
second, light thread so the queue shows durations at once even while a long
file is being transcribed. Walking a dropped folder runs on a third: a folder
of a hundred thousand files, or one on a slow network share, takes seconds
that the GUI thread must not spend.

Failures travel as `errors.Problem` (the engine's English text plus a code
for known problems), so the GUI can show them in the user's language.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..engine import audio
from ..engine.errors import Cancelled, TingjiError
from ..paths import graph_cache_dir
from . import files
from .errors import problem_of

log = logging.getLogger(__name__)


@dataclass
class Request:
    """One file to transcribe, with the options in force when it was dispatched."""

    job_id: int
    path: str
    language: str | None = None
    hotwords: tuple[str, ...] = ()
    cancel: threading.Event = field(default_factory=threading.Event)


class EngineWorker(QObject):
    """Owns the Engine. Lives in its own QThread; every slot runs there."""

    # load number, model name, provider actually used, warnings, the Engine (dictation shares it)
    ready = Signal(int, str, str, list, object)
    load_failed = Signal(int, str)  # load number, one-line reason
    started = Signal(int)  # job id
    progress = Signal(int, float, list)  # job id, fraction (-1 = unknown), new segments
    finished = Signal(int, object, float)  # job id, Transcript, seconds taken
    failed = Signal(int, object)  # job id, errors.Problem
    cancelled = Signal(int, object)  # job id, partial Transcript or None

    def __init__(self) -> None:
        super().__init__()
        self._engine: Any = None

    @Slot(str, str, int)
    def load(self, model_path: str, provider: str, seq: int) -> None:
        """(Re)load the model; the previous engine is closed first to free its memory.

        `seq` numbers the requests so the GUI can ignore answers to superseded ones."""
        from ..engine import Engine  # heavy import (onnxruntime, llama_cpp): off the GUI thread

        self.close_engine()
        try:
            self._engine = Engine(model_path, provider=provider, graph_cache=graph_cache_dir())
        except TingjiError as exc:
            self.load_failed.emit(seq, str(exc))
            return
        except Exception as exc:  # a bug or a broken runtime: say so rather than die silently
            log.exception("engine load failed")
            self.load_failed.emit(seq, problem_of(exc).text)
            return
        self.ready.emit(seq, self._engine.model_name, self._engine.provider, list(self._engine.warnings),
                        self._engine)

    @Slot(object)
    def transcribe(self, req: Request) -> None:
        if req.cancel.is_set():
            self.cancelled.emit(req.job_id, None)
            return
        if self._engine is None:
            self.failed.emit(req.job_id, problem_of(TingjiError("no model loaded")))
            return
        self.started.emit(req.job_id)
        t0 = time.perf_counter()

        def on_progress(p: Any) -> None:
            fraction = p.fraction if p.fraction is not None else -1.0
            self.progress.emit(req.job_id, float(fraction), list(p.segments))

        try:
            transcript = self._engine.transcribe(req.path, language=req.language, hotwords=req.hotwords,
                                                 on_progress=on_progress, cancel=req.cancel)
        except Cancelled as exc:
            self.cancelled.emit(req.job_id, exc.partial)
        except Exception as exc:
            if not isinstance(exc, TingjiError):
                log.exception("transcription of %s failed", req.path)
            self.failed.emit(req.job_id, problem_of(exc))
        else:
            self.finished.emit(req.job_id, transcript, time.perf_counter() - t0)

    @Slot()
    def close_engine(self) -> None:
        if self._engine is not None:
            try:
                self._engine.close()
            finally:
                self._engine = None


class ProbeWorker(QObject):
    """Reads durations; a file that is not media fails here, before it reaches the engine."""

    probed = Signal(int, float)  # job id, duration in seconds (-1 = unknown)
    bad = Signal(int, object)  # job id, errors.Problem

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
            found = files.expand(paths, on_found=on_found)
        except Exception:  # an unreadable folder part is skipped by os.walk; anything else is a bug
            log.exception("walking %s failed", paths)
            found = []
        self.done.emit(seq, [] if cancel.is_set() else found)


def start_thread(worker: QObject, name: str) -> QThread:
    """Move `worker` to a new running thread that deletes it when the thread ends."""
    thread = QThread()
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.finished.connect(worker.deleteLater)
    thread.start()
    return thread
