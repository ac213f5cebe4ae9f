"""The Fun-ASR-Nano acoustic front-end in plain NumPy.

The encoder was trained on features from funasr's ``WavFrontend``: Kaldi log-mel
filter banks (computed by kaldi-native-fbank when torchaudio is absent, which is
how the reference runs here) followed by low-frame-rate (LFR) stacking. Any
deviation from those numbers is a silent accuracy loss, so this module follows
that code step by step instead of using a "standard" mel spectrogram:

    samples * 32768 -> 25 ms hamming frames every 10 ms (snip_edges)
    -> remove DC -> pre-emphasis 0.97 -> window -> 512-point |FFT|^2
    -> 80 triangular Kaldi mel filters (20 Hz .. Nyquist) -> log(max(x, eps))
    -> LFR: stack 7 frames every 6 frames -> [T_lfr, 560]

It needs neither torch nor kaldi-native-fbank at runtime; tests/engine/test_frontend.py
compares it against both.

Short clips follow the reference: ``WavFrontend`` shrinks the frame to the clip
when the clip is shorter than 25 ms, so 257..399 samples still make one frame.
Below that the reference cannot compute anything (kaldi-native-fbank raises:
a 256-point FFT leaves some of the 80 mel filters without an FFT bin), and 0
samples raise as well. Here such clips, including empty ones, give zero frames:
0.016 s of audio carries nothing to transcribe, and a caller slicing a stream
should not have to special-case its last few samples.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import messages, schema
from .schema import Invalid, entry

__all__ = [
    "FrontendConfig",
    "fbank",
    "apply_lfr",
    "features",
    "num_fbank_frames",
    "num_lfr_frames",
    "Cmvn",
    "load_cmvn",
]

_F32 = np.float32
# Kaldi floors mel energies at float epsilon before the log, so digital silence
# gives log(2**-23) ~= -15.94 rather than -inf.
_LOG_FLOOR = float(np.finfo(np.float32).eps)
_WINDOWS = ("hamming", "hanning", "povey", "rectangular")


# --------------------------------------------------------------------------
# Frame arithmetic (kaldi-native-fbank does it in float32; so do we, so that
# window sizes truncate the same way).


def _window_size(frame_length_ms: float, cfg: FrontendConfig) -> int:
    return int(_F32(_F32(cfg.sample_rate) * _F32(0.001)) * _F32(frame_length_ms))


def _window_shift(cfg: FrontendConfig) -> int:
    return int(_F32(_F32(cfg.sample_rate) * _F32(0.001)) * _F32(cfg.frame_shift_ms))


def _padded_size(window_size: int) -> int:
    return 1 << max(window_size - 1, 0).bit_length()


# --------------------------------------------------------------------------
# Cached constants. lru_cache keys on the (frozen, hashable) config, so there is
# no module-level mutable state; the arrays are made read-only because every
# caller shares them.


@lru_cache(maxsize=64)
def _window(kind: str, size: int) -> np.ndarray:
    """Kaldi's window, evaluated in double and stored as float32 like knf."""
    i = np.arange(size, dtype=np.float64)
    a = 2.0 * math.pi / (size - 1) if size > 1 else 0.0
    if kind == "hamming":
        w = 0.54 - 0.46 * np.cos(a * i)
    elif kind == "hanning":
        w = 0.5 - 0.5 * np.cos(a * i)
    elif kind == "povey":
        w = (0.5 - 0.5 * np.cos(a * i)) ** 0.85
    else:
        w = np.ones(size)
    w = w.astype(np.float32)
    w.flags.writeable = False
    return w


def _mel_scale(freq: np.ndarray) -> np.ndarray:
    return _F32(1127.0) * np.log(_F32(1.0) + freq / _F32(700.0))


