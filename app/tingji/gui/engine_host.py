"""The app's speech engines: which model each use runs, their states, and who may use them when.

The user picks a model per use: one for the file queue ("files") and one for
dictation ("dictation"; none chosen means the same as files). The app keeps
one warmed Engine per distinct model folder, so the same folder chosen for
both uses is ONE Engine, shared (a second would load the model twice:
memory, and seconds of warm-up), and two folders are two Engines, each
loaded on its own engine thread. `EngineHost`, on the GUI thread, decides
this; each Engine lives in a `ModelEngine`:

  * `reload()` picks the models from the settings (`model_choice`) and asks
    each ModelEngine's thread (`EngineWorker`, started by `gui.threads`) to
    load its model; answers to superseded requests are ignored by their
    number. `apply_settings()` replaces only the engines whose model changed;
    an engine being replaced is closed before its successor starts loading,
    so two models are never held for one use at once;
  * when a model is ready, `loaded_of(use)` holds its `LoadedModel` (the
    Engine and what the window shows about it) and `stateChanged` tells the
    queue and dictation; the queue then sends its files to the files engine's
    thread through `transcribe()` (answers arrive on `files_lane`), and
    dictation uses `loaded_of("dictation").engine.live` from its take thread;
  * before an engine thread closes its engine (a reload, quitting, an idle
    unload), `releasing` is emitted on the GUI thread with that ModelEngine
    and every user lets go of it before the signal returns (dictation closes
    its controller, or for an idle unload only detaches it), so an engine is
    never closed under a running take.

Idle unload ("unload models after N minutes idle", off by default; the
settings file may give a fraction of a minute), per engine: the queue and
dictation `hold()` their engine while they use it (a file running, a take
recorded or transcribed) and `let_go()` after. When nobody has held an
engine for N minutes its thread closes it (state
UNLOADED) and hands the freed memory back to the system; the next file or
take calls `ensure_loaded()` for its use, and the status bar says the model
is loading again.

The contract for the Engine object itself is on `LoadedModel`.
"""

from __future__ import annotations

import gc
from enum import Enum
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ..engine.heap import release_free_heap
from ..errors import ErrorReport
from .engine_worker import EngineWorker, LoadedModel, Request
from .model_choice import ModelChoice, choose_model
from .settings import Settings
from .threads import start_worker, stop_threads

USES = ("files", "dictation")


class EngineState(str, Enum):
    NONE = "none"  # no model installed/configured: nothing to load
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    UNLOADED = "unloaded"  # closed after being idle; the next file or take loads it again


class FilesLane(QObject):
    """The file queue's answers, from whichever engine thread runs files (EngineWorker's signals)."""

    started = Signal(int)
    progress = Signal(int, float, list)
    finished = Signal(int, object, float)
    failed = Signal(int, object)
    cancelled = Signal(int, object)


