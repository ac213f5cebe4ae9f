"""Whisper-style log-mel features in NumPy (Qwen3-ASR's front-end).

The reference (transformers' `Qwen3ASRFeatureExtractor`, as its processor
calls it: no padding to 30 s) computes, per clip:

* clips shorter than 0.5 s are zero-padded to 0.5 s, and the padding counts
  as audio (the original library does this, and so the model saw it);
* a centred STFT: reflect padding of n_fft/2 at both ends, a periodic Hann
  window of 400 samples, hop 160, power spectrum; the last frame is dropped,
  so a clip of n samples gives n // 160 frames;
* 128 Slaney-normalised mel filters on the Slaney mel scale (0-8 kHz);
* log10 (floored at 1e-10), floored again at the clip's maximum - 8, then
  (x + 4) / 4.

The maximum is the clip's own, so features are computed on the real length
only; padding to the encoder's chunk or bucket length happens after (the
encoder zero-pads and masks). No torch at runtime: the same arithmetic in
float64 NumPy agrees with the reference to ~1e-6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import messages, schema
from .schema import Invalid, entry

KIND = "whisper-log-mel"
BLOCK_FRAMES = 500


@dataclass(frozen=True)
class MelConfig:
    """The front-end's settings (the manifest's `frontend` for the families that use it)."""

    kind: str = entry(KIND, choices=(KIND,))  # says which front-end the other keys are for
    sample_rate: int = entry(16000, min=1)
    n_fft: int = entry(400, min=2)
    hop: int = entry(160, min=1)
    n_mels: int = entry(128, min=1)
    fmin: float = entry(0.0, min=0.0)
    fmax: float = entry(8000.0, above=0)
    min_samples: int = entry(8000, min=1)  # shorter clips are zero-padded to this, padding included as audio
    dynamic_range: float = entry(8.0, above=0)  # log10 units kept below the clip's maximum

    def __post_init__(self) -> None:
        schema.check(self)
        if not self.fmax > self.fmin:
            raise Invalid("fmax", messages.KEY_NOT_ABOVE, value=self.fmax, bound=self.fmin)
        if self.min_samples < self.hop:  # a clip must make at least one frame
            raise Invalid("min_samples", messages.KEY_BELOW, value=self.min_samples, least=self.hop)


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz (3 mel per 200 Hz), logarithmic above."""
    hz = np.asarray(hz, np.float64)
    log_step = 27.0 / np.log(6.4)
    return np.where(hz >= 1000.0, 15.0 + np.log(np.maximum(hz, 1e-10) / 1000.0) * log_step, 3.0 * hz / 200.0)


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    mel = np.asarray(mel, np.float64)
    log_step = np.log(6.4) / 27.0
    return np.where(mel >= 15.0, 1000.0 * np.exp(log_step * (mel - 15.0)), 200.0 * mel / 3.0)


def mel_filters(cfg: MelConfig = MelConfig()) -> np.ndarray:
    """[n_fft/2 + 1, n_mels] triangular filters, each scaled by 2 / its bandwidth (Slaney norm)."""
    edges = _mel_to_hz(np.linspace(_hz_to_mel(cfg.fmin), _hz_to_mel(cfg.fmax), cfg.n_mels + 2))
    bins = np.linspace(0, cfg.sample_rate // 2, cfg.n_fft // 2 + 1)
    rising = (bins[:, None] - edges[None, :-2]) / np.diff(edges)[None, :-1]
    falling = (edges[None, 2:] - bins[:, None]) / np.diff(edges)[None, 1:]
    weights = np.maximum(0.0, np.minimum(rising, falling))
    return weights * (2.0 / (edges[2:] - edges[:-2]))[None, :]


def num_frames(n_samples: int, cfg: MelConfig = MelConfig()) -> int:
    return max(n_samples, cfg.min_samples) // cfg.hop


def log_mel(samples: np.ndarray, cfg: MelConfig = MelConfig(), filters: np.ndarray | None = None) -> np.ndarray:
    """[frames, n_mels] float32 log-mel of 16 kHz mono float samples (frames = `num_frames`)."""
    x = np.asarray(samples)
    if x.ndim != 1 or not np.issubdtype(x.dtype, np.floating):
        raise ValueError(f"expected 1-D float samples, got {x.dtype} {x.shape}")
    x = x.astype(np.float32)
    if len(x) < cfg.min_samples:
        x = np.pad(x, (0, cfg.min_samples - len(x)))
    half = cfg.n_fft // 2
    x = np.pad(x.astype(np.float64), (half, half), mode="reflect")
    n = num_frames(len(x) - 2 * half, cfg)
    frames = np.lib.stride_tricks.as_strided(x, (n, cfg.n_fft), (x.strides[0] * cfg.hop, x.strides[0]))
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(cfg.n_fft) / cfg.n_fft)  # periodic Hann
    filters = mel_filters(cfg) if filters is None else filters
    logs = np.empty((n, cfg.n_mels), np.float32)
    for a in range(0, n, BLOCK_FRAMES):  # in blocks: a 60 s window's float64 spectra would be ~75 MB at once
        power = np.abs(np.fft.rfft(frames[a : a + BLOCK_FRAMES] * window, axis=1)) ** 2
        logs[a : a + BLOCK_FRAMES] = np.log10(np.maximum(power @ filters, 1e-10))
    logs = np.maximum(logs, logs.max() - np.float32(cfg.dynamic_range))
    return (logs + np.float32(4.0)) / np.float32(4.0)
