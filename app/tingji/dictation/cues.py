"""Start and stop sounds for dictation takes (off by default: a setting). Imports no Qt.

Two short tones made here (no sound files to ship or translate): a rising one
when a take starts, a falling one when it ends. They play on the default
output without blocking; a missing output device is not worth a message.
"""

from __future__ import annotations

import logging

import numpy as np

from .devices import sounddevice

__all__ = ["play_cue", "tone"]

log = logging.getLogger(__name__)

RATE = 44100


def tone(kind: str) -> np.ndarray:
    """The cue's samples: "start" rises 660 -> 880 Hz, "stop" falls 880 -> 660 Hz (90 ms, soft edges)."""
    n = int(0.09 * RATE)
    lo, hi = (660.0, 880.0) if kind == "start" else (880.0, 660.0)
    freq = np.linspace(lo, hi, n)
    phase = 2 * np.pi * np.cumsum(freq) / RATE
    edge = np.minimum(1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / (0.01 * RATE))
    return (0.18 * np.sin(phase) * edge).astype(np.float32)


def play_cue(kind: str) -> None:
    """Play "start" or "stop" on the default output (returns at once)."""
    try:
        sounddevice().play(tone(kind), RATE)
    except Exception as exc:  # noqa: BLE001 - a cue that cannot play is not worth stopping dictation for
        log.info("dictation cue %s not played: %s", kind, exc)
