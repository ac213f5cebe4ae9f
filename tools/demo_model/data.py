"""Training data for the demo model: examples with frame tags, long examples, batches, feature augmentation.

An example is an utterance's LFR features with its text and a word tag per frame (from espeak's word
positions); long examples join one speaker's utterances and then others', as in a conversation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .recipe import AUDIO_ROWS_PER_FRAME, SAMPLE_RATE, SPEED_PERTURB, VOCAB, Recipe
from .speech import augment, espeak_words, fresh_process_map, random_speaker, random_text

if TYPE_CHECKING:
    import torch

# Frame tags for the alignment-guided losses: B-word, I-word (inside), O (no speech).
N_TAGS = 2 * len(VOCAB) + 1
TAG_O = N_TAGS - 1
LFR_HOP = 960  # samples per LFR frame (6 x 10 ms)
LFR_CENTRE = 200  # LFR frame i is centred on fbank frame 6i: samples 960i .. 960i + 400


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


def synthesise(recipe: Recipe, seed: int, workers: int) -> list[Example]:
    """The training utterances: identical for a given seed whatever the number of workers or the timing."""
    jobs = [SpeakerJob(i, seed, recipe.utterances_per_speaker) for i in range(recipe.speakers)]
    return [e for examples in fresh_process_map(speaker_examples, jobs, workers) for e in examples]


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
