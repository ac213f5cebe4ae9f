"""The contract between the pipeline and a model family.

The pipeline (`engine/transcribe.py`) reads audio, cuts windows at pauses,
skips silence and times segments; it never knows which model runs. A family
turns one window of 16 kHz samples into text. Each family is a module (or
small package) under `engine/families/` that provides, at module level:

    FAMILY: str                       the manifest's "family" value
    FILE_ROLES: tuple[str, ...]       file roles its manifest may list
    REQUIRED_FILES: tuple[str, ...]   roles it cannot run without
    FRONTEND: type                    the dataclass its manifest's `frontend` is read as
    SECTION: type                     the dataclass its own section is read as, with
                                      `check_frontend(frontend)` for what must agree
    load(manifest, options) -> Recognizer   options: `engine.options.LoadOptions`, passed whole

and a Recognizer as below. Everything a family needs to know about its
model comes from the manifest's common core (files, window, front-end) and
its own section (`manifest.section`), both read strictly before it loads
(`engine.schema`: a damaged manifest is a coded error naming the key).

Lanes: a recognizer may be used by two threads at once - the file queue
and a dictation take - but each thread brings its own `LaneState` (for an
LLM family, a llama.cpp context with its own KV cache; the weights are
shared). The engine owns the lanes and decides who waits for whom; the
recognizer only promises that calls with different lane states may overlap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...errors import ErrorReport, Message, ModelError
from ..align import TimedChar
from ..frontend import Cmvn, load_cmvn
from ..manifest import Manifest
from ..options import TranscribeOptions

if TYPE_CHECKING:  # only a type here: sessions sits above the families' contract
    from ..sessions import OnnxGraphs

CancelCheck = Callable[[], bool]


@dataclass(frozen=True)
class Capabilities:
    """What a loaded model can do, so that callers offer only what works (CLI warnings, GUI menus).

    `Engine.capabilities` holds the loaded model's. `Engine.transcribe` warns
    about a `TranscribeOptions` choice the model cannot honour and does the
    nearest thing instead.

    Args:
        languages: The language codes (`tingji.engine.languages`) a user may
            tell the model; empty when it cannot be told one.
        detects_language: Whether it reports the language it heard, per window
            (`WindowInfo.language`, `Transcript.language`).
        hotwords: Whether it takes a list of names and terms to favour.
        itn: Whether text normalisation can be switched off (`itn=False`).
        timestamps: How segments are timed: `"tokens"`, character times from a
            CTC path; `"window"`, the window's speech span shared out by
            sentence length; `"speech"`, the text spread over the speech the
            VAD found, in segments of at most 15 s (`engine.align`).
        open_languages: Whether it may also be told languages outside
            `languages` (an LLM prompt can name any language).
        live_lane: Whether a dictation take may run while a file is
            transcribed (`Engine.live`); without it takes wait for the files lane.
        tags: Extra per-window labels it reports in `WindowInfo.extras`
            (e.g. `"emotion"`, `"event"`).
        punctuation: Whether it writes its own punctuation; without it a
            punctuation model (`engine.punctuation`) may add it.
    """

    languages: tuple[str, ...] = ()
    detects_language: bool = False
    hotwords: bool = False
    itn: bool = False
    timestamps: str = "window"
    open_languages: bool = False
    live_lane: bool = True
    tags: tuple[str, ...] = ()
    punctuation: bool = True

    @property
    def word_speakers(self) -> bool:
        """Whether speaker labels go down to words (a segment split where the speaker changes): only with
        the model's own token times; other models label whole sentences."""
        return self.timestamps == "tokens"


@dataclass
class WindowResult:
    """One window's recognition. Times are seconds from the first sample given."""

    text: str
    tokens: list[int] = field(default_factory=list)
    char_times: list[TimedChar] | None = None  # None: the family cannot time characters
    language: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage, summed by the pipeline


@contextmanager
def stage(timings: dict[str, float], name: str) -> Iterator[None]:
    """Add the seconds the `with` block takes to `timings[name]` (a window's stages, the pipeline's)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - start


class LaneState(Protocol):
    """A lane's private state (e.g. a KV cache); closed before the recognizer."""

    def park(self) -> None:
        """Between windows of a file: free what is quick to rebuild; the next use rebuilds it."""

    def close(self) -> None: ...


class Recognizer(Protocol):
    family: str
    capabilities: Capabilities
    provider: str  # the ONNX Runtime provider that actually runs (after any fallback)
    device: str  # the adapter it runs on, as people know it (DirectML); "" on the CPU
    decoder_device: str  # "cpu", "vulkan:N (<adapter>)", or "" for families without a decoder
    warnings: list[ErrorReport]  # load-time problems worth showing (e.g. a GPU fallback): tingji.errors.warning
    stages: tuple[str, ...]  # the `WindowResult.timings` keys it reports, e.g. ("features", "encode")

    def open_lane(self) -> LaneState: ...

    def warm(self, lane: LaneState) -> None:
        """Run everything once so the first real window pays no first-run costs."""

    def build_caches(self, lane: LaneState) -> None:
        """Build what later loads of this model reuse from the graph cache (at install: `Engine.build_caches`)."""

    def recognize(
        self, samples: np.ndarray, options: TranscribeOptions, lane: LaneState, cancel: CancelCheck | None = None
    ) -> WindowResult:
        """One window of 16 kHz mono samples to text; `options` come fitted to the model by the engine
        (`language` a code it can take or None, `hotwords` empty unless it takes them)."""

    def close(self) -> None: ...


class NoLane:
    """The lane state of a family that keeps nothing per lane (its ONNX sessions may run on two threads at once)."""

    def park(self) -> None:
        pass

    def close(self) -> None:
        pass


class OnnxFamily:
    """What every family's Recognizer and every companion model (`engine.companions.Companion`)
    shares: it runs its ONNX graphs (`self.graphs`), which
    decide the provider, the device and the load-time warnings (a GPU provider that fails
    falls back to the CPU, then and there)."""

    graphs: OnnxGraphs

    @property
    def provider(self) -> str:
        """The provider that runs the graphs now."""
        return self.graphs.provider

    @property
    def device(self) -> str:
        """The adapter the graphs run on ("" on the CPU)."""
        return self.graphs.device

    @property
    def warnings(self) -> list[ErrorReport]:
        """The graphs' live list: a later fallback adds to it."""
        return self.graphs.warnings


class GraphsOnly(OnnxFamily):
    """The Recognizer plumbing of a family without an LLM decoder (SenseVoice-Small, Paraformer).

    Its ONNX graphs are all it holds: no per-lane state, so a dictation take
    never waits for a file's window; nothing to keep in the graph cache
    beyond the optimised graphs that loading saved; nothing to close that the
    garbage collector does not free. A subclass sets `family`, `stages`,
    `graphs` and `capabilities`, and writes `warm` and `recognize`.
    """

    family: str
    stages: tuple[str, ...]
    capabilities: Capabilities
    decoder_device = ""

    def open_lane(self) -> NoLane:
        return NoLane()

    def build_caches(self, lane: LaneState) -> None:
        pass  # its optimised graphs are all it keeps, and loading built them

    def close(self) -> None:
        pass


def manifest_cmvn(manifest: Manifest, unreadable: Message) -> Cmvn:
    """The model's `cmvn` file, or the family's one-line error (fields: `path`, `reason`)."""
    path = manifest.file("cmvn")
    try:
        return load_cmvn(path)
    except (OSError, ValueError) as exc:
        raise ModelError(unreadable, path=path, reason=exc) from None
