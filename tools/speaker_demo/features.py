"""The training set of the GPU-trained demo speaker model: many synthetic voices as compact fbank features.

`build(path, speakers, utterances, seed)` synthesises `speakers` random
training voices (`voices.train_speaker`, with `EXTRA_VARIANTS` beside the
demo ASR model's training variants), each reading `utterances` random texts
with augmentation (level, silence, noise, sometimes reverb), and stores each
utterance's fbank-80 (the product's `clip_features` before the mean is
subtracted: the trainer crops windows and subtracts each crop's own mean, as
the product does per window) over its speech and `MARGIN_S` either side,
quantised to uint8 between `LOW` and `HIGH` (steps of 0.09 in log energy),
in one compressed .npz: `frames` [F, 80] uint8, `starts` [U + 1] frame
offsets, `speaker` [U] voice index (`collect` gives the same arrays).
The held-out voices (`voices.held_out_voices`) are written the same way, for
the trainer's progress log only (the model never trains on them).

Each voice is synthesised in a fresh process (`fresh_process_map`), so the
set is a function of the seed alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from . import voices

LOW, HIGH = -16.0, 8.0  # log-mel range kept (all-zero audio gives log(float32 eps) = -15.94)
MARGIN_S = 0.25  # non-speech kept on each side of an utterance's speech (the VAD leaves about this much)
# espeak-ng variants that neither the demo ASR model's recipe nor the held-out set uses; siblings of a
# held-out variant (Gene2, steph3) stay out so held-out voices stay new.
EXTRA_VARIANTS = "Andrea antonio Marco pedro Mr RicishayMax2 RicishayMax3 zac anika AnxiousAndy croak fast".split()

Log = Callable[[str], None]


def quantise(feats: np.ndarray) -> np.ndarray:
    return np.clip(np.rint((feats - LOW) / (HIGH - LOW) * 255), 0, 255).astype(np.uint8)


def dequantise(q: np.ndarray) -> np.ndarray:
    return (q.astype(np.float32) * ((HIGH - LOW) / 255) + LOW).astype(np.float32)


def _voice_features(job: tuple[voices.Speaker, list[tuple[str, int]]]) -> list[np.ndarray]:
    """One voice's utterances as uint8 fbank over their speech (and MARGIN_S around it)."""
    from demo_model.speech import augment, espeak_words, speech_span

    from tingji.engine.frontend import FrontendConfig, fbank

    speaker, texts = job
    cfg = FrontendConfig(n_mels=80, window="povey", upscale=1.0, lfr_m=1, lfr_n=1)  # CAM++'s (export's)
    out = []
    for text, seed in texts:
        clean = espeak_words(text, speaker)[0]
        noisy, lead = augment(clean, np.random.default_rng(seed))
        a, b = speech_span(clean)
        margin = int(MARGIN_S * voices.RATE)
        piece = noisy[max(0, lead + a - margin) : lead + b + margin]
        out.append(quantise(fbank(piece, cfg)))
    return out


def training_speakers(speakers: int, seed: int) -> list[voices.Speaker]:
    """`speakers` random training voices; one in six uses an `EXTRA_VARIANTS` variant."""
    rng = np.random.default_rng([seed, 11])
    people = []
    for _ in range(speakers):
        person = voices.train_speaker(rng)
        if rng.random() < 1 / 6:
            person = replace(person, variant=EXTRA_VARIANTS[int(rng.integers(len(EXTRA_VARIANTS)))])
        people.append(person)
    return people


def _jobs(people: list[voices.Speaker], utterances: int, rng: np.random.Generator) -> list:
    return [
        (
            person,
            [
                (voices.random_text(rng, person.base, int(rng.integers(4, 10))), int(rng.integers(2**31)))
                for _ in range(utterances)
            ],
        )
        for person in people
    ]


def _pack(per_voice: list[list[np.ndarray]]) -> dict[str, np.ndarray]:
    clips = [c for v in per_voice for c in v]
    speaker = np.asarray([i for i, v in enumerate(per_voice) for _ in v], np.int32)
    starts = np.concatenate([[0], np.cumsum([len(c) for c in clips])]).astype(np.int64)
    return {"frames": np.concatenate(clips), "starts": starts, "speaker": speaker}


def collect(
    speakers: int, utterances: int, seed: int, workers: int = 2, log: Log = print, held_out: int = 6
) -> dict[str, np.ndarray]:
    """The training voices' and the held-out voices' features (the arrays `build` writes)."""
    rng = np.random.default_rng([seed, 12])
    t = time.perf_counter()
    train = voices.fresh_process_map(
        _voice_features, _jobs(training_speakers(speakers, seed), utterances, rng), workers
    )
    log(f"{speakers} training voices x {utterances} utterances in {time.perf_counter() - t:.0f} s")
    held = voices.fresh_process_map(_voice_features, _jobs(voices.held_out_voices(), held_out, rng), workers)
    data = {**_pack(train), **{f"held_{k}": v for k, v in _pack(held).items()}}
    log(f"{len(data['frames'])} training frames, {len(data['held_frames'])} held-out frames")
    return data


def build(path: Path, speakers: int, utterances: int, seed: int, workers: int = 2, held_out: int = 6) -> Path:
    """Write `collect`'s arrays to `path` (a compressed .npz)."""
    data = collect(speakers, utterances, seed, workers, held_out=held_out)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **data)
    return path
