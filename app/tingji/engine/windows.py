"""Cutting long audio into windows of at most 60 s at quiet points.

The encoder sees at most one window (60 s) at a time. A long file arrives as
a stream of blocks; the planner keeps a rolling buffer, and whenever more
than a window's worth is buffered it cuts at the quietest place in the last
`search_s` seconds before the limit: the middle of the longest run of
non-speech VAD frames, or failing any, the least speech-like frame. Windows
are contiguous and do not overlap, so nothing is transcribed twice; cutting
in silence means no word is split. Memory stays bounded by the buffer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from .vad import FRAME, SAMPLE_RATE, SileroVad, SpeechParams, VadStream, speech_spans


@dataclass
class Window:
    index: int
    start: int  # first sample, in the file's 16 kHz sample count
    samples: np.ndarray
    speech: list[tuple[float, float]] = field(default_factory=list)  # seconds, relative to start

    @property
    def end(self) -> int:
        return self.start + len(self.samples)

    @property
    def start_s(self) -> float:
        return self.start / SAMPLE_RATE

    @property
    def duration_s(self) -> float:
        return len(self.samples) / SAMPLE_RATE

    @property
    def has_speech(self) -> bool:
        return bool(self.speech)


class WindowPlanner:
    """Feed 16 kHz blocks in order; get windows in order.

    Args:
        vad: Decides speech as the blocks come; None: no VAD, windows cut at `max_s`.
        max_s: The longest window.
        search_s: How far back from `max_s` a quiet cut point is looked for.
        params: How probabilities become speech regions.
        probs: The whole source's frame probabilities, already decided
            (`SileroVad.probabilities(samples, tail=True)`), used instead of running `vad`.
    """

    def __init__(
        self,
        vad: SileroVad | None,
        *,
        max_s: float = 60.0,
        search_s: float = 15.0,
        params: SpeechParams = SpeechParams(),
        probs: np.ndarray | None = None,
    ) -> None:
        self.max = int(round(max_s * SAMPLE_RATE))
        self.search = int(round(search_s * SAMPLE_RATE))
        self.params = params
        self.vad: VadStream | None = vad.stream() if vad is not None and probs is None else None
        self.speech_known = probs is not None or self.vad is not None
        self.buffer = np.zeros(0, np.float32)
        self.buffer_start = 0  # file sample index of buffer[0]
        # VAD probability of every frame since file start
        self.probs = np.zeros(0, np.float32) if probs is None else np.asarray(probs, np.float32)
        self.index = 0

    def feed(self, block: np.ndarray) -> Iterator[Window]:
        block = np.asarray(block, np.float32).reshape(-1)
        self.buffer = np.concatenate([self.buffer, block])
        if self.vad is not None:
            self.probs = np.concatenate([self.probs, self.vad.feed(block)])
        while len(self.buffer) > self.max:
            yield self._emit(self._cut_point())

    def finish(self) -> Iterator[Window]:
        if self.vad is not None and len(self.vad.pending):
            # Decide the trailing partial frame too (zero-padded), so the end is covered.
            tail = np.zeros(FRAME - len(self.vad.pending), np.float32)
            self.probs = np.concatenate([self.probs, self.vad.feed(tail)])
        while len(self.buffer) > self.max:
            yield self._emit(self._cut_point())
        if len(self.buffer):
            yield self._emit(len(self.buffer))

    def _frame_probs(self, a: int, b: int) -> np.ndarray:
        """VAD probabilities of the frames covering buffer samples [a, b)."""
        fa = (self.buffer_start + a) // FRAME
        fb = -(-(self.buffer_start + b) // FRAME)
        return self.probs[fa:fb]

    def _cut_point(self) -> int:
        """Buffer offset to cut at: quiet, within [max - search, max]."""
        lo, hi = self.max - self.search, self.max
        if not self.speech_known:
            return hi
        cut = self.quietest(self.buffer_start + lo, self.buffer_start + hi)
        return hi if cut is None else int(min(max(cut - self.buffer_start, lo), hi))

    def quietest(self, first: int, end: int) -> int | None:
        """The file sample to cut at between samples `first` and `end`: the middle of the longest run of quiet
        VAD frames, or failing any, the least speech-like frame; None where no frame is decided."""
        first_frame = -(-first // FRAME)
        probs = self.probs[first_frame : end // FRAME]
        if not self.speech_known or len(probs) == 0:
            return None
        return (first_frame + quiet_frame(probs, self.params.neg_threshold)) * FRAME

    def _emit(self, cut: int) -> Window:
        samples = self.buffer[:cut].copy()
        probs = self._frame_probs(0, cut)
        spans = speech_spans(probs, self.params) if self.speech_known else [(0.0, cut / SAMPLE_RATE)]
        # The VAD's frame grid starts at the file start, not the window start.
        shift = (self.buffer_start % FRAME) / SAMPLE_RATE
        duration = cut / SAMPLE_RATE
        spans = [(max(0.0, s - shift), min(duration, e - shift)) for s, e in spans if e - shift > 0]
        window = Window(self.index, self.buffer_start, samples, spans)
        self.index += 1
        self.buffer = self.buffer[cut:]
        self.buffer_start += cut
        return window


def quiet_frame(probs: np.ndarray, neg_threshold: float) -> int:
    """The index of the middle of the longest run of frames under `neg_threshold` (ties: the later run), or
    failing any, of the least speech-like frame."""
    quiet = probs < neg_threshold
    best_len, best_mid = 0, None
    i = 0
    while i < len(quiet):
        if quiet[i]:
            j = i
            while j < len(quiet) and quiet[j]:
                j += 1
            if j - i >= best_len:  # ties: the later run keeps windows long
                best_len, best_mid = j - i, (i + j) // 2
            i = j
        else:
            i += 1
    if best_mid is None:
        # edges repeated, not zero-padded: a zero would make the first and last frames look quiet
        smooth = np.convolve(np.pad(probs, 1, mode="edge"), np.ones(3) / 3, mode="valid")
        best_mid = int(np.argmin(smooth))
    return best_mid


def split_window(window: Window, cuts: list[int]) -> list[Window]:
    """The window cut at `cuts` (samples from its start, in order): parts with their own speech spans, each
    keeping the window's index; cuts at an end or at another cut are left out."""
    bounds = [0, *(c for c in cuts if 0 < c < len(window.samples)), len(window.samples)]
    bounds = [b for i, b in enumerate(bounds) if i == 0 or b > bounds[i - 1]]
    if len(bounds) <= 2:
        return [window]
    parts = []
    for a, b in zip(bounds, bounds[1:]):
        lo, hi = a / SAMPLE_RATE, b / SAMPLE_RATE
        speech = [(max(s, lo) - lo, min(e, hi) - lo) for s, e in window.speech if min(e, hi) > max(s, lo)]
        parts.append(Window(window.index, window.start + a, window.samples[a:b], speech))
    return parts


def trimmed(window: Window, keep_s: float = 0.0) -> tuple[int, int]:
    """Sample range of a window from its first to its last speech (VAD padding included)."""
    if not window.speech:
        return 0, 0
    a = max(0, int((window.speech[0][0] - keep_s) * SAMPLE_RATE))
    b = min(len(window.samples), int(round((window.speech[-1][1] + keep_s) * SAMPLE_RATE)))
    return a, b


def turn_cuts(planner: WindowPlanner, window: Window, changes: list[tuple[float, float]]) -> list[int]:
    """Where to cut a window at its speaker changes: the quietest point of each change's stretch (samples from
    the window's start)."""
    cuts = []
    for lo, hi in changes:
        at = planner.quietest(max(window.start, round(lo * SAMPLE_RATE)), min(window.end, round(hi * SAMPLE_RATE)))
        if at is not None:
            cuts.append(at - window.start)
    return sorted(cuts)
