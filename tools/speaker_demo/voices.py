"""Synthetic speakers for the demo speaker model: training voices, held-out voices, texts, conversations.

A speaker here is one espeak-ng configuration: a language voice (its
phonemes and accent), a voice variant (timbre, formants, pitch range), a
base pitch and a speaking rate. Training speakers use `TRAIN_VARIANTS`; the
held-out voices (`held_out_voices`) use only `HELD_OUT_VARIANTS`, which
training never hears, so every held-out voice is new to the model.
Everything is drawn from seeded generators and synthesised in freshly forked
processes (`demo_model.speech.fresh_process_map`), so the audio is a function
of the seed alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from demo_model.recipe import HELD_OUT_VARIANTS, TRAIN_VARIANTS
from demo_model.speech import Speaker, augment, espeak_words, fresh_process_map, speech_span

RATE = 16000
# Language voices reading English text (accents), and Mandarin reading Chinese.
BASES = "en en-us en-gb-scotland en-gb-x-rp en-029 de fr es it pt nl pl sv cs ro hu fi tr vi id cmn".split()
ENGLISH = (
    "zero one two three four five six seven eight nine hello world yes no stop go left right up down open close "
    "start play next back call home today meeting please thank you red green blue time save file new the a we "
    "they this that morning evening report budget project team office window water market city river letter "
    "question answer number people little great small large early late always never maybe really quite about "
    "after before because during between under over here there where when which while would could should"
).split()
CHINESE = list("今天我们开会讨论项目预算时间问题请大家准备报告明天上午下午客户市场城市河流电话号码谢谢你好再见")


def random_text(rng: np.random.Generator, base: str, words: int) -> str:
    """`words` random English words, or as many Chinese characters in twos for the Mandarin voice."""
    if base == "cmn":
        chars = rng.choice(CHINESE, 2 * words)
        return " ".join("".join(chars[i : i + 2]) for i in range(0, len(chars), 2))
    return " ".join(rng.choice(ENGLISH, words))


def train_speaker(rng: np.random.Generator) -> Speaker:
    base = BASES[int(rng.integers(len(BASES)))]
    variant = TRAIN_VARIANTS[int(rng.integers(len(TRAIN_VARIANTS)))]
    return Speaker(base, variant, int(rng.integers(125, 215)), int(rng.integers(5, 96)), int(rng.integers(0, 4)))


def held_out_voices() -> list[Speaker]:
    """16 voices training never hears: each held-out variant twice, at a low and a high pitch, other accents."""
    voices = []
    for i, variant in enumerate(HELD_OUT_VARIANTS):
        voices.append(Speaker(BASES[i % 5], variant, 150 + 5 * i, 25 + 2 * i, 1))
        voices.append(Speaker(BASES[5 + i % 8], variant, 185 - 4 * i, 70 + 2 * i, 1))
    return voices


def _speaker_utterances(job: tuple[Speaker, list[tuple[str, int]]]) -> list[np.ndarray]:
    """One voice's utterances, each with random level, silence, noise and sometimes reverb (`augment`)."""
    speaker, texts = job
    return [augment(espeak_words(text, speaker)[0], np.random.default_rng(seed))[0] for text, seed in texts]


def utterances(jobs: Sequence[tuple[Speaker, list[tuple[str, int]]]], workers: int = 2) -> list[list[np.ndarray]]:
    """16 kHz float32 audio of each voice's (text, augmentation seed) list, each voice in a fresh process."""
    return fresh_process_map(_speaker_utterances, list(jobs), workers)


def speech_windows(clip: np.ndarray, rng: np.random.Generator, count: int, size: int) -> list[np.ndarray]:
    """`count` random windows of `size` samples over a clip's speech (zero-padded when the speech is shorter)."""
    a, b = speech_span(clip)
    out = []
    for _ in range(count):
        start = a + int(rng.integers(0, max(1, b - a - size + 1)))
        window = np.zeros(size, np.float32)
        piece = clip[start : min(b, start + size)]
        window[: len(piece)] = piece
        out.append(window)
    return out


@dataclass
class Conversation:
    """A synthetic conversation and who spoke when (seconds; speaker indices into `voices`)."""

    voices: list[Speaker]
    turns: list[tuple[float, float, int]]
    samples: np.ndarray = field(repr=False)

    @property
    def seconds(self) -> float:
        return len(self.samples) / RATE


