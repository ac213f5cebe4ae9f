"""The app's one speech engine: which model to load, its state, and who may use it when.

The file queue and dictation share one Engine (a second would load the model
twice: memory, and seconds of warm-up). This object, on the GUI thread, is
where that sharing is decided:

  * `reload()` picks the model from the settings (`models.choice`) and asks
    the engine thread (`EngineWorker`, started by `gui.threads`) to load it;
    answers to superseded requests are ignored by their number;
  * when the model is ready, `loaded` holds the `LoadedModel` (the Engine and
    what the window shows about it) and `stateChanged` tells the queue and
    dictation; the queue then sends its files to the engine thread through
    `transcribe()`, and dictation uses `loaded.engine.live` from its own take
    thread;
  * before the engine thread closes the engine (a reload, quitting, an
    idle unload), `releasing` is emitted on the GUI thread and every user
    lets go of it before the signal returns (dictation closes its
    controller, or for an idle unload only detaches it), so the engine is
    never closed under a running take.

Idle unload ("unload models after N minutes idle", off by default): the
queue and dictation `hold()` the engine while they use it (a file running, a
take recorded or transcribed) and `let_go()` after. When nobody has held it
for N minutes the engine thread closes it (state UNLOADED) and hands the
freed memory back to the system; the next file or take calls
`ensure_loaded()`, and the status bar says the model is loading again.

The contract for the Engine object itself is on `LoadedModel`.
"""

from __future__ import annotations

import gc
from enum import Enum

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from .engine_worker import EngineWorker, LoadedModel, Request, return_freed_memory
from .models.choice import ModelChoice, choose_model
from .settings import Settings
from .threads import start_worker, stop_threads


class EngineState(str, Enum):
    NONE = "none"  # no model installed/configured: nothing to load
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    UNLOADED = "unloaded"  # closed after being idle; the next file or take loads it again


class EngineHost(QObject):
    """Loads, shares and releases the app's Engine; lives on the GUI thread."""

    stateChanged = Signal()  # read state, detail, provider, warnings, loaded
    releasing = Signal()  # the engine is about to be closed: stop using it now (before this returns)
    unloaded = Signal()  # an idle unload is complete: the engine is closed and its memory returned

    _requestLoad = Signal(str, str, int)
    _requestUnload = Signal(int)
    _requestTranscribe = Signal(object)

    def __init__(self, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.state = EngineState.NONE
        self.detail = ""  # model name when loading/ready, reason when failed
        self.provider = ""
        self.warnings: tuple[str, ...] = ()
        self.choice: ModelChoice | None = None
        self.loaded: LoadedModel | None = None  # while READY
        self._seq = 0
        self._closing = False
        self.minute_ms = 60_000  # the idle setting counts in these (tests make a minute short)
        self._users: set[str] = set()  # who uses the engine now ("files", "dictation"): not idle
        self.idle_timer = QTimer(self)
        self.idle_timer.setSingleShot(True)
        self.idle_timer.timeout.connect(self._unload)

        # The worker is parentless (it moves to its thread); its signals are the file queue's answers.
        self.worker = EngineWorker()
        self._requestLoad.connect(self.worker.load)
        self._requestUnload.connect(self.worker.unload)
        self.worker.unloaded.connect(self._on_unloaded)
        self._requestTranscribe.connect(self.worker.transcribe)
        self.worker.ready.connect(self._on_ready)
        self.worker.load_failed.connect(self._on_load_failed)
        self._thread = start_worker(self.worker, "tingji-engine")
        # The engine is closed in its own thread, as the thread ends.
        self._thread.finished.connect(self.worker.close_engine, Qt.ConnectionType.DirectConnection)

    # -- loading -----------------------------------------------------------------------

    def reload(self) -> None:
        """(Re)load the model named by the settings, in the background."""
        self._seq += 1  # first: an answer to an earlier load still on its way is stale now
        self._release()
        choice = self.choice = choose_model(self.settings.model)
        if choice.path is None:
            self._set(EngineState.FAILED if choice.problem else EngineState.NONE, choice.problem or "")
            return
        self._set(EngineState.LOADING, choice.name)
        self._requestLoad.emit(str(choice.path), self.settings.provider, self._seq)

    def apply_settings(self, new: Settings) -> None:
        """Take new settings; reloads when the model or provider changed, or when nothing is loaded
        (a model may have been installed since)."""
        old, self.settings = self.settings, new
        if (old.model, old.provider) != (new.model, new.provider) or \
                self.state in (EngineState.NONE, EngineState.FAILED):
            self.reload()
        self._arm_idle_timer()

    def _set(self, state: EngineState, detail: str, provider: str = "", warnings: tuple[str, ...] = ()) -> None:
        self.state, self.detail, self.provider, self.warnings = state, detail, provider, warnings
        self.stateChanged.emit()

    def _release(self) -> None:
        """Tell the engine's other users (dictation) to let go before the engine thread closes it."""
        if self.loaded is not None:
            self.loaded = None
            self.releasing.emit()

    def _on_ready(self, loaded: LoadedModel) -> None:
        if loaded.seq != self._seq or self._closing:
            return  # a newer load was requested meanwhile; the worker closes this one when it runs that
        self.loaded = loaded
        self._set(EngineState.READY, loaded.name, loaded.provider, loaded.warnings)
        self._arm_idle_timer()

    def _on_load_failed(self, seq: int, reason: str) -> None:
        if seq == self._seq and not self._closing:
            self._set(EngineState.FAILED, reason)

    # -- idle unload ----------------------------------------------------------------------

    def hold(self, user: str) -> None:
        """`user` is using the engine (or is about to): it is not idle."""
        self._users.add(user)
        self.idle_timer.stop()

    def let_go(self, user: str) -> None:
        """`user` is done for now; with nobody left, the idle countdown starts."""
        self._users.discard(user)
        self._arm_idle_timer()

    def ensure_loaded(self) -> None:
        """A file or a take needs the engine: load it again if it was unloaded for being idle."""
        if self.state is EngineState.UNLOADED and not self._closing:
            self.reload()

    def _arm_idle_timer(self) -> None:
        minutes = self.settings.unload_after_min
        if minutes > 0 and self.state is EngineState.READY and not self._users and not self._closing:
            self.idle_timer.start(minutes * self.minute_ms)
        else:
            self.idle_timer.stop()

    def _unload(self) -> None:
        if self.state is not EngineState.READY or self._users or self._closing:
            return
        self._seq += 1  # the unload answers to this number
        self.state = EngineState.UNLOADED  # first: users that see `releasing` know it is an idle unload
        self._release()
        self._set(EngineState.UNLOADED, self.detail)
        self._requestUnload.emit(self._seq)

    def _on_unloaded(self, seq: int) -> None:
        gc.collect()  # the Engine and its lanes refer to each other: only a collection frees them
        return_freed_memory()
        if seq == self._seq:
            self.unloaded.emit()

    # -- using --------------------------------------------------------------------------

    def transcribe(self, request: Request) -> None:
        """Queue a file on the engine thread; the answer is one of the worker's
        finished / failed / cancelled signals for `request.job_id`."""
        self._requestTranscribe.emit(request)

    # -- shutdown -------------------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once shutdown() has ended the engine thread (and so closed the engine)."""
        return self._thread.isFinished()

    def shutdown(self) -> None:
        """Let dictation go, then end the engine thread, which closes the engine. The caller has
        cancelled the running file first (the thread ends after the request in hand)."""
        if self._closing:
            return
        self._release()
        self._closing = True
        stop_threads([self._thread])
