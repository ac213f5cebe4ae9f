"""Speech for the demo model: espeak-ng in this process, augmentation, speakers, the held-out set.

Every voice, speed and augmentation is drawn from a seeded generator, and every job that must be
repeatable is synthesised in a freshly forked process (`fresh_process_map`): espeak-ng keeps state
between utterances, so the audio is a function of the seed alone.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

import numpy as np

from .recipe import (
    DIGITS,
    HELD_OUT_SPEEDS,
    HELD_OUT_VARIANTS,
    SAMPLE_RATE,
    TRAIN_BASES,
    TRAIN_SPEEDS,
    TRAIN_VARIANTS,
    VOCAB,
)


@dataclass(frozen=True)
class Speaker:
    """One espeak-ng voice configuration."""

    base: str
    variant: str
    speed: int
    pitch: int
    gap: int  # extra pause between words, in 10 ms units (espeak -g)

    @property
    def voice(self) -> str:
        return self.base + (f"+{self.variant}" if self.variant else "")


class _Espeak:
    """espeak-ng's C library in this process, through ctypes.

    The same engine as the `espeak-ng` command (identical samples), but
    without a process start per utterance (~1.5 ms instead of ~40 ms per
    utterance here), and it reports where each word starts, which gives the
    frame-level scaffolding losses exact word alignments.
    """

    RETRIEVAL_SYNCHRONOUS = 2  # espeak_AUDIO_OUTPUT: synthesise into our callback, return when done
    RATE, PITCH, WORDGAP = 1, 3, 7  # espeak_PARAMETER
    EVENT_END_OF_LIST, EVENT_WORD = 0, 1
    POS_CHARACTER = 1

    def __init__(self) -> None:
        import ctypes

        class Event(ctypes.Structure):  # espeak_EVENT from speak_lib.h
            _fields_ = [
                ("type", ctypes.c_int),
                ("unique_identifier", ctypes.c_uint),
                ("text_position", ctypes.c_int),
                ("length", ctypes.c_int),
                ("audio_position", ctypes.c_int),
                ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p),
                ("id", ctypes.c_char * 8),
            ]

        callback_type = ctypes.CFUNCTYPE(
            ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(Event)
        )
        self.lib = ctypes.CDLL("libespeak-ng.so.1")
        self.lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        self.lib.espeak_Synth.argtypes = [
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.c_void_p,
        ]
        self.rate = self.lib.espeak_Initialize(self.RETRIEVAL_SYNCHRONOUS, 0, None, 0)
        if self.rate <= 0:
            raise RuntimeError("espeak-ng failed to initialise")
        self.chunks: list[np.ndarray] = []
        self.word_samples: list[int] = []

        def collect(wav, n, events) -> int:
            if n > 0:
                self.chunks.append(np.ctypeslib.as_array(wav, shape=(n,)).copy())
            i = 0
            while events[i].type != self.EVENT_END_OF_LIST:
                if events[i].type == self.EVENT_WORD:
                    self.word_samples.append(int(events[i].sample))
                i += 1
            return 0

        self._callback = callback_type(collect)  # kept: the library holds only a raw pointer
        self.lib.espeak_SetSynthCallback(self._callback)
        self.voice: tuple | None = None

    def synth(self, text: str, speaker: Speaker) -> tuple[np.ndarray, list[int]]:
        """22.05 kHz int16 samples and the sample at which each word starts."""
        settings = (speaker.voice, speaker.speed, speaker.pitch, speaker.gap)
        if settings != self.voice:
            if self.lib.espeak_SetVoiceByName(speaker.voice.encode()) != 0:
                raise RuntimeError(f"espeak-ng has no voice {speaker.voice!r}")
            for parameter, value in (
                (self.RATE, speaker.speed),
                (self.PITCH, speaker.pitch),
                (self.WORDGAP, speaker.gap),
            ):
                self.lib.espeak_SetParameter(parameter, value, 0)
            self.voice = settings
        self.chunks, self.word_samples = [], []
        data = text.encode() + b"\0"
        self.lib.espeak_Synth(data, len(data), 0, self.POS_CHARACTER, 0, 0, None, None)
        self.lib.espeak_Synchronize()
        samples = np.concatenate(self.chunks) if self.chunks else np.zeros(0, np.int16)
        return samples, list(self.word_samples)


_ESPEAK: dict[int, _Espeak] = {}  # one per process (forked workers make their own)


def espeak_words(text: str, speaker: Speaker) -> tuple[np.ndarray, list[tuple[str, int, int]]]:
    """16 kHz float32 speech and (word, first sample, end sample) of each word."""
    import soxr

    engine = _ESPEAK.get(os.getpid())
    if engine is None:
        engine = _ESPEAK[os.getpid()] = _Espeak()
    raw, starts = engine.synth(text, speaker)
    samples = soxr.resample(raw.astype(np.float32) / 32768.0, engine.rate, SAMPLE_RATE).astype(np.float32)
    words = text.split()
    scale = SAMPLE_RATE / engine.rate
    a, b = speech_span(samples)
    starts = [max(a, int(s * scale)) for s in starts[: len(words)]]
    if len(starts) != len(words):  # never seen; fall back to an even split of the speech
        starts = [a + (b - a) * k // len(words) for k in range(len(words))]
    ends = starts[1:] + [b]
    return samples, [(w, s, max(s + 1, e)) for w, s, e in zip(words, starts, ends)]


def augment(samples: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Random level, silence around the speech, sometimes reverb, always a little noise.

    espeak's output is studio-clean and ends in digital silence; real input
    never does, and the engine's VAD trimming leaves ~0.2 s of non-speech on
    each side, so the model has to be at ease with both.
    """
    from scipy.signal import fftconvolve, lfilter

    x = samples.astype(np.float64)
    if rng.random() < 0.35:  # a small room: exponentially decaying noise as impulse response
        rt60 = rng.uniform(0.1, 0.45)
        n = int(rt60 * SAMPLE_RATE)
        t = np.arange(n) / SAMPLE_RATE
        ir = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
        ir[0] = 0.0
        ir *= rng.uniform(0.1, 0.35) / (np.sqrt(np.sum(ir**2)) + 1e-9)
        ir[0] = 1.0
        x = fftconvolve(x, ir)[: len(x) + n // 2]
    lead = np.zeros(int(rng.uniform(0.05, 0.6) * SAMPLE_RATE))
    tail = np.zeros(int(rng.uniform(0.05, 0.6) * SAMPLE_RATE))
    x = np.concatenate([lead, x, tail])
    x *= rng.uniform(0.08, 0.9) / (np.abs(x).max() + 1e-9)
    speech_rms = np.sqrt(np.mean(x**2)) + 1e-9
    noise = rng.standard_normal(len(x))
    if rng.random() < 0.5:  # red-ish noise: most energy low, like room tone
        noise = lfilter([1.0], [1.0, -0.97], noise)
    noise *= speech_rms / (np.sqrt(np.mean(noise**2)) + 1e-9) * 10 ** (-rng.uniform(18, 45) / 20)
    return np.clip(x + noise, -1.0, 1.0).astype(np.float32), len(lead)


def random_text(rng: np.random.Generator, max_words: int = 6) -> str:
    """1-6 words: digit strings (as in phone numbers and codes) or any mix of the vocabulary."""
    n = int(rng.integers(1, max_words + 1))
    pool = DIGITS if rng.random() < 0.4 else VOCAB
    return " ".join(pool[int(i)] for i in rng.integers(0, len(pool), n))


def random_speaker(rng: np.random.Generator, held_out: bool) -> Speaker:
    if held_out:
        # Accents are shared with training; the voice variant (timbre, formants,
        # pitch range) and the speaking rate never occur in training.
        base = TRAIN_BASES[int(rng.integers(len(TRAIN_BASES)))]
        variant = HELD_OUT_VARIANTS[int(rng.integers(len(HELD_OUT_VARIANTS)))]
        speed = int(rng.integers(HELD_OUT_SPEEDS[0], HELD_OUT_SPEEDS[1] + 1))
        gap = int(rng.integers(0, 4))
    else:
        base = TRAIN_BASES[int(rng.integers(len(TRAIN_BASES)))]
        variant = TRAIN_VARIANTS[int(rng.integers(len(TRAIN_VARIANTS)))]
        lo, hi = TRAIN_SPEEDS[int(rng.integers(len(TRAIN_SPEEDS)))]
        speed = int(rng.integers(lo, hi + 1))
        gap = int(rng.integers(0, 7))
    return Speaker(base, variant, speed, int(rng.integers(10, 91)), gap)


def speech_span(clip: np.ndarray) -> tuple[int, int]:
    """First and last sample of a clean espeak clip that is not silence (espeak pads with exact zeros)."""
    loud = np.flatnonzero(np.abs(clip) > 0.02 * (np.abs(clip).max() + 1e-9))
    return (int(loud[0]), int(loud[-1]) + 1) if len(loud) else (0, len(clip))


@dataclass(frozen=True)
class HeldOutUtterance:
    text: str
    speaker: Speaker
    samples: np.ndarray = field(repr=False, compare=False)


# What every job imports, imported once in the fork server (a busy machine took seconds per fresh import).
_SERVER_PRELOAD = ["numpy", "scipy.signal", "soxr"]


def fresh_process_map(fn, jobs: Sequence, workers: int) -> list:
    """fn(job) for every job, each in a newly forked process, results in job order.

    espeak-ng keeps state between utterances inside a process (measured: the
    same text and voice synthesised again after another voice differs by up
    to 0.85 full scale), so synthesis that must be repeatable starts every job
    from the same state: a fresh fork of multiprocessing's fork server, a
    single-threaded process that never synthesises. Forking the caller instead
    copied whatever it held: a test process that had run llama.cpp or ONNX
    Runtime threads hung in the pool twice. A worker that dies raises
    `BrokenProcessPool` instead of waiting forever.
    """
    context = get_context("forkserver")
    context.set_forkserver_preload(_SERVER_PRELOAD)
    with ProcessPoolExecutor(max(1, workers), mp_context=context, max_tasks_per_child=1) as pool:
        return list(pool.map(fn, jobs))


def _held_out_utterance(job: tuple[str, Speaker, int]) -> HeldOutUtterance:
    text, speaker, seed = job
    return HeldOutUtterance(text, speaker, augment(espeak_words(text, speaker)[0], np.random.default_rng(seed))[0])


def held_out_set(n: int, seed: int, workers: int = 2) -> list[HeldOutUtterance]:
    """Utterances from voice variants and speeds that training never used (repeatable: see `fresh_process_map`)."""
    rng = np.random.default_rng([seed, 991])
    jobs = []
    for _ in range(n):
        speaker = random_speaker(rng, held_out=True)
        jobs.append((random_text(rng), speaker, int(rng.integers(2**31))))
    return fresh_process_map(_held_out_utterance, jobs, workers)


def espeak_many(jobs: Sequence[tuple[str, Speaker]], workers: int = 2) -> list[np.ndarray]:
    """16 kHz float32 speech for each (text, speaker), each in a fresh process (repeatable; for tests)."""
    return fresh_process_map(_espeak_samples, list(jobs), workers)


def _espeak_samples(job: tuple[str, Speaker]) -> np.ndarray:
    return espeak_words(*job)[0]
