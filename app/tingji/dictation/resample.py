"""Device blocks -> 16 kHz mono, and the pre-roll ring buffer that keeps the last of it.

We downmix and resample ourselves with a soxr stream, which keeps filter
state across blocks (no clicks at block edges).

Pre-roll: a ring buffer holds the last `pre_roll_s` seconds of 16 kHz audio
while the stream runs, and a take starts with it, so the first word is not
cut when the user starts talking at the same moment as the key press.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

RATE = 16000


def make_resampler(rate: int) -> Any:
    """A soxr stream from `rate` to 16 kHz, or None when the device already runs at 16 kHz."""
    import soxr

    return None if rate == RATE else soxr.ResampleStream(rate, RATE, 1, dtype="float32")


def to_mono_16k(block: np.ndarray, resampler: Any) -> np.ndarray:
    """One device block as 16 kHz mono float32 (possibly empty: the resampler buffers)."""
    mono = block.mean(axis=1) if block.ndim == 2 and block.shape[1] > 1 else block.reshape(-1)
    mono = np.ascontiguousarray(mono, dtype=np.float32)
    out = resampler.resample_chunk(mono) if resampler is not None else mono
    if not len(out):
        return np.zeros(0, np.float32)
    return np.asarray(out, np.float32)


class PreRoll:
    """The most recent 16 kHz audio, at least `keep` samples of it, in the blocks it came in."""

    def __init__(self) -> None:
        self._blocks: deque[np.ndarray] = deque()
        self._len = 0

    def clear(self) -> None:
        self._blocks.clear()
        self._len = 0

    def push(self, block: np.ndarray, keep: int) -> None:
        """Add a block and drop the oldest ones not needed to hold `keep` samples."""
        self._blocks.append(block)
        self._len += len(block)
        while self._blocks and self._len - len(self._blocks[0]) >= keep:
            self._len -= len(self._blocks.popleft())

    def last(self, seconds: float) -> np.ndarray:
        """The last `seconds` of audio held (empty for 0)."""
        pre = np.concatenate(list(self._blocks)) if self._blocks else np.zeros(0, np.float32)
        return pre[-int(seconds * RATE) :] if seconds > 0 else pre[:0]
