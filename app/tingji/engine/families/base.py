"""The contract between the pipeline and a model family.

The pipeline (`engine/transcribe.py`) reads audio, cuts windows at pauses,
skips silence and times segments; it never knows which model runs. A family
turns one window of 16 kHz samples into text. Each family is a module (or
small package) under `engine/families/` that provides, at module level:

    FAMILY: str                       the manifest's "family" value
    FILE_ROLES: tuple[str, ...]       file roles its manifest may list
    REQUIRED_FILES: tuple[str, ...]   roles it cannot run without
    load(manifest, options) -> Recognizer

and a Recognizer as below. Everything a family needs to know about its
model comes from the manifest's common core (files, window, front-end) and
its own section (`manifest.section`).

Lanes: a recognizer may be used by two threads at once - the file queue
and a dictation take - but each thread brings its own `LaneState` (for an
LLM family, a llama.cpp context with its own KV cache; the weights are
shared). The engine owns the lanes and decides who waits for whom; the
recognizer only promises that calls with different lane states may overlap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..align import TimedChar

CancelCheck = Callable[[], bool]


@dataclass(frozen=True)
class Capabilities:
    """What a model can do, so callers offer only what works (CLI warnings, GUI menus)."""

    languages: tuple[str, ...] = ()  # codes a user may force (engine.languages); empty: cannot be told
    detects_language: bool = False  # reports the language it heard, per window
    hotwords: bool = False  # takes a list of words/context to favour
    itn: bool = False  # can switch number/punctuation normalisation off
    # "tokens": character times from a CTC path; "window": the window's speech span shared by sentence
    # length; "speech": the text spread over the VAD's speech spans, segments of at most 15 s (align.py)
    timestamps: str = "window"
    open_languages: bool = False  # may also be told languages outside `languages` (an LLM prompt can)
    live_lane: bool = True  # a dictation take may run while a file is transcribed
    tags: tuple[str, ...] = ()  # extra per-window labels it reports (e.g. "emotion", "event")
    punctuation: bool = True  # writes its own punctuation; False: a punctuation model (engine.punctuation) adds it


@dataclass(frozen=True)
class LoadOptions:
    """How to load a model; families ignore what does not apply to them."""

    provider: str = "auto"  # ONNX Runtime: auto, dml, cuda, cpu
    exact: bool = False  # reference mode: the reference's settings wherever speed changed them
    threads: int | None = None  # None: the engine.threads defaults
    policy: str | None = None  # shape policy: "fixed" (DirectML) or "dynamic"; None: by provider
    buckets: Sequence[int] | None = None  # fixed-policy input lengths (frames)
    warm: bool = True  # run every session once at load, so the first file pays no compile cost
    n_ctx: int = 256  # initial LLM context in positions; grown as prompts and generation need (decoder.py)
    decoder_gpu_layers: int | None = None  # None: all on GPU when a GPU provider runs
    graph_cache: Path | None = None  # where ONNX Runtime's optimised graphs are kept (ort_cache); None: none


@dataclass(frozen=True)
class RecognizeOptions:
    """Per-file choices, already normalised (language is a code or None for "detect")."""

    language: str | None = None
    hotwords: tuple[str, ...] = ()
    itn: bool = True
    max_tokens: int = 512  # per window, for families that generate tokens
    ignore_eos: bool = False  # generate exactly max_tokens, no loop guard (work-matched benchmarks)
    timestamps: bool = True  # False: text only, no pass that only times characters (dictation types text)


@dataclass
class WindowResult:
    """One window's recognition. Times are seconds from the first sample given."""

    text: str
    tokens: list[int] = field(default_factory=list)
    char_times: list[TimedChar] | None = None  # None: the family cannot time characters
    language: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage, summed by the pipeline


class LaneState(Protocol):
    """A lane's private state (e.g. a KV cache); closed before the recognizer."""

    def park(self) -> None:
        """Between windows of a file: free what is quick to rebuild; the next use rebuilds it."""

    def close(self) -> None: ...


class Recognizer(Protocol):
    family: str
    capabilities: Capabilities
    provider: str  # the ONNX Runtime provider that actually runs (after any fallback)
    decoder_device: str  # "cpu", "gpu", or "" for families without a decoder
    warnings: list[str]  # load-time problems worth showing (e.g. a GPU fallback)
    stages: tuple[str, ...]  # the `WindowResult.timings` keys it reports, e.g. ("features", "encode")

    def open_lane(self) -> LaneState: ...

    def warm(self, lane: LaneState) -> None:
        """Run everything once so the first real window pays no first-run costs."""

    def build_caches(self, lane: LaneState) -> None:
        """Build what later loads of this model reuse from the graph cache (at install: `Engine.build_caches`)."""

    def recognize(
        self, samples: np.ndarray, options: RecognizeOptions, lane: LaneState, cancel: CancelCheck | None = None
    ) -> WindowResult: ...

    def close(self) -> None: ...