@lru_cache(maxsize=16)
def _mel_filters(cfg: FrontendConfig, n_fft: int) -> np.ndarray | None:
    """Kaldi mel filters as a [n_fft//2 + 1, n_mels] matrix, or None if unusable.

    Built in float32 exactly as kaldi-native-fbank does: the triangles live on
    the mel axis (not in Hz) and cover FFT bins 0 .. n_fft/2 - 1; the Nyquist
    row stays zero. None means some filter catches no FFT bin, the case in
    which the reference raises "You may have set num_mel_bins too large".
    """
    if n_fft < 2 or n_fft % 2:
        return None
    sr = _F32(cfg.sample_rate)
    nyquist = _F32(0.5) * sr
    low = _F32(cfg.low_freq)
    high = _F32(cfg.high_freq) if cfg.high_freq > 0 else nyquist + _F32(cfg.high_freq)
    if not (0 <= low < nyquist and 0 < high <= nyquist and low < high):
        return None
    n_bins = n_fft // 2
    bin_width = sr / _F32(n_fft)
    mel_low, mel_high = _mel_scale(low), _mel_scale(high)
    delta = (mel_high - mel_low) / _F32(cfg.n_mels + 1)

    k = np.arange(cfg.n_mels, dtype=np.float32)[:, None]
    left = mel_low + k * delta
    center = mel_low + (k + _F32(1)) * delta
    right = mel_low + (k + _F32(2)) * delta
    mel = _mel_scale(bin_width * np.arange(n_bins, dtype=np.float32))[None, :]

    rising = (mel - left) / (center - left)
    falling = (right - mel) / (right - center)
    inside = (mel > left) & (mel < right)
    if not inside.any(axis=1).all():
        return None
    weights = np.where(inside, np.where(mel <= center, rising, falling), _F32(0.0))
    out = np.zeros((n_bins + 1, cfg.n_mels), dtype=np.float32)
    out[:n_bins] = weights.T
    out.flags.writeable = False
    return out


# --------------------------------------------------------------------------
# Configuration.


@dataclass(frozen=True)
class FrontendConfig:
    """Everything that changes the numbers the encoder sees (a manifest's `frontend`).

    Defaults are Fun-ASR-Nano's inference settings; a manifest that leaves a
    key out gets them. A key this code does not implement is refused
    (`schema.parse`): ignoring it would silently change the features.
    """

    sample_rate: int = entry(16000, min=1)
    n_mels: int = entry(80, min=3)
    frame_length_ms: float = entry(25.0, above=0)
    frame_shift_ms: float = entry(10.0, above=0)
    window: str = entry("hamming", choices=_WINDOWS)
    preemph: float = entry(0.97, min=0.0, max=1.0)
    remove_dc_offset: bool = True
    low_freq: float = entry(20.0, min=0.0)
    # <= 0 means "relative to Nyquist", as in Kaldi.
    high_freq: float = 0.0
    # funasr's WavFrontend scales [-1, 1] floats to the int16 range ("upsacle_samples")
    upscale: float = entry(32768.0, above=0)
    lfr_m: int = entry(7, min=1)
    lfr_n: int = entry(6, min=1)
    # Only the inference settings are implemented: dithering would make
    # features random, and snip_edges=False is not what Nano uses.
    dither: float = entry(0.0, min=0.0, max=0.0)
    snip_edges: bool = entry(True, choices=(True,))

    def __post_init__(self) -> None:
        schema.check(self)
        if _window_size(self.frame_length_ms, self) < 1:
            raise Invalid("frame_length_ms", messages.FRAMES_TOO_SHORT, value=self.frame_length_ms)
        if _window_shift(self) < 1:
            raise Invalid("frame_shift_ms", messages.FRAMES_TOO_SHORT, value=self.frame_shift_ms)
        if _mel_filters(self, _padded_size(_window_size(self.frame_length_ms, self))) is None:
            raise Invalid(
                "n_mels", messages.MEL_FILTERS_DO_NOT_FIT, value=self.n_mels, low=self.low_freq, high=self.high_freq
            )

    @property
    def feature_dim(self) -> int:
        """Width of one row of `features` (the encoder's input size)."""
        return self.n_mels * self.lfr_m


_NANO = FrontendConfig()


# --------------------------------------------------------------------------
# Frame counts (pure arithmetic).