class ModelEngine(QObject):
    """One model folder's Engine on its own engine thread: load, idle unload, files, close."""

    stateChanged = Signal()
    releasing = Signal()  # the engine is about to be closed: stop using it now (before this returns)
    unloaded = Signal()  # an idle unload is complete: the engine is closed and its memory returned
    retired = Signal()  # the thread has ended and closed the engine (after `retire()`)

    _requestLoad = Signal(str, str, str, bool, int, str, bool)
    _requestUnload = Signal(int)
    _requestTranscribe = Signal(object)

    def __init__(
        self,
        path: Path,
        name: str,
        provider: str,
        lane: FilesLane,
        parent: QObject | None = None,
        device: str = "",
        punctuation: bool = True,
        decoder: str = "auto",
        draft_model: bool = True,
    ) -> None:
        super().__init__(parent)
        self.path = str(path)
        self.name = name
        self.provider_setting = provider
        self.device_setting = device  # DirectML's adapter ("" = the high-performance one)
        self.punctuation_setting = punctuation  # use the installed punctuation model if the model writes none
        self.decoder_setting = decoder  # where an LLM decoder runs (Settings.decoder_device)
        self.draft_model_setting = draft_model  # an installed model drafts for it (Settings.draft_model)
        self.state = EngineState.LOADING  # asked for; `started` says whether the thread was asked yet
        self.detail = name  # model name when loading/ready, reason (English) when failed
        self.error: ErrorReport | None = None  # why, when failed: the window says it in the UI language
        self.provider = ""
        self.device = ""  # the adapter it runs on, once READY (DirectML)
        self.warnings: tuple[ErrorReport, ...] = ()  # tingji.errors.warning reports
        self.loaded: LoadedModel | None = None  # while READY
        self.preparing: tuple[str, float] | None = None  # while LOADING: the GPU's first-time self-check, seconds
        self.languages: tuple[str, ...] | None = None  # what it can be told; kept while unloaded
        self.started = False
        self.unload_after_min = 0.0
        self.users: set[str] = set()  # who uses it now ("files", "dictation"): not idle
        self._seq = 0
        self._closing = False
        self.idle_timer = QTimer(self)
        self.idle_timer.setSingleShot(True)
        self.idle_timer.timeout.connect(self._unload)

        self.worker = EngineWorker()  # parentless: it moves to its thread
        self._requestLoad.connect(self.worker.load)
        self._requestUnload.connect(self.worker.unload)
        self._requestTranscribe.connect(self.worker.transcribe)
        self.worker.ready.connect(self._on_ready)
        self.worker.load_failed.connect(self._on_load_failed)
        self.worker.preparing.connect(self._on_preparing)
        self.worker.unloaded.connect(self._on_unloaded)
        for name_ in ("started", "progress", "finished", "failed", "cancelled"):
            getattr(self.worker, name_).connect(getattr(lane, name_))
        self.thread = start_worker(self.worker, "tingji-engine")
        # The engine is closed in its own thread, as the thread ends.
        self.thread.finished.connect(self.worker.close_engine, Qt.ConnectionType.DirectConnection)
        self.thread.finished.connect(self.retired)  # queued to this (GUI) thread

    def load(self) -> None:
        """(Re)load the model in the background; the engine thread closes the old Engine first."""
        self._seq += 1  # first: an answer to an earlier load still on its way is stale now
        self.started = True
        self.release()
        self._set(EngineState.LOADING, self.name)
        self._requestLoad.emit(
            self.path,
            self.provider_setting,
            self.device_setting,
            self.punctuation_setting,
            self._seq,
            self.decoder_setting,
            self.draft_model_setting,
        )

    def _set(
        self,
        state: EngineState,
        detail: str,
        provider: str = "",
        warnings: tuple[ErrorReport, ...] = (),
        error: ErrorReport | None = None,
    ) -> None:
        self.state, self.detail, self.provider, self.warnings = state, detail, provider, warnings
        self.error = error
        self.preparing = None
        self.stateChanged.emit()

    def release(self) -> None:
        """Tell the engine's users (dictation) to let go before the engine thread closes it."""
        if self.loaded is not None:
            self.loaded = None
            self.releasing.emit()

    def _on_ready(self, loaded: LoadedModel) -> None:
        if loaded.seq != self._seq or self._closing:
            return  # a newer load was requested meanwhile; the worker closes this one when it runs that
        self.loaded = loaded
        self.languages = loaded.languages
        self.device = loaded.device
        self._set(EngineState.READY, loaded.name, loaded.provider, loaded.warnings)
        self.arm_idle_timer()

    def _on_preparing(self, seq: int, gpu: str, seconds: float) -> None:
        if seq == self._seq and self.state is EngineState.LOADING and not self._closing:
            self.preparing = (gpu, seconds) if seconds >= 0 else None
            self.stateChanged.emit()

    def _on_load_failed(self, seq: int, error: ErrorReport) -> None:
        if seq == self._seq and not self._closing:
            self._set(EngineState.FAILED, error.line, error=error)

    # -- idle unload ----------------------------------------------------------------------

    def hold(self, user: str) -> None:
        self.users.add(user)
        self.idle_timer.stop()

    def let_go(self, user: str) -> None:
        self.users.discard(user)
        self.arm_idle_timer()

    def ensure_loaded(self) -> None:
        if self.state is EngineState.UNLOADED and not self._closing:
            self.load()

    def arm_idle_timer(self) -> None:
        minutes = self.unload_after_min
        if minutes > 0 and self.state is EngineState.READY and not self.users and not self._closing:
            self.idle_timer.start(max(1, round(minutes * 60_000)))
        else:
            self.idle_timer.stop()

    def _unload(self) -> None:
        if self.state is not EngineState.READY or self.users or self._closing:
            return
        self._seq += 1  # the unload answers to this number
        self.state = EngineState.UNLOADED  # first: users that see `releasing` know it is an idle unload
        self.release()
        self._set(EngineState.UNLOADED, self.detail)
        self._requestUnload.emit(self._seq)

    def _on_unloaded(self, seq: int) -> None:
        gc.collect()  # the Engine and its lanes refer to each other: only a collection frees them
        release_free_heap()
        if seq == self._seq:
            self.unloaded.emit()

    # -- using and ending -------------------------------------------------------------------

    def transcribe(self, request: Request) -> None:
        self._requestTranscribe.emit(request)

    def retire(self) -> None:
        """Stop using this engine: users let go now, the thread ends after the request in hand
        (a running file finishes) and closes the engine; `retired` follows. Does not block."""
        self.release()
        self._closing = True
        self.idle_timer.stop()
        self.thread.quit()


