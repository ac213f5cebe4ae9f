"""The engine thread's worker: loads the model, transcribes queued files, closes the engine.

The engine (ONNX Runtime + llama.cpp) is created, used and closed in ONE
thread, so its warm state is reused for every file. The worker talks to the
GUI by signals only (queued across threads); it never touches a widget, the
store or the settings. Requests arrive as queued slot calls, so they are
naturally serialised: a model reload asked for while a file is transcribing
runs after that file.

Cancelling cannot wait for the queue (the worker is busy inside
`transcribe`), so each request carries a `threading.Event` that the GUI sets
directly; the engine checks it between windows and between decoded tokens.

Failures travel as `ErrorReport`s (the English text plus the code and fields
of its message), so the GUI can show them in the user's language.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from ..engine.decoder_device import Choice, VulkanDevice
from ..engine.heap import release_free_heap
from ..engine.options import TranscribeOptions
from ..engine.speakers.library import VoiceLibrary, name_speakers
from ..engine.transcript import Progress
from ..errors import Cancelled, ErrorReport, TingjiError, warning
from ..paths import graph_cache_dir, voices_dir
from . import messages
from .errors import problem_of

if TYPE_CHECKING:  # importing the engine loads onnxruntime and llama.cpp: the worker does it, in its thread
    from ..engine.transcribe import Engine

log = logging.getLogger(__name__)


def decoder_choice(setting: str, devices: list[VulkanDevice] | None) -> tuple[Choice, ErrorReport | None]:
    """Settings' decoder device as `decoder_device`'s choice, with a warning when it cannot be had.

    Args:
        setting: "auto", "cpu" or a Vulkan device's name (a name outlives the driver's numbering,
            which changes when a GPU comes or goes).
        devices: What the Vulkan driver lists now (`decoder_device.list_vulkan_devices`); None: no driver.
    """
    if setting in ("auto", "cpu"):
        return Choice(setting), None
    index = next((d.index for d in devices or () if d.name == setting), None)
    if index is None:  # the GPU is gone (or its driver): Automatic, said once at load
        return Choice("auto"), warning(messages.UNKNOWN_DECODER_DEVICE, device=setting)
    return Choice("vulkan", index), None


@dataclass(frozen=True)
class LoadedModel:
    """A model the engine thread has loaded and warmed, as it is handed to the GUI thread.

    Who may touch `engine`, and when (the threading contract of the app):
      * the engine thread (this worker) loads it, runs every file on it
        (`Engine.transcribe`, the files lane) and closes it;
      * dictation's take thread may call `engine.live.transcribe` (the live
        lane: its own decoding state over the shared weights; the files lane
        pauses between decoding steps while a take runs) from when the
        dictation host receives this object until `EngineHost.releasing`;
        the host lets go, blocking, before the engine thread is asked to
        close the engine;
      * the GUI thread only reads the fields below.
    """

    seq: int  # which load request this answers (a newer request makes it stale)
    name: str  # the model's name, for display
    path: str  # the model folder loaded: which model this is
    provider: str  # where ONNX Runtime runs it ("cpu", "cuda", "dml")
    warnings: tuple[ErrorReport, ...]  # load-time problems worth showing (a GPU that fell back, ...)
    engine: Engine
    languages: tuple[str, ...] = ()  # the language codes it can be told (its capabilities), for menus
    device: str = ""  # the graphics adapter it runs on (DirectML), as people know it; "" on the CPU


@dataclass
class Request:
    """One file to transcribe, with the options in force when it was dispatched."""

    job_id: int
    path: str
    options: TranscribeOptions = TranscribeOptions()
    cancel: threading.Event = field(default_factory=threading.Event)


class EngineWorker(QObject):
    """Owns the Engine. Lives in its own QThread; every slot runs there."""

    ready = Signal(LoadedModel)
    load_failed = Signal(int, object)  # load number, why (ErrorReport)
    unloaded = Signal(int)  # load number made stale by the unload: the engine is closed, its memory returned
    started = Signal(int)  # job id
    progress = Signal(int, float, list)  # job id, fraction (-1 = unknown), new segments
    finished = Signal(int, object, float)  # job id, Transcript, seconds taken
    failed = Signal(int, object)  # job id, ErrorReport (errors.problem_of)
    cancelled = Signal(int, object)  # job id, partial Transcript or None
    preparing = Signal(int, str, float)  # load number, GPU, seconds so far (-1: over): its first-time self-check

    def __init__(self) -> None:
        super().__init__()
        self._engine: Engine | None = None

    @Slot(str, str, str, bool, int, str, bool)
    def load(
        self,
        model_path: str,
        provider: str,
        device: str,
        punctuation: bool,
        seq: int,
        decoder: str = "auto",
        draft_model: bool = True,
    ) -> None:
        """(Re)load the model on `provider` (and DirectML's adapter `device`, "" for the default one);
        the previous engine is closed first to free its memory.

        `punctuation`: punctuate with the installed punctuation model when the model writes none.
        `seq` numbers the requests so the GUI can ignore answers to superseded ones.
        `decoder`: Settings' decoder device (`decoder_choice`), the process's from this load on.
        `draft_model`: an installed model drafts for a model without a CTC head (Qwen3-ASR), where one can."""
        from ..engine import decoder_device
        from ..engine.transcribe import Engine  # heavy import (onnxruntime, llama_cpp): off the GUI thread
        from ..models.companions import punctuation_model

        self.close_engine()
        # The GPU's self-check compiles its shaders the first time (minutes): the status line says so.
        decoder_device.show_preparing(lambda gpu, s, seq=seq: self.preparing.emit(seq, gpu, -1.0 if s is None else s))
        try:
            named = decoder not in ("auto", "cpu")
            choice, missing = decoder_choice(decoder, decoder_device.list_vulkan_devices() if named else None)
            decoder_device.configure(choice)  # before llama.cpp loads: which build, which device
            engine = Engine(
                model_path,
                provider=provider,
                device=device or None,
                graph_cache=graph_cache_dir(),
                punctuation=punctuation_model() if punctuation else None,
            )
            if draft_model:
                _use_draft_model(engine)
        except TingjiError as exc:
            self.load_failed.emit(seq, exc.report())
            return
        except Exception as exc:  # a bug or a broken runtime: say so rather than die silently
            log.exception("engine load failed")
            self.load_failed.emit(seq, problem_of(exc))
            return
        self._engine = engine
        self.ready.emit(
            LoadedModel(
                seq,
                engine.model_name,
                model_path,
                engine.provider,
                (missing, *engine.warnings) if missing is not None else tuple(engine.warnings),
                engine,
                tuple(engine.capabilities.languages),
                engine.device,
            )
        )

    @Slot(int)
    def unload(self, seq: int) -> None:
        """Close the engine to give its memory back (the app was idle); `unloaded` says when it is done."""
        self.close_engine()
        release_free_heap()
        self.unloaded.emit(seq)

    @Slot(object)
    def transcribe(self, req: Request) -> None:
        if req.cancel.is_set():
            self.cancelled.emit(req.job_id, None)
            return
        if self._engine is None:
            self.failed.emit(req.job_id, problem_of(TingjiError(messages.NO_MODEL)))
            return
        self.started.emit(req.job_id)
        t0 = time.perf_counter()

        def on_progress(p: Progress) -> None:
            fraction = p.fraction if p.fraction is not None else -1.0
            self.progress.emit(req.job_id, float(fraction), list(p.segments))

        try:
            self._speaker_model_for(req.options)
            transcript = self._engine.transcribe(req.path, req.options, on_progress=on_progress, cancel=req.cancel)
            if transcript.speakers:
                name_speakers(transcript, VoiceLibrary(voices_dir()))
        except Cancelled as exc:
            self.cancelled.emit(req.job_id, exc.partial)
        except Exception as exc:
            if not isinstance(exc, TingjiError):
                log.exception("transcription of %s failed", req.path)
            self.failed.emit(req.job_id, problem_of(exc))
        else:
            self.finished.emit(req.job_id, transcript, time.perf_counter() - t0)

    def _speaker_model_for(self, options: TranscribeOptions) -> None:
        """A file asks for speaker labels: load the installed speaker model on the first one (none installed,
        or one that fails to load: the transcript says so in a warning and has no labels)."""
        from ..models.companions import speaker_model

        if options.speakers == "off" or self._engine is None or self._engine.speaker_model is not None:
            return
        folder = speaker_model()
        if folder is None:
            return
        try:
            self._engine.load_speaker_model(folder)
        except TingjiError as exc:
            log.warning("speaker model %s: %s", folder, exc)

    @Slot()
    def close_engine(self) -> None:
        if self._engine is not None:
            try:
                self._engine.close()
            finally:
                self._engine = None


def _use_draft_model(engine: Engine) -> None:
    """The installed model that drafts for the engine's (`models.companions.draft_model`), where its family takes
    one; one that fails to load is logged, and the model decodes undrafted (the same text, slower)."""
    from ..engine import messages as engine_messages
    from ..engine.draft_sources import drafters_for, use_draft_model
    from ..models.companions import draft_model

    if not drafters_for(engine.family):
        return
    folder = draft_model(engine.family)
    if folder is None:
        return
    try:
        use_draft_model(engine, folder)
    except TingjiError as exc:  # the model still works: said with its load-time warnings
        engine.warnings.append(warning(engine_messages.DRAFT_UNUSED, folder=folder, reason=exc))
