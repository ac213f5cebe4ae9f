"""Continuous integrate-and-fire (CIF) and Paraformer's token timestamps, in NumPy on the CPU.

The encoder graph gives one weight `alpha` per 60 ms frame. CIF adds them
up; each time the sum passes the threshold (1.0) a token "fires", and its
acoustic embedding is the alpha-weighted sum of the frames since the last
fire (a frame on the boundary is split between the two tokens). How many
tokens fire depends on the values, which is why this runs here and never in
a graph a GPU provider compiles.

funasr computes this two ways, and the two round differently, so each
variant mirrors its own reference operation for operation in float32:

* `fire_vectorised` - `Paraformer` (CifPredictorV2's `cif_v1`): a prefix
  sum of the alphas in float64 cast to float32, fires where its integer part
  grows, embeddings from a prefix sum of alpha x frame (torch accumulates
  that cumsum in float64 too) minus the previous fire's, plus and minus the
  split frames' remainders;
* `fire_loop` - `BiCifParaformer` (its own `cif`): one frame at a time,
  accumulating the embedding in float32.

Both start with funasr's tail: a zero frame with weight `tail_threshold`
(0.45) after the last one, and `floor(sum of alphas)` tokens. The sum is
taken exactly (math.fsum, rounded to float32 once): torch sums float32 in
an order that depends on the CPU's vector width, so no fixed order could
match it everywhere; the two differ only when the sum lies within about
1e-5 of a whole number.

Timestamps (`token_times`) follow funasr's `ts_prediction_lfr6_standard`:
peaks where the fire weight reaches 1 - 1e-4, shifted 1.5 frames earlier;
a token lasts until the next peak but at most 12 frames; leading and
trailing silence of more than 5 frames is cut off; times in whole
milliseconds (truncated), as funasr returns them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_F32 = np.float32
PEAK = 1.0 - 1e-4  # a timestamp peak: the fire weight reached this (funasr's threshold - 1e-4)
SHIFT_FRAMES = -1.5  # funasr's force_time_shift
EDGE_FRAMES = 5  # START_END_THRESHOLD: longer leading/trailing silence is not part of a token
MAX_TOKEN_FRAMES = 12  # MAX_TOKEN_DURATION, in (upsampled) frames


def exact_sum(x: np.ndarray) -> np.float32:
    """The sum of float32 values, exactly rounded to float32 (independent of summation order)."""
    return _F32(math.fsum(x.astype(np.float64).tolist()))


@dataclass
class Fired:
    """What integrate-and-fire gives for one window.

    Args:
        embeddings: [token_count, D] acoustic embeddings (rows past the fires stay zero, as in funasr).
        token_count: floor(sum of the alphas with the tail).
        alphas: [T + 1] the weights with the tail appended.
        peaks: [T + 1] the fire weights (funasr's `cif_peak`): the running sum, >= 1 where a token fired.
    """

    embeddings: np.ndarray
    token_count: int
    alphas: np.ndarray
    peaks: np.ndarray


def with_tail(alphas: np.ndarray, hidden: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """funasr's tail_process_fn for one sequence: a zero frame of weight `tail` after the last."""
    a = np.concatenate([alphas.astype(_F32), np.array([tail], _F32)])
    h = np.concatenate([hidden.astype(_F32), np.zeros((1, hidden.shape[1]), _F32)])
    return a, h


def fire_vectorised(alphas: np.ndarray, hidden: np.ndarray, tail: float) -> Fired:
    """Paraformer's CIF (`cif_v1`) on [T] alphas and [T, D] encoder states."""
    a, h = with_tail(alphas, hidden, tail)
    total = exact_sum(a)
    count = int(np.floor(total))
    prefix = np.cumsum(a.astype(np.float64)).astype(_F32)
    whole = np.floor(prefix)
    before = np.concatenate([np.zeros(1, _F32), whole[:-1]])
    fired = (whole - before) > 0
    peaks = np.zeros_like(a)
    peaks[fired] = 1
    peaks = (peaks + prefix) - whole
    rows = int(np.round(total))
    out = np.zeros((max(rows, count), h.shape[1]), _F32)
    if fired.any():
        cum = np.cumsum((a[:, None] * h).astype(np.float64), axis=0).astype(_F32)[fired]
        remains = (peaks - np.floor(peaks))[fired]
        split = remains[:, None] * h[fired]
        prev_cum = np.concatenate([np.zeros((1, h.shape[1]), _F32), cum[:-1]])
        prev_split = np.concatenate([np.zeros((1, h.shape[1]), _F32), split[:-1]])
        frames = ((cum - prev_cum) + prev_split) - split
        out[: len(frames)] = frames[: len(out)]
    return Fired(out[:count], count, a, peaks)


def fire_loop(alphas: np.ndarray, hidden: np.ndarray, tail: float, threshold: float = 1.0) -> Fired:
    """BiCifParaformer's CIF (the loop `cif`) on [T] alphas and [T, D] encoder states."""
    a, h = with_tail(alphas, hidden, tail)
    total = exact_sum(a)
    count = int(np.floor(total))
    limit = _F32(threshold)
    one = _F32(1.0)
    integrate = _F32(0.0)
    frame = np.zeros(h.shape[1], _F32)
    peaks = np.empty_like(a)
    tokens = []
    for t in range(len(a)):
        alpha = a[t]
        completion = one - integrate
        integrate = _F32(integrate + alpha)
        peaks[t] = integrate
        if integrate >= limit:
            integrate = _F32(integrate - one)
            frame = frame + completion * h[t]
            tokens.append(frame)
            frame = (alpha - completion) * h[t]
        else:
            frame = frame + alpha * h[t]
    out = np.zeros((max(int(np.round(total)), count), h.shape[1]), _F32)
    if tokens:
        out[: len(tokens)] = np.stack(tokens)[: len(out)]
    return Fired(out[:count], count, a, peaks)


def fire_weights(alphas: np.ndarray, threshold: float) -> np.ndarray:
    """Running fire weights without embeddings (funasr's loop `cif_wo_hidden`, subtracting `threshold`)."""
    limit = _F32(threshold)
    integrate = _F32(0.0)
    out = np.empty(len(alphas), _F32)
    for t, alpha in enumerate(alphas.astype(_F32)):
        integrate = _F32(integrate + alpha)
        out[t] = integrate
        if integrate >= limit:
            integrate = _F32(integrate - limit)
    return out


def upsampled_peaks(weights: np.ndarray, token_count: int) -> tuple[np.ndarray, np.ndarray]:
    """BiCIF's timestamp head output scaled to `token_count` in all (get_upsample_timestamp): (alphas, peaks)."""
    total = exact_sum(weights)
    scaled = weights.astype(_F32) * _F32(_F32(token_count) / total) if total > 0 else weights.astype(_F32)
    return scaled, fire_weights(scaled, PEAK)


def head_token_times(
    weights: np.ndarray, token_count: int, tokens: list[str], frame_seconds: float, upsample: int
) -> list[list[int]]:
    """[start_ms, end_ms] per token from BiCIF's timestamp head: its [upsample x T] weights scaled to
    the CIF's `token_count`, then `token_times` (the other arguments are token_times')."""
    alphas, peaks = upsampled_peaks(weights, token_count)
    return token_times(alphas, peaks, tokens, frame_seconds, upsample)


def token_times(
    alphas: np.ndarray, peaks: np.ndarray, tokens: list[str], frame_seconds: float, upsample: int
) -> list[list[int]]:
    """[start_ms, end_ms] per token (funasr's ts_prediction_lfr6_standard; empty when nothing fires).

    Args:
        alphas: the timing weights (BiCIF: the upsampled head's; plain: the CIF alphas with the tail).
        peaks: their fire weights.
        tokens: the decoded tokens, `</s>` at the end dropped as funasr does.
        frame_seconds: one encoder frame (0.06).
        upsample: timing frames per encoder frame (3 for BiCIF, 1 for the plain CIF weights).
    """
    if not tokens:
        return []
    if tokens[-1] == "</s>":
        tokens = tokens[:-1]
    step = frame_seconds / upsample
    fires = np.flatnonzero(peaks >= _F32(PEAK)) + SHIFT_FRAMES
    if len(fires) != len(tokens) + 1:
        # funasr's fallback: rescale the weights to tokens + 1 and fire again.
        rescaled = alphas.astype(_F32) / _F32(exact_sum(alphas) / _F32(len(tokens) + 1))
        fires = np.flatnonzero(fire_weights(rescaled, PEAK) >= _F32(PEAK)) + SHIFT_FRAMES
    if len(fires) == 0:
        return []
    n_frames = len(peaks)
    spans: list[list[float]] = []
    silent: list[bool] = []
    if fires[0] > EDGE_FRAMES:
        spans.append([0.0, fires[0] * step])
        silent.append(True)
    for i in range(len(fires) - 1):
        silent.append(i >= len(tokens) or tokens[i] == "<sil>")
        if fires[i + 1] - fires[i] <= MAX_TOKEN_FRAMES:
            spans.append([fires[i] * step, fires[i + 1] * step])
        else:
            cut = fires[i] + MAX_TOKEN_FRAMES
            spans += [[fires[i] * step, cut * step], [cut * step, fires[i + 1] * step]]
            silent.append(True)
    if n_frames - fires[-1] > EDGE_FRAMES:
        end = (n_frames + fires[-1]) * 0.5
        spans[-1][1] = end * step
        spans.append([end * step, n_frames * step])
        silent.append(True)
    elif spans:
        spans[-1][1] = n_frames * step
    return [[int(s * 1000), int(e * 1000)] for (s, e), sil in zip(spans, silent) if not sil]
