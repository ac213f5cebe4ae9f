#!/usr/bin/env python3
"""Train Tingji's demo model: a small Fun-ASR-Nano that really recognises speech.

Random-weight checkpoints (tools/make_tiny_checkpoint.py) prove the pipeline
computes what the reference computes, but not that it transcribes: VAD
trimming, window seams or a wrong prompt would go unnoticed when every output
is noise anyway. This script trains, on CPU and in under half an hour, a model
that recognises a small English vocabulary spoken by espeak-ng, so tests can
check words instead of numbers.

    tools/train_demo_model.py --out DIR --seed N [--minutes M]

It is Fun-ASR-Nano in every respect but size: the SenseVoice SAN-M encoder,
the transformer adaptor whose first ceil(T/8) rows are the LLM's audio
tokens, the CTC head, and a Qwen3 decoder prompted with Tingji's default
prompt (`build_prompt()`: no language, no hotwords, itn=True). The checkpoint
is written in the official release layout (funasr's FunASRNano loads it) and
exported with `tingji export-model`. One hyperparameter differs in kind: the
FSMN kernel spans the 60 s window (see `positional_init`).

Data: every utterance is synthesised here with espeak-ng's C library (many
accents, voice variants, speeds, pitches, word gaps, tempo perturbation),
then given random level, leading and trailing silence, light noise and
sometimes reverb; in training the features also get vocal-tract-length
warping and channel tilt. Eight voice variants (timbre, formants, pitch range)
and one band of speeds are never used in training; the held-out evaluation set
is made only of those, spoken with the training accents (`random_speaker`).
Two further accents are not used at all.
Long examples (up to 58 s) are utterances joined back to back, one speaker's
first, then others' as in a conversation.

Training: CTC and the LLM loss as the reference trains them, after a
short-only curriculum phase, plus scaffolding losses that are not part of
the model (their heads are dropped from the checkpoint): per-frame word tags
on the encoder output, from espeak's word positions, the same tags asked
of the packed adaptor rows, and the packed rows regressed towards "oracle
rows", a fixed linear code of the frame tags each row covers (`oracle_rows`,
`forward_losses`). The LLM is first trained alone on oracle rows plus noise
(`pretrain_llm`), so it can already read rows when joint training starts.
The encoder and adaptor start from a hand-made position code and packing
attention (`positional_init`, `packing_init`) that training then refines.
The exported weights are an average over the second half of joint training
(`WeightAverage`), after which the adaptor and LLM get more steps alone on
the frozen encoder (`polish_llm`).

Determinism: `--minutes` is a *budget* converted into a fixed amount of data
and a fixed number of optimizer steps (calibrated on a 2-core machine), not a
wall-clock limit, so the machine's load does not change what is trained.
Threads are fixed, data order comes from the seed. espeak-ng keeps state
between utterances inside a process (its samples for an utterance depend
slightly on what the process synthesised before), so every speaker of the
training set and every held-out utterance is synthesised in a freshly forked
process (`fresh_process_map`) from a parent that never synthesises: the audio
is a function of the seed alone, whatever the number of workers or the timing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

ROOT = Path(__file__).resolve().parents[1]
for _extra in (ROOT / "app", ROOT / "tools"):
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

# --------------------------------------------------------------------------
# The recipe: vocabulary, voices, speeds. Changing any of these changes the model.

DIGITS = "zero one two three four five six seven eight nine".split()
WORDS = (
    "hello world yes no stop go left right up down open close start play next back call home "
    "today meeting please thank you red green blue time save file new"
).split()
VOCAB = DIGITS + WORDS

# espeak-ng's own English voices ("en" is en-gb; the mbrola ones need a separate synthesiser).
TRAIN_BASES = ["en", "en-us", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-029"]
# Never used at all (neither training nor the held-out set): unseen dialects are
# a harder test than "voices not used in training" asks for.
UNUSED_BASES = ["en-gb-x-gbcwmd", "en-us-nyc"]
# Voice variants (timbre, pitch range, formants). Left out: the whispering and
# croaking ones, and those that change the speaking rate (anika, pedro,
# antonio, robosoft*, Marco, AnxiousAndy), which would blur the held-out speeds.
TRAIN_VARIANTS = [
    "",
    "m1",
    "m2",
    "m3",
    "m5",
    "m6",
    "m7",
    "m8",
    "f1",
    "f2",
    "f4",
    "f5",
    "klatt",
    "klatt2",
    "klatt4",
    "klatt5",
    "klatt6",
    "Alex",
    "Andy",
    "Annie",
    "Denis",
    "Diogo",
    "Henrique",
    "Jacky",
    "Lee",
    "Mario",
    "Michael",
    "Nguyen",
    "RicishayMax",
    "Storm",
    "Tweaky",
    "adam",
    "announcer",
    "aunty",
    "belinda",
    "benjamin",
    "boris",
    "caleb",
    "david",
    "ed",
    "edward",
    "edward2",
    "grandma",
    "grandpa",
    "gustave",
    "iven",
    "iven2",
    "iven3",
    "iven4",
    "john",
    "kaukovalta",
    "linda",
    "marcelo",
    "max",
    "michel",
    "miguel",
    "norbert",
    "pablo",
    "paul",
    "quincy",
    "rob",
    "robert",
    "sandro",
    "shelby",
    "steph",
    "travis",
    "victor",
]
HELD_OUT_VARIANTS = ["m4", "f3", "klatt3", "Alicia", "Hugo", "Mike", "Gene", "steph2"]
# espeak -s (words per minute). The band between the two training ranges is held
# out; training's tempo perturbation (SPEED_PERTURB) never reaches into it.
TRAIN_SPEEDS = ((120, 150), (192, 230))
HELD_OUT_SPEEDS = (162, 178)
SPEED_PERTURB = (0.93, 1.07)  # half the training speakers are resampled by a factor in this range

SAMPLE_RATE = 16000
AUDIO_ROWS_PER_FRAME = 8  # the LLM sees ceil(T/8) adaptor rows for T LFR frames
LLM_FOLDER = "Qwen3-0.6B"  # the release's name for the LLM sub-folder


@dataclass(frozen=True)
class Dims:
    """Model sizes. Fun-ASR-Nano's structure, scaled down so the export is a few MB."""

    encoder_dim: int = 128
    encoder_heads: int = 4
    encoder_ffn: int = 512
    encoder_blocks: int = 4  # encoders0 + 3 encoders
    tp_blocks: int = 1
    # The FSMN memory spans the whole 60 s window, looking 1050 frames back and
    # 50 ahead (sanm_shfit 500). See `positional_init` for why.
    kernel_size: int = 1101
    sanm_shift: int = 500
    adaptor_ffn: int = 256
    adaptor_layers: int = 2
    adaptor_heads: int = 4
    ctc_layers: int = 1
    ctc_ffn: int = 256
    ctc_heads: int = 4
    llm_hidden: int = 128
    llm_layers: int = 3
    llm_heads: int = 4
    llm_kv_heads: int = 2
    llm_head_dim: int = 32
    llm_ffn: int = 384
    bpe_vocab: int = 760