class EngineHost(QObject):
    """Chooses each use's model and keeps one ModelEngine per model folder; lives on the GUI thread.

    What a use ("files" or "dictation") runs and how it stands: `*_of(use)`."""

    stateChanged = Signal()  # any engine's state changed, or which model a use runs
    releasing = Signal(object)  # a ModelEngine is about to close its engine: its users let go now
    unloaded = Signal()  # an idle unload is complete (any engine)

    def __init__(self, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.files_lane = FilesLane(self)
        self._choices: dict[str, ModelChoice] = {}
        self._engines: dict[str, ModelEngine] = {}  # model folder -> its engine (the live ones)
        self._retiring: list[ModelEngine] = []  # closing; new engines start loading once they are gone
        self._closing = False

    # -- which model runs what ----------------------------------------------------------------

    def _model_setting(self, use: str) -> str:
        """The settings' word for `use`: a model name or folder; "" = automatic (dictation: as files)."""
        if use == "dictation" and self.settings.dictation_model:
            return self.settings.dictation_model
        return self.settings.model

    def choice_of(self, use: str) -> ModelChoice | None:
        return self._choices.get(use)

    def engine_of(self, use: str) -> ModelEngine | None:
        choice = self._choices.get(use)
        return self._engines.get(str(choice.path)) if choice is not None and choice.path is not None else None

    def state_of(self, use: str) -> EngineState:
        engine, choice = self.engine_of(use), self._choices.get(use)
        if engine is not None:
            return engine.state
        return EngineState.FAILED if choice is not None and choice.problem else EngineState.NONE

    def detail_of(self, use: str) -> str:
        engine, choice = self.engine_of(use), self._choices.get(use)
        return engine.detail if engine is not None else str(choice.problem or "") if choice is not None else ""

    def error_of(self, use: str) -> ErrorReport | None:
        """Why the use has no model, when it failed (shown with `errors.localized`)."""
        engine, choice = self.engine_of(use), self._choices.get(use)
        if engine is not None:
            return engine.error
        return choice.problem.report() if choice is not None and choice.problem is not None else None

    def loaded_of(self, use: str) -> LoadedModel | None:
        engine = self.engine_of(use)
        return engine.loaded if engine is not None else None

    def shared(self) -> bool:
        """Both uses run the same model (one Engine), or neither has one."""
        return self.engine_of("files") is self.engine_of("dictation")

    @property
    def engines(self) -> list[ModelEngine]:
        return list(self._engines.values())

    # -- loading -----------------------------------------------------------------------

    def reload(self) -> None:
        """(Re)load every use's model named by the settings, in the background."""
        self._sync(force=True)

    def apply_settings(self, new: Settings) -> None:
        """Take new settings; a use's engine is replaced when its model, the provider or the punctuation
        choice changed, or when it has none or failed (a model may have been installed since)."""
        self.settings = new
        self._sync(force=False)

    def _sync(self, force: bool) -> None:
        if self._closing:
            return
        self._choices = {use: choose_model(self._model_setting(use)) for use in USES}
        wanted = {str(c.path): c.name for c in self._choices.values() if c.path is not None}
        kept: dict[str, ModelEngine] = {}
        for path, engine in self._engines.items():
            if (
                force
                or path not in wanted
                or engine.provider_setting != self.settings.provider
                or engine.device_setting != self.settings.device
                or engine.punctuation_setting != self.settings.punctuation
                or engine.decoder_setting != self.settings.decoder_device
                or engine.draft_model_setting != self.settings.draft_model
                or engine.state is EngineState.FAILED
            ):
                self._retire(engine)
            else:
                kept[path] = engine
        for path, name in wanted.items():
            if path not in kept:
                kept[path] = self._new_engine(Path(path), name)
        self._engines = kept
        for engine in kept.values():  # a use that moved to another engine no longer holds this one
            engine.users &= {use for use in USES if self.engine_of(use) is engine}
            engine.unload_after_min = self.settings.unload_after_min
            engine.arm_idle_timer()
        self._start_waiting()
        self.stateChanged.emit()

    def _new_engine(self, path: Path, name: str) -> ModelEngine:
        engine = ModelEngine(
            path,
            name,
            self.settings.provider,
            self.files_lane,
            self,
            self.settings.device,
            self.settings.punctuation,
            self.settings.decoder_device,
            self.settings.draft_model,
        )
        engine.stateChanged.connect(self.stateChanged)
        engine.releasing.connect(lambda: self.releasing.emit(engine))
        engine.unloaded.connect(self.unloaded)
        return engine

    def _retire(self, engine: ModelEngine) -> None:
        self._retiring.append(engine)
        engine.retired.connect(lambda: self._on_retired(engine))
        engine.retire()

    def _on_retired(self, engine: ModelEngine) -> None:
        if engine in self._retiring:
            self._retiring.remove(engine)
        engine.deleteLater()
        gc.collect()  # the Engine and its lanes refer to each other: only a collection frees them
        release_free_heap()
        self._start_waiting()

    def _start_waiting(self) -> None:
        """Engines asked for start loading once the engines they replace have closed."""
        if self._retiring or self._closing:
            return
        for engine in self._engines.values():
            if not engine.started:
                engine.load()

    # -- idle unload ----------------------------------------------------------------------

    def hold(self, use: str) -> None:
        """`use` ("files" or "dictation") is using its engine (or is about to): it is not idle."""
        engine = self.engine_of(use)
        if engine is not None:
            engine.hold(use)

    def let_go(self, use: str) -> None:
        """`use` is done for now; an engine nobody uses starts its idle countdown."""
        engine = self.engine_of(use)
        if engine is not None:
            engine.let_go(use)

    def ensure_loaded(self, use: str) -> None:
        """A file or a take needs its engine: load it again if it was unloaded for being idle."""
        engine = self.engine_of(use)
        if engine is not None and not self._closing:
            engine.ensure_loaded()

    # -- using --------------------------------------------------------------------------

    def transcribe(self, request: Request) -> None:
        """Queue a file on the files engine's thread; the answer is one of `files_lane`'s
        finished / failed / cancelled signals for `request.job_id`."""
        engine = self.engine_of("files")
        if engine is not None:
            engine.transcribe(request)

    # -- shutdown -------------------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once shutdown() has ended every engine thread (and so closed every engine)."""
        return all(e.thread.isFinished() for e in [*self._engines.values(), *self._retiring])

    def shutdown(self) -> None:
        """Let dictation go, then end every engine thread, which closes its engine. The caller has
        cancelled the running file first (a thread ends after the request in hand)."""
        if self._closing:
            return
        engines = [*self._engines.values(), *self._retiring]
        for engine in engines:
            engine.release()
        self._closing = True
        for engine in engines:
            engine.retire()
        stop_threads([e.thread for e in engines])