def _clip_window_size(n_samples: int, cfg: FrontendConfig) -> int:
    """Window length the reference uses for a clip of `n_samples`.

    WavFrontend passes ``frame_length=min(25, n / fs * 1000)`` (a Python float)
    so a clip shorter than one frame still yields one, shorter, frame.
    """
    return _window_size(min(cfg.frame_length_ms, n_samples / cfg.sample_rate * 1000), cfg)


def num_fbank_frames(n_samples: int, cfg: FrontendConfig = _NANO) -> int:
    """Rows `fbank` returns for a clip, without computing it (for window planning)."""
    n_samples = int(n_samples)
    if n_samples <= 0:
        return 0
    size = _clip_window_size(n_samples, cfg)
    # Where the reference raises (FFT too short for the mel filters), we return
    # nothing; see the module docstring.
    if size < 1 or n_samples < size or _mel_filters(cfg, _padded_size(size)) is None:
        return 0
    return 1 + (n_samples - size) // _window_shift(cfg)


def num_lfr_frames(n_samples: int, cfg: FrontendConfig = _NANO) -> int:
    """Rows `features` returns for a clip: ceil(fbank frames / lfr_n)."""
    return -(-num_fbank_frames(n_samples, cfg) // cfg.lfr_n)


# --------------------------------------------------------------------------
# Features.


def _as_mono_float32(samples: np.ndarray) -> np.ndarray:
    x = np.asarray(samples)
    if x.ndim != 1:
        raise ValueError(f"expected 1-D mono samples, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.floating):
        # int16 PCM would be scaled by 32768 twice and silently give garbage.
        raise ValueError(f"expected float samples in [-1, 1], got dtype {x.dtype}")
    # The reference receives float32 tensors; rounding to float32 first keeps
    # float64 input bit-compatible with it.
    return x.astype(np.float32, copy=False)


# Frames per block in `fbank`: every step is per frame, so blocks only bound
# the temporaries (a 60 s window at once held ~60 MB of float64 frames and
# complex spectra; a block of 1000 frames holds ~10 MB) without changing a bit.
FBANK_BLOCK = 1000


def fbank(samples: np.ndarray, cfg: FrontendConfig = _NANO) -> np.ndarray:
    """Kaldi log-mel filter banks, float32 [T, n_mels], for 1-D float samples in [-1, 1].

    Precision follows what measured closest to kaldi-native-fbank: framing,
    DC removal, pre-emphasis and windowing in float32 as knf does them, the
    FFT in float64 (numpy's float64 rfft is also the faster one), and the mel
    projection in float32. The remaining difference (~1e-4 at most, in mel bands
    far below the frame's loudest) is knf's own float32 FFT rounding.
    """
    x = _as_mono_float32(samples)
    n = x.shape[0]
    n_frames = num_fbank_frames(n, cfg)
    if n_frames == 0:
        return np.zeros((0, cfg.n_mels), dtype=np.float32)
    size = _clip_window_size(n, cfg)
    shift = _window_shift(cfg)
    scaled = x * _F32(cfg.upscale)  # exact for powers of two, as in torch
    frames = np.lib.stride_tricks.sliding_window_view(scaled, size)[::shift][:n_frames]
    out = np.empty((n_frames, cfg.n_mels), dtype=np.float32)
    for start in range(0, n_frames, FBANK_BLOCK):
        out[start : start + FBANK_BLOCK] = _log_mel(frames[start : start + FBANK_BLOCK], cfg, size)
    return out


def _log_mel(frames: np.ndarray, cfg: FrontendConfig, size: int) -> np.ndarray:
    """Log-mel energies of a block of frames (a read-only strided view, [n, size])."""
    if cfg.remove_dc_offset:
        frames = frames - frames.mean(axis=1, keepdims=True)
    else:
        frames = frames.copy()
    if cfg.preemph:
        # Kaldi's pre-emphasis works within each frame and treats the sample
        # before the first one as the first one itself.
        coeff = _F32(cfg.preemph)
        frames[:, 1:] -= coeff * frames[:, :-1]
        frames[:, 0] -= coeff * frames[:, 0]
    frames *= _window(cfg.window, size)
    n_fft = _padded_size(size)
    spectrum = np.fft.rfft(frames.astype(np.float64), n=n_fft, axis=1)
    power = spectrum.real**2
    power += spectrum.imag**2
    mel = power.astype(np.float32) @ _mel_filters(cfg, n_fft)
    np.maximum(mel, _F32(_LOG_FLOOR), out=mel)
    return np.log(mel)


def apply_lfr(feats: np.ndarray, m: int, n: int) -> np.ndarray:
    """Low frame rate: stack `m` consecutive frames every `n` -> [ceil(T/n), D*m].

    The first frame is repeated (m-1)//2 times on the left so output row i is
    centred on input frame i*n; the last frame is repeated on the right as far
    as needed. That is what funasr's padding-plus-as_strided code amounts to.
    """
    feats = np.asarray(feats)
    if feats.ndim != 2:
        raise ValueError(f"expected [T, D] features, got shape {feats.shape}")
    if m < 1 or n < 1:
        raise ValueError(f"lfr m and n must be >= 1, got m={m}, n={n}")
    t, d = feats.shape
    t_lfr = -(-t // n)
    if t_lfr == 0:
        return np.zeros((0, d * m), dtype=np.float32)
    rows = np.arange(t_lfr)[:, None] * n + np.arange(m)[None, :] - (m - 1) // 2
    np.clip(rows, 0, t - 1, out=rows)
    return feats[rows].reshape(t_lfr, m * d).astype(np.float32, copy=False)


@dataclass(frozen=True)
class Cmvn:
    """Global feature normalisation after LFR: ``(x + shift) * scale``, as funasr's ``apply_cmvn``."""

    shift: np.ndarray  # the file's <AddShift> row (minus the training mean)
    scale: np.ndarray  # its <Rescale> row (one over the training deviation)


def load_cmvn(path: str | os.PathLike[str]) -> Cmvn:
    """Read a Kaldi nnet CMVN file (funasr's ``am.mvn``); ValueError says what is wrong with it.

    The numbers are the bracketed vector after ``<AddShift>`` and after
    ``<Rescale>``; anything else in the file (``<Splice>``, learn-rate
    coefficients) does not change inference.
    """
    words = Path(path).read_text(encoding="utf-8").split()
    rows = []
    for marker in ("<AddShift>", "<Rescale>"):
        try:
            start = words.index("[", words.index(marker)) + 1
            row = np.array(words[start : words.index("]", start)], dtype=np.float32)
        except ValueError:
            raise ValueError(f"no {marker} [ numbers ] vector") from None
        if row.size == 0 or not np.all(np.isfinite(row)):
            raise ValueError(f"empty or non-finite {marker} vector")
        rows.append(row)
    if rows[0].shape != rows[1].shape:
        raise ValueError(f"<AddShift> has {rows[0].size} values, <Rescale> {rows[1].size}")
    return Cmvn(shift=rows[0], scale=rows[1])


def features(samples: np.ndarray, cfg: FrontendConfig = _NANO, cmvn: Cmvn | None = None) -> np.ndarray:
    """Encoder input (funasr's ``lfr_feat``), float32 [T_lfr, n_mels * lfr_m].

    Fun-ASR-Nano's WavFrontend has no cmvn_file; SenseVoice's normalises
    with ``am.mvn`` (in float32, add then multiply, as the reference does).
    """
    feats = apply_lfr(fbank(samples, cfg), cfg.lfr_m, cfg.lfr_n)
    if cmvn is not None:
        feats = (feats + cmvn.shift[: feats.shape[1]]) * cmvn.scale[: feats.shape[1]]
    return feats


def check_input_size(input_size: int, frontend: FrontendConfig) -> None:
    """An fbank family's `check_frontend`: its encoder must take the rows this front-end makes.

    Args:
        input_size: the encoder's input width the manifest section declares (`encoder.input_size`).
        frontend: the manifest's front-end.

    Raises `schema.Invalid` naming `encoder.input_size` otherwise.
    """
    if input_size != frontend.feature_dim:
        raise Invalid(
            "encoder.input_size",
            messages.KEY_MISMATCH,
            value=input_size,
            other="frontend.n_mels × frontend.lfr_m",
            expected=frontend.feature_dim,
        )