@dataclass(frozen=True)
class Recipe:
    """How much data and how many steps a `--minutes` budget buys (fixed, not timed)."""

    speakers: int
    utterances_per_speaker: int
    steps: int
    warmup: int
    short_only_steps: int  # curriculum: short utterances only before this step
    frames_per_batch: int = 1200  # LFR frames (60 ms each) per optimizer step
    max_batch: int = 40
    lr: float = 2e-3
    ctc_weight: float = 1.0
    frame_weight: float = 0.5
    pack_weight: float = 0.5
    row_weight: float = 1.0  # adaptor rows regressed towards the oracle rows (`oracle_rows`)
    llm_pretrain_steps: int = 1500  # the LLM alone on oracle rows, before joint training
    polish_steps: int = 0  # adaptor + LLM alone on the frozen encoder, after joint training (`polish_llm`)
    polish_lr: float = 1e-3
    ema_decay: float = 0.998  # exported weights: an average over the last ~500 steps (`WeightAverage`)
    ema_start: float = 0.5  # fraction of the joint steps after which averaging starts
    label_smoothing: float = 0.1
    max_long_s: float = 58.0
    long_fraction: float = 0.4  # share of steps on long examples after the short-only phase

    @staticmethod
    def for_minutes(minutes: float) -> Recipe:
        # Sized on the 2-core build machine (busy with other jobs): ~0.5 s per
        # optimizer step and ~40 synthesised utterances per second.
        m = max(minutes, 0.05)
        steps = max(8, int(m * 84))
        # Many voices: each utterance is seen ~5 times. With 23 speakers a
        # minute (3.2 h, ~12 passes) training CTC loss fell to 0.12 while dev
        # (held-out voices) CTC WER stayed at 12.7% and pooled held-out WER at
        # 24.7%: the model learnt the training voices more than the words.
        speakers = max(4, min(1600, int(m * 52)))
        return Recipe(
            speakers=speakers,
            utterances_per_speaker=11 if m >= 5 else 6,
            steps=0,
            warmup=0,
            short_only_steps=0,
            polish_steps=int(m * 30),
        ).with_steps(steps)

    def with_steps(self, steps: int) -> Recipe:
        """This recipe at `steps` joint steps; the schedule parts that follow the step count follow it."""
        return replace(
            self,
            steps=steps,
            warmup=max(2, steps // 15),
            short_only_steps=int(steps * 0.3),
            llm_pretrain_steps=min(1500, steps),
            polish_steps=min(self.polish_steps, steps),
        )


# --------------------------------------------------------------------------
# Speech synthesis and augmentation.


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


# Frame tags for the alignment-guided losses: B-word, I-word (inside), O (no speech).
N_TAGS = 2 * len(VOCAB) + 1
TAG_O = N_TAGS - 1
LFR_HOP = 960  # samples per LFR frame (6 x 10 ms)
LFR_CENTRE = 200  # LFR frame i is centred on fbank frame 6i: samples 960i .. 960i + 400


def speech_span(clip: np.ndarray) -> tuple[int, int]:
    """First and last sample of a clean espeak clip that is not silence (espeak pads with exact zeros)."""
    loud = np.flatnonzero(np.abs(clip) > 0.02 * (np.abs(clip).max() + 1e-9))
    return (int(loud[0]), int(loud[-1]) + 1) if len(loud) else (0, len(clip))


def frame_tags(spans: Sequence[tuple[str, int, int]], n_frames: int) -> np.ndarray:
    """BIO tag of every LFR frame: the word whose span holds the frame's centre."""
    tags = np.full(n_frames, TAG_O, np.int16)
    centres = np.arange(n_frames) * LFR_HOP + LFR_CENTRE
    for word, a, b in spans:
        inside = np.flatnonzero((centres >= a) & (centres < b))
        if len(inside) == 0:  # a very short word still owns its nearest frame
            inside = np.array([min(n_frames - 1, max(0, (a + b) // 2 // LFR_HOP))])
        k = VOCAB.index(word)
        tags[inside] = len(VOCAB) + k
        tags[inside[0]] = k
    return tags


@dataclass
class Example:
    """One training item: LFR features (float16 to halve memory), transcript, frame tags."""

    feats: np.ndarray
    text: str
    tags: np.ndarray | None = None
    speaker: int = -1

    @property
    def frames(self) -> int:
        return int(self.feats.shape[0])


@dataclass(frozen=True)
class SpeakerJob:
    index: int
    seed: int
    utterances: int


def speaker_examples(job: SpeakerJob) -> list[Example]:
    """The short utterances of one training speaker (long ones are assembled from them in training)."""
    import soxr

    from tingji.engine.frontend import features

    rng = np.random.default_rng([job.seed, job.index])
    speaker = random_speaker(rng, held_out=False)
    # Tempo perturbation: played faster or slower, which also moves pitch and
    # formants, so it adds voices as well as rates.
    factor = rng.uniform(*SPEED_PERTURB) if rng.random() < 0.5 else 1.0
    out = []
    for _ in range(job.utterances):
        text = random_text(rng)
        clip, spans = espeak_words(text, speaker)
        if factor != 1.0:
            clip = soxr.resample(clip, SAMPLE_RATE * factor, SAMPLE_RATE).astype(np.float32)
            spans = [(w, int(a / factor), int(b / factor)) for w, a, b in spans]
        noisy, lead = augment(clip, rng)
        feats = features(noisy).astype(np.float16)
        tags = frame_tags([(w, a + lead, b + lead) for w, a, b in spans], len(feats))
        out.append(Example(feats, text, tags, job.index))
    return out


def long_example(
    short: Sequence[Example], by_speaker: Sequence[Sequence[int]], frames: int, rng: np.random.Generator
) -> Example:
    """Up to `frames` LFR frames of utterances back to back, as in a long recording.

    Each utterance carries its own 0.05-0.6 s of silence on both sides, so
    joining their features gives the pauses of continuous speech. (Joining
    features instead of audio differs from the real thing only in the one
    LFR frame at each joint, and costs nothing.) One speaker's utterances come
    first; a speaker has only ~20 s of speech, so further speakers follow, as
    in a conversation, until the length is reached. Without them no example
    was longer than ~26 s, so training never showed the decoder a whole 60 s
    window, the engine's window size.
    """
    parts: list[Example] = []
    total = 0
    while True:
        for i in rng.permutation(by_speaker[int(rng.integers(len(by_speaker)))]):
            e = short[int(i)]
            if parts and total + e.frames > frames:
                return Example(
                    np.concatenate([e.feats for e in parts]),
                    " ".join(e.text for e in parts),
                    np.concatenate([e.tags for e in parts]),
                    parts[0].speaker,
                )
            parts.append(e)
            total += e.frames


@dataclass(frozen=True)
class HeldOutUtterance:
    text: str
    speaker: Speaker
    samples: np.ndarray = field(repr=False, compare=False)


def fresh_process_map(fn, jobs: Sequence, workers: int) -> list:
    """fn(job) for every job, each in a newly forked process, results in job order.

    espeak-ng keeps state between utterances inside a process (measured: the
    same text and voice synthesised again after another voice differs by up
    to 0.85 full scale), so synthesis that must be repeatable starts every job
    from the same state: a fresh fork of a parent that never synthesises.
    A fork costs ~10 ms here, against ~0.2 s of synthesis and features per job.
    """
    if os.getpid() in _ESPEAK:
        raise RuntimeError("espeak-ng was used in this process; forks would inherit its state")
    with get_context("fork").Pool(max(1, workers), maxtasksperchild=1) as pool:
        return list(pool.imap(fn, jobs, chunksize=1))


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


def synthesise(recipe: Recipe, seed: int, workers: int) -> list[Example]:
    """The training utterances: identical for a given seed whatever the number of workers or the timing."""
    jobs = [SpeakerJob(i, seed, recipe.utterances_per_speaker) for i in range(recipe.speakers)]
    return [e for examples in fresh_process_map(speaker_examples, jobs, workers) for e in examples]


# --------------------------------------------------------------------------
# Text side: tokenizer, CTC vocabulary, word error rate.


def build_tokenizer(vocab_size: int):
    """make_tiny_checkpoint's byte-level Qwen-style BPE, trained with the demo vocabulary added.

    Every vocabulary word must be one token, both at the start ("hello") and
    after a space (" hello"): one token per word keeps targets short and lets
    the CTC head emit whole words at its 60 ms frame rate.
    """
    import make_tiny_checkpoint as mtc
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    rotations = [" ".join(VOCAB[i:] + VOCAB[:i]) for i in range(len(VOCAB))]
    demo_lines = rotations * 20
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(mtc.QWEN_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator(mtc.training_corpus() + demo_lines, trainer=trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in mtc.SPECIAL_TOKENS])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in mtc.PLAIN_ADDED_TOKENS])
    for word in VOCAB:
        for form in (word, " " + word):
            if len(tok.encode(form).ids) != 1:
                raise RuntimeError(f"tokenizer splits {form!r}; raise Dims.bpe_vocab")
    return tok


def ctc_word_ids(tiktoken_text: str) -> dict[str, int]:
    """CTC output id of " word" for each vocabulary word, read from multilingual.tiktoken."""
    import base64

    rank = {base64.b64decode(tok): int(r) for tok, r in (line.split() for line in tiktoken_text.splitlines())}
    return {w: rank[(" " + w).encode()] for w in VOCAB}


def normalise_words(text: str) -> list[str]:
    """Lower-case words without punctuation; numerals spelt out (an ITN-style output still scores)."""
    import re

    text = re.sub(r"\d", lambda m: f" {DIGITS[int(m.group())]} ", text.lower())
    return re.sub(r"[^\w\s']", " ", text).split()


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


def wer(refs: Sequence[str], hyps: Sequence[str]) -> float:
    errors = sum(edit_distance(normalise_words(r), normalise_words(h)) for r, h in zip(refs, hyps))
    return errors / max(1, sum(len(normalise_words(r)) for r in refs))


# --------------------------------------------------------------------------
# The model: official parameter names, so the state dict *is* model.pt.


SCAFFOLDING = ("frame_head.", "pack_head.")


def build_model(dims: Dims, ctc_vocab: int, llm_config: dict):
    """Encoder, adaptor, CTC head and Qwen3 under the release's top-level names.

    `frame_head` and `pack_head` are training scaffolding (see
    `forward_losses`); they are not part of Fun-ASR-Nano and are dropped from
    the saved checkpoint.
    """
    from torch import nn
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from tingji.export.fun_asr_nano.modules import Adaptor
    from tingji.export.layers import CtcProjection
    from tingji.export.sanm import SanmEncoder

    audio = audio_dims(dims, ctc_vocab)

    class DemoNano(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.audio_encoder = SanmEncoder(audio)
            self.audio_adaptor = Adaptor(
                audio.encoder_dim, audio.adaptor_ffn, audio.llm_dim, audio.adaptor_layers, audio.adaptor_heads
            )
            self.ctc_decoder = Adaptor(
                audio.encoder_dim, audio.ctc_ffn, audio.encoder_dim, audio.ctc_layers, audio.ctc_heads
            )
            self.ctc = CtcProjection(audio.encoder_dim, audio.ctc_vocab)
            cfg = {
                k: v for k, v in llm_config.items() if k not in ("architectures", "transformers_version", "torch_dtype")
            }
            self.llm = Qwen3ForCausalLM(Qwen3Config(**cfg))
            self.frame_head = nn.Linear(audio.encoder_dim, N_TAGS)
            self.pack_head = nn.Linear(audio.llm_dim, AUDIO_ROWS_PER_FRAME * N_TAGS)

    return DemoNano()


def fft_fsmn_module(conv, left: int):
    """A drop-in for an FSMN `nn.Conv1d` (depthwise, no bias) that convolves by FFT.

    Same parameter (`weight`, so the state dict is unchanged) and the same
    result as `conv(F.pad(x, (left, right)))`, but for a 1101-tap kernel the
    direct convolution costs more than the rest of the encoder; by FFT it is
    nearly free. Only training uses it; the export uses the plain Conv1d.
    """
    import torch
    from torch import nn

    class FftConv(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = conv.weight  # [C, 1, K]
            self.left = left

        def forward(self, padded: torch.Tensor) -> torch.Tensor:
            k = self.weight.shape[-1]
            t = padded.shape[-1] - (k - 1)
            x = padded[..., self.left : self.left + t]  # the unpadded signal (padding is zeros)
            n = t + k - 1
            n += (-n) % 64
            kernel = torch.flip(self.weight[:, 0, :], dims=[-1])
            full = torch.fft.irfft(torch.fft.rfft(x, n) * torch.fft.rfft(kernel, n), n)
            # full[m] = sum_j x[j] w[k-1-(m-j)]; output t' needs m = t' + k - 1 - left
            start = k - 1 - self.left
            return full[..., start : start + t]

    return FftConv()


def use_fft_fsmn(model) -> None:
    """Swap every encoder FSMN convolution for its FFT twin (training speed only)."""
    for stack in (model.audio_encoder.encoders0, model.audio_encoder.encoders, model.audio_encoder.tp_encoders):
        for layer in stack:
            attn = layer.self_attn
            attn.fsmn_block = fft_fsmn_module(attn.fsmn_block, attn.pad[0])


# Sinusoid frequencies (radians per 60 ms frame) of the position code. Frames
# are found by KEY_FREQS (periods of 12.6 to 1600 frames); row i of the adaptor
# looks for frame 8i with the same sinusoids at 8x the frequency, so the code
# holds both sets (aliasing above pi is harmless on integer frame numbers).
KEY_FREQS = [0.5 / 2**m for m in range(8)]
POSITION_FREQS = sorted({*KEY_FREQS, *(AUDIO_ROWS_PER_FRAME * w for w in KEY_FREQS)}, reverse=True)


# The code is written large: every LayerNorm on the way subtracts the frame's
# mean over all channels, and at this size the content's share of that mean
# stays small next to the code.
POSITION_AMPLITUDE = 10.0


def position_channel(freq: float, fn: str) -> int:
    """Which encoder/adaptor channel holds sin or cos of `freq` (see `positional_init`)."""
    return 2 * POSITION_FREQS.index(freq) + (0 if fn == "sin" else 1)


def positional_init(model) -> None:
    """Start the first encoder layer with an exact position code in a few channels.

    The reference layout gives the LLM only the first ceil(T/8) adaptor rows,
    so the adaptor must move frames 8i..8i+7 into row i: it needs to know
    where each frame is. SenseVoice adds sinusoids to the input, but next to
    sqrt(d)-scaled log-mel features they are a ~3% ripple: a linear probe on
    our training data recovers nothing of them (R^2 ~ 0), and a 5-layer model
    trained for minutes does not learn to either. A window-long FSMN kernel
    gives the position exactly instead: for a channel whose value v is 1 on
    every frame, the FSMN output at frame t is the sum of the taps reaching
    back to the first frame, so taps u_d = g(d) - g(d-1) make it g(t). Here
    g runs over sin/cos of POSITION_FREQS, in the first 2*len(freqs) channels
    (value projection: weight 0, bias 1; output projection: 0, so only the
    FSMN memory writes them; the later layers' residuals carry them on).
    Training is free to change all of it.
    """
    import torch

    enc = model.audio_encoder
    attn = enc.encoders0[0].self_attn
    dim = attn.heads * attn.d_k
    k = attn.fsmn_block.weight.shape[-1]
    left = attn.pad[0]
    d = np.arange(-1, left + 1)
    with torch.no_grad():
        # All channels: local taps only (like the release's 11), the long reach starts at zero.
        for stack in (enc.encoders0, enc.encoders, enc.tp_encoders):
            for layer in stack:
                w = layer.self_attn.fsmn_block.weight
                local = torch.zeros_like(w)
                centre = layer.self_attn.pad[0]
                local[:, :, centre - 5 : centre + 6] = w[:, :, centre - 5 : centre + 6] * (k / 11) ** 0.5
                w.copy_(local)
        channel = 0
        for freq in POSITION_FREQS:
            for fn in (np.sin, np.cos):
                g = fn(freq * d.astype(np.float64))
                g[0] = 0.0  # g(-1) = 0: nothing before the first frame
                taps = np.zeros(k)
                taps[left - np.arange(0, left + 1)] = POSITION_AMPLITUDE * np.diff(g)  # tap left - d holds u_d
                attn.fsmn_block.weight[channel, 0] = torch.from_numpy(taps).float()
                attn.linear_q_k_v.weight[2 * dim + channel] = 0.0
                attn.linear_q_k_v.bias[2 * dim + channel] = 1.0
                attn.linear_out.weight[channel] = 0.0
                attn.linear_out.bias[channel] = -1.0  # cancels the FSMN's "+ v" term
                channel += 1
        # Nothing else writes those channels at first, so they reach the output clean.
        n = channel
        enc.encoders0[0].feed_forward.w_2.weight[:n] = 0.0
        enc.encoders0[0].feed_forward.w_2.bias[:n] = 0.0
        for stack in (enc.encoders, enc.tp_encoders):
            for layer in stack:
                for linear in (layer.self_attn.linear_out, layer.feed_forward.w_2):
                    linear.weight[:n] = 0.0
                    linear.bias[:n] = 0.0


def packing_init(model, sharpness: float = 8.0) -> None:
    """Start the adaptor's first attention layer gathering frames 8i..8i+7 into row i.

    The adaptor's Linear-ReLU-Linear passes the position code through (as
    +x and -x halves around the ReLU) and shrinks the rest, so the rows'
    residual carries little of their own frame. In the first transformer
    layer, head h of row i attends by position alone to frames around
    8i + 2h + 0.5: query sin/cos(8w i + w c), key sin/cos(w j), dot product
    sum_w cos(w (8i + c - j)), largest at j = 8i + c. The four heads together
    give row i the content of its eight frames, in order. That is the packing
    the reference's layout asks for; training then refines it (the packing
    loss keeps asking for it) and the LLM learns to read it.
    """
    import torch

    ada = model.audio_adaptor
    n = 2 * len(POSITION_FREQS)
    with torch.no_grad():
        ada.linear1.weight[: 2 * n] = 0.0
        ada.linear1.bias[: 2 * n] = 0.0
        ada.linear2.weight[:, : 2 * n] = 0.0
        ada.linear2.weight[n:] *= 0.1
        ada.linear2.bias[n:] *= 0.1
        ada.linear2.weight[:n] = 0.0
        ada.linear2.bias[:n] = 0.0
        for c in range(n):
            ada.linear1.weight[c, c] = 1.0
            ada.linear1.weight[n + c, c] = -1.0
            ada.linear2.weight[c, c] = 1.0
            ada.linear2.weight[c, n + c] = -1.0
        attn = ada.blocks[0].self_attn
        d_k = attn.d_k
        attn.linear_q.weight.zero_()
        attn.linear_q.bias.zero_()
        attn.linear_k.weight.zero_()
        attn.linear_k.bias.zero_()
        # LayerNorm makes the code's amplitude ~1/std of the row; measured std ~0.5 at init.
        scale = sharpness * d_k**0.5 / len(KEY_FREQS) * 0.25
        for h in range(attn.heads):
            centre = 2 * h + 0.5
            for p, w in enumerate(KEY_FREQS):
                qc, qs = h * d_k + 2 * p, h * d_k + 2 * p + 1
                w8 = AUDIO_ROWS_PER_FRAME * w
                cos_c, sin_c = math.cos(w * centre), math.sin(w * centre)
                # q = rotation of (cos 8wi, sin 8wi) by w*centre
                attn.linear_q.weight[qc, position_channel(w8, "cos")] = scale * cos_c
                attn.linear_q.weight[qc, position_channel(w8, "sin")] = -scale * sin_c
                attn.linear_q.weight[qs, position_channel(w8, "sin")] = scale * cos_c
                attn.linear_q.weight[qs, position_channel(w8, "cos")] = scale * sin_c
                attn.linear_k.weight[qc, position_channel(w, "cos")] = 1.0
                attn.linear_k.weight[qs, position_channel(w, "sin")] = 1.0


def audio_dims(dims: Dims, ctc_vocab: int):
    from tingji.export.fun_asr_nano.modules import AudioDims

    return AudioDims(
        encoder_dim=dims.encoder_dim,
        encoder_heads=dims.encoder_heads,
        encoder_ffn=dims.encoder_ffn,
        encoder_blocks=dims.encoder_blocks,
        tp_blocks=dims.tp_blocks,
        kernel_size=dims.kernel_size,
        sanm_shift=dims.sanm_shift,
        llm_dim=dims.llm_hidden,
        adaptor_ffn=dims.adaptor_ffn,
        adaptor_layers=dims.adaptor_layers,
        adaptor_heads=dims.adaptor_heads,
        ctc_layers=dims.ctc_layers,
        ctc_ffn=dims.ctc_ffn,
        ctc_heads=dims.ctc_heads,
        ctc_vocab=ctc_vocab,
    )


def llm_config_for(tok, dims: Dims) -> dict:
    import make_tiny_checkpoint as mtc

    cfg = mtc.llm_config(tok, full_size=False)
    cfg.update(
        hidden_size=dims.llm_hidden,
        intermediate_size=dims.llm_ffn,
        num_hidden_layers=dims.llm_layers,
        num_attention_heads=dims.llm_heads,
        num_key_value_heads=dims.llm_kv_heads,
        head_dim=dims.llm_head_dim,
        max_window_layers=dims.llm_layers,
        torch_dtype="float32",
    )
    return cfg


# --------------------------------------------------------------------------
# Batches.


@dataclass
class Batch:
    feats: torch.Tensor  # [B, T, 560]
    mask: torch.Tensor  # [B, T]
    frames: list[int]
    texts: list[str]
    tags: torch.Tensor  # [B, ceil(T/8)*8] frame tags, TAG_O on padding


def make_batches(examples: Sequence[Example], recipe: Recipe, rng: np.random.Generator) -> list[list[int]]:
    """One epoch of index batches: shuffled, then length-sorted in chunks so padding stays small."""
    order = rng.permutation(len(examples)).tolist()
    batches: list[list[int]] = []
    chunk = 400
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: examples[i].frames)
        current: list[int] = []
        for i in part:
            longest = max([examples[j].frames for j in current] + [examples[i].frames])
            if current and (longest * (len(current) + 1) > recipe.frames_per_batch or len(current) >= recipe.max_batch):
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
    rng.shuffle(batches)
    return batches


def batch_stream(short: list[Example], recipe: Recipe, seed: int) -> Iterator[tuple[str, list[Example]]]:
    """The step-by-step schedule: short utterances first, then a share of long ones (up to ~60 s)."""
    rng = np.random.default_rng([seed, 7])
    by_speaker: dict[int, list[int]] = {}
    for i, e in enumerate(short):
        by_speaker.setdefault(e.speaker, []).append(i)
    speakers = [by_speaker[k] for k in sorted(by_speaker)]
    queue: list[list[int]] = []
    max_frames = int(recipe.max_long_s / 0.06)
    step = 0
    while True:
        if step >= recipe.short_only_steps and rng.random() < recipe.long_fraction:
            # Length uniform in 5 s .. max_long_s; as many of that length as the frame budget holds.
            length = int(rng.integers(int(5 / 0.06), max_frames + 1))
            count = max(1, min(recipe.max_batch, recipe.frames_per_batch // length))
            yield "long", [long_example(short, speakers, length, rng) for _ in range(count)]
        else:
            if not queue:
                queue.extend(make_batches(short, recipe, rng))
            yield "short", [short[i] for i in queue.pop()]
        step += 1


def augment_features(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Cheap voice and channel variety on LFR features, fresh at every step.

    Vocal tract length: stretching the mel axis by a few percent moves all
    formants together, as a longer or shorter vocal tract does (VTLP). Channel:
    a random tilt across the band, an overall level, sometimes a band of mel
    bins dropped. Held-out voices differ from training ones in exactly these
    ways, and a synthesiser's dozens of voices cover them only sparsely.
    """
    n_mels = 80
    stacked = x.reshape(len(x), -1, n_mels)  # [T, 7, 80]
    if rng.random() < 0.8:
        alpha = rng.uniform(0.88, 1.12)
        source = np.clip(np.arange(n_mels) * alpha, 0, n_mels - 1)
        lo = np.floor(source).astype(int)
        hi = np.minimum(lo + 1, n_mels - 1)
        frac = (source - lo).astype(np.float32)
        stacked = stacked[..., lo] * (1 - frac) + stacked[..., hi] * frac
    if rng.random() < 0.5:
        stacked = stacked + rng.uniform(-1.5, 1.5) * np.linspace(-0.5, 0.5, n_mels, dtype=np.float32)
    stacked = stacked + rng.normal(0.0, 0.5)
    if rng.random() < 0.5:
        lo = int(rng.integers(0, 70))
        stacked[..., lo : lo + int(rng.integers(2, 10))] = stacked.min()
    return stacked.reshape(len(x), -1).astype(np.float32)


def collate(items: Sequence[Example], rng: np.random.Generator, augment_feats: bool) -> Batch:
    """Pad to a batch (with `augment_features` in training)."""
    import torch

    t_max = max(e.frames for e in items)
    feats = np.zeros((len(items), t_max, items[0].feats.shape[1]), np.float32)
    mask = np.zeros((len(items), t_max), np.float32)
    tags = np.full((len(items), -(-t_max // AUDIO_ROWS_PER_FRAME) * AUDIO_ROWS_PER_FRAME), TAG_O, np.int64)
    for b, e in enumerate(items):
        x = e.feats.astype(np.float32)
        feats[b, : e.frames] = augment_features(x, rng) if augment_feats else x
        mask[b, : e.frames] = 1.0
        if e.tags is not None:
            tags[b, : e.frames] = e.tags
    return Batch(
        torch.from_numpy(feats),
        torch.from_numpy(mask),
        [e.frames for e in items],
        [e.text for e in items],
        torch.from_numpy(tags),
    )


def num_audio_tokens(frames: int) -> int:
    from tingji.engine.families.fun_asr_nano.encoder import num_adaptor_rows as n

    return n(frames)


# --------------------------------------------------------------------------
# Training.


@dataclass
class TextSide:
    """Token ids the losses need, computed once."""

    before: list[int]
    after: list[int]
    im_end: int
    ctc_ids: dict[str, int]
    blank: int
    pack_ids: list[int]  # the CTC ids training computes: the words, then blank

    def target(self, tok, text: str) -> list[int]:
        # As the reference's data_load_speech: the target text then <|im_end|>, tokenised on its own.
        return tok.encode(text + "<|im_end|>").ids

    def ctc_target(self, text: str) -> list[int]:
        """Targets as positions in `pack_ids` (the CTC ids training computes logits for)."""
        return [VOCAB.index(w) for w in text.split()]


UNUSED_LOGIT = -30.0


def pin_unused_ctc(model, side: TextSide) -> None:
    """CTC outputs that no target ever uses: zero weights and a bias of -30.

    That is where training with the full softmax would push them anyway (they
    are never a target), and fixing it up front lets training compute logits
    for the ~40 ids that occur instead of all ~2,700 rows of the release's
    CTC vocabulary. The exported head keeps its full, official shape.
    """
    import torch

    unused = torch.ones(model.ctc.ctc_lo.out_features, dtype=torch.bool)
    unused[side.pack_ids] = False
    with torch.no_grad():
        model.ctc.ctc_lo.weight[unused] = 0.0
        model.ctc.ctc_lo.bias[unused] = UNUSED_LOGIT


def ctc_logits(model, enc, bias, side: TextSide):
    """CTC logits restricted to `side.pack_ids` (vocabulary words, then blank)."""
    import torch.nn.functional as F

    lo = model.ctc.ctc_lo
    return F.linear(model.ctc_decoder(enc, bias), lo.weight[side.pack_ids], lo.bias[side.pack_ids])


ORACLE_SCALE = 1.0


def oracle_table(dims: Dims, seed: int) -> torch.Tensor:
    """[8, N_TAGS, llm_hidden] fixed random codes: one per (frame within a packed row, frame tag)."""
    import torch

    g = torch.Generator().manual_seed(seed * 1000 + 17)
    return torch.randn(AUDIO_ROWS_PER_FRAME, N_TAGS, dims.llm_hidden, generator=g) * ORACLE_SCALE


def oracle_rows(tags: torch.Tensor, table: torch.Tensor, n_rows: int) -> torch.Tensor:
    """What the LLM should read in each packed row: a linear code of its eight frames' word tags.

    Row i covers LFR frames 8i..8i+7; frame 8i+j with tag g adds table[j, g].
    That is a linear image of what the packing loss asks the row to hold, so
    the adaptor can write it (attention by position picks the frames, the
    value projection maps a frame's word to its code); the LLM is pretrained
    on these rows alone (`pretrain_llm`), so when joint training starts it can
    already read rows, and the adaptor is asked to produce them (`forward_losses`).
    """
    b = tags.shape[0]
    t = tags[:, : n_rows * AUDIO_ROWS_PER_FRAME].reshape(b, n_rows, AUDIO_ROWS_PER_FRAME)
    out = 0
    for j in range(AUDIO_ROWS_PER_FRAME):
        out = out + table[j][t[:, :, j]]
    return out / AUDIO_ROWS_PER_FRAME**0.5


def llm_batch(rows: Sequence[torch.Tensor], texts: Sequence[str], embed, tok, side: TextSide):
    """[audio rows][after][target] per item, right-padded, and the labels (target only)."""
    import torch

    seqs, labels = [], []
    after = embed(torch.tensor(side.after))
    for r, text in zip(rows, texts):
        target = side.target(tok, text)
        seqs.append(torch.cat([r, after, embed(torch.tensor(target))]))
        labels.append([-100] * (len(r) + len(side.after)) + target)
    length = max(len(lab) for lab in labels)
    inputs = torch.zeros(len(seqs), length, seqs[0].shape[-1])
    attention = torch.zeros(len(seqs), length, dtype=torch.long)
    label_ids = torch.full((len(seqs), length), -100, dtype=torch.long)
    for b, (s, lab) in enumerate(zip(seqs, labels)):
        inputs[b, : len(lab)] = s
        attention[b, : len(lab)] = 1
        label_ids[b, : len(lab)] = torch.tensor(lab)
    return inputs, attention, label_ids


def llm_loss(llm, embed, side: TextSide, inputs, attention, label_ids, smoothing: float):
    import torch
    import torch.nn.functional as F

    out = llm_logits(llm, embed(torch.tensor(side.before)), inputs, attention)
    shifted = label_ids[:, 1:]
    loss = F.cross_entropy(
        out[:, :-1].reshape(-1, out.shape[-1]), shifted.reshape(-1), ignore_index=-100, label_smoothing=smoothing
    )
    with torch.no_grad():
        sel = shifted != -100
        acc = (out[:, :-1].argmax(-1)[sel] == shifted[sel]).float().mean()
    return loss, acc


def forward_losses(
    model, batch: Batch, tok, side: TextSide, recipe: Recipe, table: torch.Tensor
) -> dict[str, torch.Tensor]:
    """The losses of one batch: CTC and LLM as Fun-ASR-Nano trains, plus two scaffolding losses.

    LLM input per item, as the reference's data_load_speech lays it out:
    prompt tokens before the audio, the first ceil(T/8) adaptor rows, the
    tokens after the audio, then the target; loss on the target only.
    """
    import torch
    import torch.nn.functional as F

    keep = batch.mask.unsqueeze(-1)
    bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
    enc = model.audio_encoder(batch.feats * keep, keep, bias) * keep
    rows = model.audio_adaptor(enc, bias) * keep

    # CTC on the encoder output (word-level targets, one token per word), over
    # the ids that can occur; the others are pinned far below (see `pin_unused_ctc`).
    logits = ctc_logits(model, enc, bias, side)
    log_probs = torch.log_softmax(logits, dim=-1)
    targets = [side.ctc_target(t) for t in batch.texts]
    ctc = F.ctc_loss(
        log_probs.transpose(0, 1),
        torch.tensor([i for t in targets for i in t]),
        torch.tensor(batch.frames),
        torch.tensor([len(t) for t in targets]),
        blank=len(side.pack_ids) - 1,
        reduction="mean",
        zero_infinity=True,
    )

    # Scaffolding 1: every encoder frame says which word it is in (approximate
    # alignment from synthesis). A dense signal that gets the encoder past the
    # long all-blank phase CTC alone spends hundreds of steps in.
    valid = batch.mask.bool()
    frame = F.cross_entropy(model.frame_head(enc)[valid], batch.tags[:, : enc.shape[1]][valid])

    # Scaffolding 2 (packing): row i of the first ceil(T/8) adaptor rows says
    # what frames 8i..8i+7 hold. The reference's layout feeds the LLM only
    # those rows, so the adaptor's attention must gather the whole utterance
    # into them; this teaches it directly, in time order.
    n_audio = [num_audio_tokens(t) for t in batch.frames]
    n_rows = max(n_audio)
    packed = model.pack_head(rows[:, :n_rows]).unflatten(-1, (AUDIO_ROWS_PER_FRAME, N_TAGS))
    goal = batch.tags[:, : n_rows * AUDIO_ROWS_PER_FRAME].unflatten(1, (n_rows, AUDIO_ROWS_PER_FRAME))
    row_valid = torch.zeros(len(n_audio), n_rows, dtype=torch.bool)
    for b, n in enumerate(n_audio):
        row_valid[b, :n] = True
    pack = F.cross_entropy(packed[row_valid].reshape(-1, N_TAGS), goal[row_valid].reshape(-1))

    # The adaptor rows are asked for the oracle rows (what the pretrained LLM reads).
    target_rows = oracle_rows(batch.tags, table, n_rows)
    row = F.mse_loss(rows[:, :n_rows][row_valid], target_rows[row_valid])

    # LLM: [before][audio rows][after][target], the adaptor's rows.
    embed = model.llm.get_input_embeddings()
    llm_rows = rows[:, :n_rows]
    inputs, attention, label_ids = llm_batch(
        [llm_rows[b, :n] for b, n in enumerate(n_audio)], batch.texts, embed, tok, side
    )
    llm, acc = llm_loss(model.llm, embed, side, inputs, attention, label_ids, recipe.label_smoothing)
    return {"ctc": ctc, "llm": llm, "frame": frame, "pack": pack, "row": row, "acc": acc}


def llm_logits(llm, before: torch.Tensor, inputs: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
    """Logits over `inputs` for the sequences [before][inputs], the shared prompt computed once.

    The 25 prompt tokens before the audio are the same in every sequence and,
    the attention being causal, so are their keys and values: computing them
    once and repeating the cache over the batch gives the same logits (and
    gradients) as the full sequences at well under half the LLM's cost.
    """
    import torch

    prefix = llm.model(inputs_embeds=before[None], use_cache=True).past_key_values
    prefix.batch_repeat_interleave(inputs.shape[0])
    mask = torch.cat([torch.ones(inputs.shape[0], before.shape[0], dtype=attention.dtype), attention], dim=1)
    hidden = llm.model(inputs_embeds=inputs, attention_mask=mask, past_key_values=prefix, use_cache=True)
    return llm.lm_head(hidden.last_hidden_state)


def lr_at(step: int, recipe: Recipe) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < recipe.warmup:
        return recipe.lr * (step + 1) / recipe.warmup
    progress = (step - recipe.warmup) / max(1, recipe.steps - recipe.warmup)
    return recipe.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def greedy_ctc(model, batch: Batch, side: TextSide) -> list[str]:
    """CTC best path as words (the quick accuracy probe printed during training)."""
    import torch

    keep = batch.mask.unsqueeze(-1)
    bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
    with torch.no_grad():
        enc = model.audio_encoder(batch.feats * keep, keep, bias) * keep
        best = ctc_logits(model, enc, bias, side).argmax(-1)
    out = []
    for b, t in enumerate(batch.frames):
        words, prev = [], -1
        for i in best[b, :t].tolist():
            if i != prev and i < len(VOCAB):
                words.append(VOCAB[i])
            prev = i
        out.append(" ".join(words))
    return out


def llm_step(
    model, embed, side: TextSide, batch: tuple, recipe: Recipe, opt, params, lr: float, running: dict[str, float]
) -> None:
    """One optimizer step on the LLM loss alone (LLM pretraining and polish); updates `running` averages."""
    import torch

    inputs, attention, label_ids = batch
    for group in opt.param_groups:
        group["lr"] = lr
    loss, acc = llm_loss(model.llm, embed, side, inputs, attention, label_ids, recipe.label_smoothing)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    for k, v in (("llm", loss), ("acc", acc)):
        running[k] = running[k] * 0.9 + float(v) * 0.1 if k in running else float(v)


def pretrain_llm(
    model, tok, side: TextSide, short: list[Example], recipe: Recipe, table: torch.Tensor, seed: int, log
) -> None:
    """The LLM alone, on oracle rows plus noise: it learns to read rows before the adaptor can write them.

    Cheap (no encoder): a few hundred steps of a 3-layer, 128-wide decoder on
    the training set's own texts and word timings, short and long examples.
    """
    import torch

    if recipe.llm_pretrain_steps <= 0:
        return
    params = [p for p in model.llm.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=recipe.lr, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    rng = np.random.default_rng([seed, 13])
    schedule = batch_stream(short, replace(recipe, short_only_steps=0), seed + 1)
    embed = model.llm.get_input_embeddings()
    model.llm.train()
    running: dict[str, float] = {}
    started = time.perf_counter()
    steps = recipe.llm_pretrain_steps
    for step in range(steps):
        _, items = next(schedule)
        frames = max(e.frames for e in items)
        n_audio = [num_audio_tokens(e.frames) for e in items]
        n_rows = max(n_audio)
        tags = torch.full((len(items), n_rows * AUDIO_ROWS_PER_FRAME), TAG_O, dtype=torch.long)
        for b, e in enumerate(items):
            tags[b, : e.frames] = torch.from_numpy(e.tags.astype(np.int64))
        rows = oracle_rows(tags, table, n_rows)
        noise_level = rng.uniform(0.1, 0.8) * ORACLE_SCALE
        rows = rows + torch.from_numpy(rng.standard_normal(rows.shape).astype(np.float32)) * noise_level
        inputs, attention, label_ids = llm_batch(
            [rows[b, :n] for b, n in enumerate(n_audio)], [e.text for e in items], embed, tok, side
        )
        warm = max(2, steps // 10)
        lr = recipe.lr * min(1.0, (step + 1) / warm)
        llm_step(model, embed, side, (inputs, attention, label_ids), recipe, opt, params, lr, running)
        if (step + 1) % max(1, steps // 10) == 0 or step == steps - 1:
            log(
                f"LLM pretraining {step + 1}/{steps} {time.perf_counter() - started:5.0f}s  llm {running['llm']:.3f}"
                f"  acc {running['acc']:.3f}  (frames {frames})"
            )


def polish_llm(model, tok, side: TextSide, short: list[Example], recipe: Recipe, seed: int, log) -> float:
    """After joint training: the adaptor and LLM alone, on the frozen encoder's output.

    The LLM is the slowest part to learn (reading an utterance's words in
    order out of the packed rows), and a step that neither back-propagates
    through nor updates the encoder costs a fraction of a joint step, so the
    last part of the budget buys it several times more steps on exactly the
    encoder it will run with. Same data stream as training (fresh feature
    augmentation, short and long examples). Returns the seconds spent.
    """
    import torch

    steps = recipe.polish_steps
    if steps <= 0:
        return 0.0
    started = time.perf_counter()
    params = [p for p in (*model.audio_adaptor.parameters(), *model.llm.parameters()) if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=recipe.polish_lr, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    rng = np.random.default_rng([seed, 19])
    schedule = batch_stream(short, replace(recipe, short_only_steps=0), seed + 2)
    embed = model.llm.get_input_embeddings()
    running: dict[str, float] = {}
    for step in range(steps):
        _, items = next(schedule)
        batch = collate(items, rng, augment_feats=True)
        keep = batch.mask.unsqueeze(-1)
        bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
        model.eval()
        with torch.no_grad():
            enc = model.audio_encoder(batch.feats * keep, keep, bias) * keep
        model.audio_adaptor.train()
        model.llm.train()
        rows = model.audio_adaptor(enc, bias) * keep
        n_audio = [num_audio_tokens(t) for t in batch.frames]
        inputs, attention, label_ids = llm_batch(
            [rows[b, :n] for b, n in enumerate(n_audio)], batch.texts, embed, tok, side
        )
        warm = max(2, steps // 20)
        progress = max(0.0, (step - warm) / max(1, steps - warm))
        lr = recipe.polish_lr * min(1.0, (step + 1) / warm) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
        llm_step(model, embed, side, (inputs, attention, label_ids), recipe, opt, params, lr, running)
        if (step + 1) % max(1, steps // 10) == 0 or step == steps - 1:
            log(
                f"LLM polish {step + 1}/{steps} {time.perf_counter() - started:5.0f}s  llm {running['llm']:.3f}"
                f"  acc {running['acc']:.3f}"
            )
    model.eval()
    return time.perf_counter() - started


class WeightAverage:
    """Exponential moving average of the weights over the second half of joint training.

    With ~1 minute of audio per step the weights wander: in one 1,848-step
    run, dev CTC WER at steps 1518, 1702 and 1848 was 10.2%, 7.6% and 11.9%.
    The average sits in the middle of that wandering, which is where a short
    run's best model is; it costs one multiply-add per weight per step.
    """

    def __init__(self, model, decay: float) -> None:
        self.decay = decay
        self.shadow: dict | None = None
        self.model = model

    def update(self) -> None:
        import torch

        with torch.no_grad():
            params = {k: v for k, v in self.model.state_dict().items() if v.is_floating_point()}
            if self.shadow is None:
                self.shadow = {k: v.detach().clone() for k, v in params.items()}
                return
            for k, v in params.items():
                self.shadow[k].mul_(self.decay).add_(v.detach(), alpha=1.0 - self.decay)

    def apply(self) -> None:
        """Load the averaged weights into the model (no-op if averaging never started)."""
        if self.shadow is not None:
            self.model.load_state_dict(self.shadow, strict=False)


def train(
    model,
    tok,
    side: TextSide,
    short: list[Example],
    dev: list[Example],
    recipe: Recipe,
    seed: int,
    work: Path,
    log,
    table: torch.Tensor,
) -> dict:
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.ndim >= 2]
    no_decay = [p for p in params if p.ndim < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=recipe.lr,
        betas=(0.9, 0.98),
        eps=1e-8,
    )
    rng = np.random.default_rng([seed, 11])
    schedule = batch_stream(short, recipe, seed)
    started = time.perf_counter()
    history = []
    running: dict[str, float] = {}
    report_every = max(1, recipe.steps // 40)
    average = WeightAverage(model, recipe.ema_decay)
    for step in range(recipe.steps):
        pool, items = next(schedule)
        batch = collate(items, rng, augment_feats=True)
        model.train()
        for group in opt.param_groups:
            group["lr"] = lr_at(step, recipe)
        losses = forward_losses(model, batch, tok, side, recipe, table)
        total = (
            recipe.ctc_weight * losses["ctc"]
            + losses["llm"]
            + recipe.frame_weight * losses["frame"]
            + recipe.pack_weight * losses["pack"]
            + recipe.row_weight * losses["row"]
        )
        opt.zero_grad(set_to_none=True)
        total.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        if step >= int(recipe.steps * recipe.ema_start):
            average.update()
        for k, v in losses.items():
            running[k] = running.get(k, 0.0) * 0.9 + float(v) * 0.1 if k in running else float(v)
        if (step + 1) % report_every == 0 or step == recipe.steps - 1:
            model.eval()
            dev_batch = collate(dev, rng, augment_feats=False)
            ctc_wer = wer(dev_batch.texts, greedy_ctc(model, dev_batch, side))
            with torch.no_grad():
                dev_acc = float(forward_losses(model, dev_batch, tok, side, recipe, table)["acc"])
            elapsed = time.perf_counter() - started
            entry = {
                "step": step + 1,
                "elapsed_s": round(elapsed, 1),
                "lr": lr_at(step, recipe),
                **{k: round(v, 4) for k, v in running.items()},
                "dev_ctc_wer": round(ctc_wer, 4),
                "dev_llm_acc": round(dev_acc, 4),
            }
            history.append(entry)
            log(
                f"step {step + 1}/{recipe.steps} {elapsed:6.0f}s load {os.getloadavg()[0]:4.1f}"
                f"  ctc {running['ctc']:.3f}  llm {running['llm']:.3f}  acc {running['acc']:.3f}"
                f"  frame {running['frame']:.3f}  pack {running['pack']:.3f}  row {running['row']:.3f}"
                f"  dev CTC WER {ctc_wer:.3f}  dev LLM acc {dev_acc:.3f}  [{pool}]"
            )
        if (step + 1) % max(50, recipe.steps // 8) == 0:
            torch.save({"step": step + 1, "model": model.state_dict()}, work / "train-state.pt")
    average.apply()
    model.eval()
    dev_batch = collate(dev, rng, augment_feats=False)
    averaged_wer = wer(dev_batch.texts, greedy_ctc(model, dev_batch, side))
    log(f"averaged weights: dev CTC WER {averaged_wer:.3f}")
    return {"history": history, "train_s": time.perf_counter() - started, "averaged_dev_ctc_wer": averaged_wer}


# --------------------------------------------------------------------------
# Writing the release layout and exporting.


def write_checkpoint(folder: Path, model, tok, llm_cfg: dict, dims: Dims, tiktoken_text: str, ctc_vocab: int) -> Path:
    """config.yaml, configuration.json, model.pt, Qwen3-0.6B/, multilingual.tiktoken, as released."""
    import make_tiny_checkpoint as mtc
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    mtc.write_llm_folder(folder / LLM_FOLDER, tok, llm_cfg)
    (folder / "multilingual.tiktoken").write_text(tiktoken_text, encoding="ascii")
    (folder / "config.yaml").write_text(
        mtc.config_yaml(audio_dims(dims, ctc_vocab), LLM_FOLDER, ctc_vocab, "fp32"), encoding="utf-8"
    )
    (folder / "configuration.json").write_text(mtc.configuration_json(LLM_FOLDER), encoding="utf-8")
    state = {k: v.detach().clone() for k, v in model.state_dict().items() if not k.startswith(SCAFFOLDING)}
    state["llm.lm_head.weight"] = state["llm.model.embed_tokens.weight"]  # tied, as torch saves them
    torch.save(state, folder / "model.pt")
    return folder


def export(checkpoint: Path, out: Path, quant: str, precision: str) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tingji",
            "export-model",
            "--source",
            str(checkpoint),
            "--out",
            str(out),
            "--precision",
            precision,
            "--decoder-quant",
            quant,
        ],
        check=True,
    )


def evaluate(model_dir: Path, utterances: Sequence[HeldOutUtterance], threads: int = 2) -> dict:
    """WER through the real inference path: Engine.transcribe (numpy features, ONNX, llama.cpp)."""
    from tingji.engine import Engine

    engine = Engine(model_dir, threads=threads)
    try:
        hyps = [engine.transcribe(u.samples).text for u in utterances]
    finally:
        engine.close()
    refs = [u.text for u in utterances]
    return {
        "wer": wer(refs, hyps),
        "utterances": len(refs),
        "exact": sum(normalise_words(r) == normalise_words(h) for r, h in zip(refs, hyps)),
        "errors": [
            {"ref": r, "hyp": h, "voice": u.speaker.voice, "speed": u.speaker.speed}
            for r, h, u in zip(refs, hyps, utterances)
            if normalise_words(r) != normalise_words(h)
        ],
    }


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (synthesis workers, espeak, exporter)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="exported model folder to create")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--minutes",
        type=float,
        default=26.0,
        help="training budget; converted to a fixed data size and step count (see module docstring)",
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=None,
        help="scratch folder for the checkpoint and training state (default /tmp/tingji-demo-<seed>)",
    )
    ap.add_argument("--decoder-quant", default="f16", choices=["f16", "q8_0", "f32"])
    ap.add_argument(
        "--precision",
        default="fp16",
        choices=["fp32", "fp16"],
        help="encoder and CTC head precision in the export (fp16 halves the size; same WER measured)",
    )
    ap.add_argument("--eval", type=int, default=100, help="held-out utterances to evaluate through Engine (0: skip)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=None, help="override the step count the budget gives (experiments)")
    ap.add_argument("--speakers", type=int, default=None, help="override the number of training speakers (experiments)")
    ap.add_argument(
        "--llm-pretrain-steps",
        type=int,
        default=None,
        help="override the LLM pretraining step count on oracle rows (experiments)",
    )
    ap.add_argument(
        "--polish-steps",
        type=int,
        default=None,
        help="adaptor+LLM steps on the frozen encoder after joint training (`polish_llm`; experiments)",
    )
    args = ap.parse_args(argv)

    # Before torch loads OpenMP: with spinning waits (the default), two threads
    # on a busy 2-core machine spend most of their time spinning at barriers;
    # measured here, passive waiting made training steps 5-10x faster under load.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    t0 = time.perf_counter()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    if args.out.exists() and any(args.out.iterdir()):
        ap.error(f"{args.out} exists and is not empty")
    work = args.work or Path(f"/tmp/tingji-demo-{args.seed}")
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "train.log"
    log_path.unlink(missing_ok=True)

    def log(msg: str) -> None:
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        with open(log_path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    dims, recipe = Dims(), Recipe.for_minutes(args.minutes)
    if args.steps is not None or args.speakers is not None:
        recipe = replace(recipe.with_steps(args.steps or recipe.steps), speakers=args.speakers or recipe.speakers)
    if args.polish_steps is not None:
        recipe = replace(recipe, polish_steps=args.polish_steps)
    if args.llm_pretrain_steps is not None:
        recipe = replace(recipe, llm_pretrain_steps=args.llm_pretrain_steps)
    log(f"recipe {asdict(recipe)}")
    log(f"dims {asdict(dims)}")
    import make_tiny_checkpoint as mtc

    tok = build_tokenizer(dims.bpe_vocab)
    llm_cfg = llm_config_for(tok, dims)
    n_specials = mtc.ctc_special_count()
    n_bpe = len(json.loads(tok.to_str())["model"]["vocab"])
    ctc_vocab = 256 + n_bpe + n_specials
    tiktoken_text = mtc.ctc_tiktoken(tok, ctc_vocab, n_specials)
    ctc_ids = ctc_word_ids(tiktoken_text)
    from tingji.engine.families.fun_asr_nano.prompt import build_prompt

    prompt = build_prompt()
    side = TextSide(
        before=tok.encode(prompt.before).ids,
        after=tok.encode(prompt.after).ids,
        im_end=tok.token_to_id("<|im_end|>"),
        ctc_ids=ctc_ids,
        blank=ctc_vocab - 1,
        pack_ids=[ctc_ids[w] for w in VOCAB] + [ctc_vocab - 1],
    )

    t_syn = time.perf_counter()
    short = synthesise(recipe, args.seed, workers=args.threads)
    dev_utts = held_out_set(32, args.seed + 1000, workers=args.threads)
    from tingji.engine.frontend import features

    dev = [Example(features(u.samples).astype(np.float16), u.text) for u in dev_utts]
    synth_s = time.perf_counter() - t_syn
    hours = sum(e.frames for e in short) * 0.06 / 3600
    log(f"synthesised {len(short)} utterances ({hours:.2f} h) in {synth_s:.0f}s")

    model = build_model(dims, ctc_vocab, llm_cfg)
    pin_unused_ctc(model, side)
    positional_init(model)
    packing_init(model)
    use_fft_fsmn(model)
    n_params = sum(p.numel() for n, p in model.named_parameters() if not n.startswith(SCAFFOLDING))
    log(f"model: {n_params / 1e6:.2f} M parameters")
    table = oracle_table(dims, args.seed)
    t_pre = time.perf_counter()
    pretrain_llm(model, tok, side, short, recipe, table, args.seed, log)
    pretrain_s = time.perf_counter() - t_pre
    result = train(model, tok, side, short, dev, recipe, args.seed, work, log, table)
    result["train_s"] += pretrain_s + polish_llm(model, tok, side, short, recipe, args.seed, log)

    if (work / "checkpoint").exists():
        shutil.rmtree(work / "checkpoint")  # our own output from an earlier run
    checkpoint = write_checkpoint(work / "checkpoint", model, tok, llm_cfg, dims, tiktoken_text, ctc_vocab)
    log(f"checkpoint written: {checkpoint}")
    export(checkpoint, args.out, args.decoder_quant, args.precision)
    total_s = time.perf_counter() - t0
    log(
        f"exported to {args.out}; total {total_s:.0f}s (synthesis {synth_s:.0f}s, training {result['train_s']:.0f}s), "
        f"{cpu_seconds():.0f} CPU s, load average {os.getloadavg()[1]:.1f}"
    )

    report = {
        "command": " ".join(["tools/train_demo_model.py"] + (argv if argv is not None else sys.argv[1:])),
        "seed": args.seed,
        "minutes_budget": args.minutes,
        "wall_s": {
            "total_to_export": round(total_s, 1),
            "synthesis": round(synth_s, 1),
            "training": round(result["train_s"], 1),
        },
        "cpu_s": round(cpu_seconds(), 1),
        "machine": {
            "cpus": os.cpu_count(),
            "threads": args.threads,
            "load_avg_end": os.getloadavg(),
            "python": platform.python_version(),
            "torch": torch.__version__,
        },
        "dims": asdict(dims),
        "recipe": asdict(recipe),
        "data": {"utterances": len(short), "hours": round(hours, 2)},
        "parameters_m": round(n_params / 1e6, 3),
        "history": result["history"],
        "averaged_dev_ctc_wer": round(result["averaged_dev_ctc_wer"], 4),
    }
    if args.eval:
        t_eval = time.perf_counter()
        held = held_out_set(args.eval, args.seed + 2000, workers=args.threads)
        report["held_out"] = evaluate(args.out, held, threads=args.threads)
        report["held_out"]["seconds"] = round(time.perf_counter() - t_eval, 1)
        log(
            f"held-out WER {report['held_out']['wer']:.4f} on {args.eval} utterances "
            f"({report['held_out']['exact']} exact)"
        )
    (work / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    log(f"report: {work / 'report.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
