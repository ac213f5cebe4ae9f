"""What an int8 graph must keep from its fp32 twin, measured alike for every family.

The same bounds hold on whatever CPU runs the tests and on the emulated AVX2
path (tests/support/cpu_paths.py): the int8 export is meant to give one answer on
every x86 CPU, so there is one set of limits, not one per kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from demo_model.text import edit_distance

# Largest |int8 - fp32| over the largest |fp32| of an encoder's output. Full-range
# int8 weights measured 0.19 here on the AVX2 path (tiny Nano), 7-bit ones 0.03.
MAX_REL_ERROR = 0.1
# CTC: the best token per frame, and the collapsed best path (repeats merged, blanks dropped).
# The tiny random models' CTC heads are nearly flat, so near-ties flip under any rounding:
# 7-bit int8 keeps 93-99% of frames there, full-range int8 on AVX2 75-84% (tiny Nano).
MIN_CTC_FRAME_AGREEMENT = 0.9
MAX_CTC_PATH_EDIT_RATE = 0.15
# LLM: the fp32 greedy continuation, re-scored step by step from the int8 audio rows
# (teacher-forced, so one early near-tie does not count as every later step).
MIN_GREEDY_STEP_AGREEMENT = 0.9


def rel_error(got: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(got - ref).max() / np.abs(ref).max())


def ctc_path(best: np.ndarray, blank: int) -> list[int]:
    """The greedy CTC label sequence of a best-token-per-frame array."""
    best = np.asarray(best).reshape(-1)
    keep = np.ones(len(best), bool)
    keep[1:] = best[1:] != best[:-1]
    return [int(t) for t in best[keep & (best != blank)]]


@dataclass(frozen=True)
class CtcAgreement:
    frames: float  # fraction of frames whose best token is the same
    edits: int  # edit distance between the two collapsed paths
    length: int  # length of the fp32 path

    @property
    def edit_rate(self) -> float:
        return self.edits / max(1, self.length)

    def ok(self) -> bool:
        return self.frames >= MIN_CTC_FRAME_AGREEMENT and self.edit_rate <= MAX_CTC_PATH_EDIT_RATE

    def __str__(self) -> str:
        return f"CTC best token on {self.frames:.1%} of frames, path {self.edits}/{self.length} edits"


def ctc_agreement(got: np.ndarray, ref: np.ndarray, blank: int) -> CtcAgreement:
    got, ref = np.asarray(got).reshape(-1), np.asarray(ref).reshape(-1)
    a, b = ctc_path(got, blank), ctc_path(ref, blank)
    return CtcAgreement(float((got == ref).mean()), edit_distance(b, a), len(b))


def greedy_step_agreement(logits: np.ndarray, tokens: Sequence[int]) -> float:
    """Fraction of steps where the best next token after the same prefix is the fp32 one."""
    return float((np.argmax(logits, axis=-1) == np.asarray(tokens)).mean())


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