def conversation(
    voices: Sequence[Speaker], seconds: float, seed: int, overlap_every: int = 4, workers: int = 2
) -> Conversation:
    """Speakers taking turns of 1-15 s (each turn one or more utterances), about `seconds` long.

    Turns are separated by 0.2-0.8 s of quiet, except every `overlap_every`-th,
    which starts 0.5 s before the previous one ends (both voices at once). No
    speaker follows itself; every voice speaks at least once.
    """
    rng = np.random.default_rng([seed, 33])
    order: list[int] = []
    lengths: list[float] = []
    total = 0.0
    while total < seconds or len(set(order)) < len(voices):
        choices = [v for v in range(len(voices)) if not order or v != order[-1]]
        unheard = [v for v in choices if v not in order]
        order.append(int(rng.choice(unheard or choices)))
        lengths.append(float(rng.uniform(1.0, 15.0)))
        total += lengths[-1] + 0.5
    jobs = []
    for who, length in zip(order, lengths):
        words = max(2, round(length * voices[who].speed / 60 * 0.8))  # a turn's words at the voice's rate
        jobs.append((random_text(rng, voices[who].base, words), voices[who]))
    clips = [_trim(c) for c in fresh_process_map(_clean, jobs, workers)]
    return _mix(voices, order, clips, rng, overlap_every)


def _clean(job: tuple[str, Speaker]) -> np.ndarray:
    return espeak_words(*job)[0]


def _trim(clip: np.ndarray) -> np.ndarray:
    a, b = speech_span(clip)
    return clip[a:b]


def _mix(
    voices: Sequence[Speaker], order: list[int], clips: list[np.ndarray], rng: np.random.Generator, overlap_every: int
) -> Conversation:
    starts, pos = [], int(0.5 * RATE)
    for i, clip in enumerate(clips):
        if i and i % overlap_every == 0:
            pos -= int(0.5 * RATE)  # this turn starts 0.5 s before the last one ends
        else:
            pos += int(rng.uniform(0.2, 0.8) * RATE) if i else 0
        starts.append(pos)
        pos += len(clip)
    turns, audio = mix_turns(order, clips, starts, pos, rng)
    return Conversation(list(voices), turns, audio)


def mix_turns(
    order: Sequence[int], clips: Sequence[np.ndarray], starts: Sequence[int], end: int, rng: np.random.Generator
) -> tuple[list[tuple[float, float, int]], np.ndarray]:
    """Clips placed at `starts` (samples), each at a random level, over faint noise, with 0.5 s after
    `end`: the reference turns (start s, end s, speaker) and the audio."""
    out = np.zeros(end + int(0.5 * RATE), np.float64)
    turns = []
    for who, clip, start in zip(order, clips, starts):
        out[start : start + len(clip)] += clip / (np.abs(clip).max() + 1e-9) * rng.uniform(0.3, 0.6)
        turns.append((start / RATE, (start + len(clip)) / RATE, who))
    out += 10 ** (-50 / 20) * np.random.default_rng(int(rng.integers(2**31))).standard_normal(len(out)) * 0.3
    return turns, np.clip(out, -1, 1).astype(np.float32)


def pick_distinct(pool: Sequence[Speaker], count: int, seed: int) -> list[Speaker]:
    """`count` voices of `pool` with different variants (two voices of one variant differ in pitch only),
    chosen by `seed`."""
    rng = np.random.default_rng([seed, 7])
    chosen: list[Speaker] = []
    for i in rng.permutation(len(pool)):
        if all(pool[i].variant != v.variant for v in chosen):
            chosen.append(pool[i])
        if len(chosen) == count:
            break
    return chosen


def recordings(speakers: Sequence[Speaker], per_voice: int, seed: int, workers: int = 2) -> list[list[np.ndarray]]:
    """`per_voice` separate recordings of each voice: three utterances back to back, each augmented on its own."""
    rng = np.random.default_rng([seed, 55])
    jobs = []
    for speaker in speakers:
        texts = [
            (random_text(rng, speaker.base, int(rng.integers(6, 12))), int(rng.integers(2**31)))
            for _ in range(3 * per_voice)
        ]
        jobs.append((speaker, texts))
    out = []
    for clips in utterances(jobs, workers):
        out.append([np.concatenate(clips[3 * i : 3 * i + 3]) for i in range(per_voice)])
    return out
