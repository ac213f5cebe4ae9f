"""An optional last stage of the demo model: the adaptor and LLM taught to read quick turn-taking conversations.

Off in the recipe (`Recipe.conversation_steps` 0): run with `--conversation-steps N`. Run for 2,000 steps it
made the decoder read the conversations far better but doubled the held-out WER on single utterances
(the fixture's README has the figures), so the committed fixture does not include it.

The first three stages leave a decoder that reads an utterance of 1-6 words well and loses its place
after about ten: on a 22 s conversation of two voices it wrote "home home home" from the third turn
on, and one voice reading the same twelve words in one breath fared no better (WER 0.58), so it is the
number of words in a window, not the voice changes or the pauses. This stage gives the adaptor and
LLM many windows of 1 to ~60 words: conversations of one to four TRAINING voices (`random_speaker`,
never a held-out variant or speed) taking turns of 1-10 words, about one in five a single word, with
0.05-1 s between turns, mixed as audio (each turn at its own level), then `augment`ed.

It starts from the exported weights of the first three stages (fp16 encoder, f16 decoder, rebuilt
exactly by `from_export.load_exported`), so a run of the whole recipe and `--from-export` on that
export train the same model. The encoder stays frozen, so each conversation's encoder output is
computed once (with one draw of `augment_features`) and only the adaptor and LLM run per step.

`--conversation-short-speakers N` mixes short single-speaker training utterances (the first N speakers'
of stage 1) into every step beside the conversations, so the LLM learns long windows without
forgetting the short ones the held-out WER is measured on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .data import Example, augment_features, collate, num_audio_tokens
from .losses import llm_batch
from .recipe import DIGITS, SAMPLE_RATE, VOCAB, Recipe
from .speech import augment, espeak_words, fresh_process_map, random_speaker, speech_span

if TYPE_CHECKING:
    from .text import TextSide

SINGLE_WORD_SHARE = 0.2  # turns of one word ("yes", "stop")
TURNS_PER_VOICE = 8
MAX_TURN_WORDS = 10
PAUSE_S = (0.2, 1.0)  # between turns; one pause in five is shorter, 0.05-0.2 s (a quick reply)
LENGTH_S = (1.0, 30.0)  # seconds of speech a conversation reaches (its last turn may go beyond)


def _turn_text(rng: np.random.Generator) -> str:
    n = 1 if rng.random() < SINGLE_WORD_SHARE else int(rng.integers(2, MAX_TURN_WORDS + 1))
    pool = DIGITS if rng.random() < 0.25 else VOCAB
    return " ".join(pool[int(i)] for i in rng.integers(0, len(pool), n))


def voice_turns(job: tuple[int, int]) -> list[tuple[str, np.ndarray]]:
    """One training voice's turns: (text, its trimmed 16 kHz speech) each (run in a fresh process)."""
    index, seed = job
    rng = np.random.default_rng([seed, 4545, index])
    speaker = random_speaker(rng, held_out=False)
    turns = []
    for _ in range(TURNS_PER_VOICE):
        text = _turn_text(rng)
        clip, _ = espeak_words(text, speaker)
        a, b = speech_span(clip)
        turns.append((text, clip[a:b].astype(np.float32)))
    return turns


def conversation_example(voices: Sequence[list[tuple[str, np.ndarray]]], rng: np.random.Generator) -> Example:
    """One to four of `voices` taking turns (the voice changes every turn), as LFR features and their text."""
    from tingji.engine.frontend import features

    chosen = rng.choice(len(voices), size=int(rng.integers(1, 5)), replace=False).tolist()
    target = rng.uniform(*LENGTH_S)
    parts, texts, who, total = [], [], -1, 0.0
    while total < target:
        choices = [v for v in chosen if v != who] or [who]
        who = int(choices[int(rng.integers(len(choices)))])
        text, clip = voices[who][int(rng.integers(len(voices[who])))]
        if parts:
            pause = rng.uniform(0.05, 0.2) if rng.random() < 0.2 else rng.uniform(*PAUSE_S)
            parts.append(np.zeros(int(pause * SAMPLE_RATE), np.float32))
        parts.append(clip / (np.abs(clip).max() + 1e-9) * rng.uniform(0.2, 0.9))
        texts.append(text)
        total += len(clip) / SAMPLE_RATE
    audio, _ = augment(np.concatenate(parts).astype(np.float32), rng)
    return Example(features(audio).astype(np.float16), " ".join(texts))


def synthesise_conversations(recipe: Recipe, seed: int, workers: int) -> list[Example]:
    """The stage's conversations, mixed from `conversation_voices` voices' turns (espeak-ng is the slow part:
    a pool of turns, each voice in a fresh process, mixed many ways). A function of the seed alone."""
    import scipy.signal  # noqa: F401  (imported once here, not in every forked job)
    import soxr  # noqa: F401

    jobs = [(i, seed) for i in range(recipe.conversation_voices)]
    voices = fresh_process_map(voice_turns, jobs, workers)
    rng = np.random.default_rng([seed, 4546])
    return [conversation_example(voices, rng) for _ in range(recipe.conversations)]


def _batches(frames: Sequence[int], recipe: Recipe, rng: np.random.Generator) -> list[list[int]]:
    """One pass in batches of similar length (`conversation_frames_per_batch` LFR frames at most), shuffled."""
    order = sorted(rng.permutation(len(frames)).tolist(), key=lambda i: frames[i])
    batches, current = [], []
    for i in order:
        full = frames[i] * (len(current) + 1) > recipe.conversation_frames_per_batch
        if current and (full or len(current) >= recipe.max_batch):
            batches.append(current)
            current = []
        current.append(i)
    batches.append(current)
    rng.shuffle(batches)
    return batches


def encode_all(model, examples: Sequence[Example], rng: np.random.Generator) -> list:
    """Each example's frozen-encoder output (one `augment_features` draw each), as float32 tensors."""
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for e in examples:
            batch = collate([e], rng, augment_feats=False)
            x = torch.from_numpy(augment_features(e.feats.astype(np.float32), rng))[None]
            keep = batch.mask.unsqueeze(-1)
            bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
            out.append(model.audio_encoder(x, keep, bias)[0])
    return out


def _adapted_rows(model, encoded: Sequence, items: list[int]) -> list:
    """The adaptor's rows for `items` of `encoded` (padded together as one batch), each cut to its length."""
    import torch

    t_max = max(len(encoded[i]) for i in items)
    enc = torch.zeros(len(items), t_max, encoded[0].shape[-1])
    mask = torch.zeros(len(items), t_max)
    for b, i in enumerate(items):
        enc[b, : len(encoded[i])] = encoded[i]
        mask[b, : len(encoded[i])] = 1.0
    bias = ((1.0 - mask) * -1.0e9)[:, None, None, :]
    rows = model.audio_adaptor(enc, bias) * mask.unsqueeze(-1)
    return [rows[b, : num_audio_tokens(len(encoded[i]))] for b, i in enumerate(items)]


def converse_llm(
    model, tok, side: TextSide, examples: list[Example], recipe: Recipe, seed: int, log, short: Sequence[Example] = ()
) -> float:
    """The adaptor and LLM on the conversations' frozen encoder output; returns the seconds spent.

    Args:
        short: single-speaker training utterances mixed into every step (`conversation_short_frames_per_batch`
            frames of them beside each conversation batch), so the LLM keeps reading short windows
            while it learns long ones; empty: conversations alone.
    """
    import torch

    from .training import llm_step

    started = time.perf_counter()
    torch.manual_seed(seed + 4545)  # nothing here draws from torch today; if something does, it starts the same
    rng = np.random.default_rng([seed, 23])
    encoded = encode_all(model, examples, rng)
    short_encoded = encode_all(model, short, np.random.default_rng([seed, 24]))
    short_recipe = replace(recipe, conversation_frames_per_batch=recipe.conversation_short_frames_per_batch)
    short_rng = np.random.default_rng([seed, 25])
    log(f"conversations and {len(short)} short utterances encoded in {time.perf_counter() - started:.0f}s")
    params = [p for p in (*model.audio_adaptor.parameters(), *model.llm.parameters()) if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=recipe.conversation_lr, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    embed = model.llm.get_input_embeddings()
    running: dict[str, float] = {}
    queue: list[list[int]] = []
    short_queue: list[list[int]] = []
    steps = recipe.conversation_steps
    warm = max(2, steps // 20)
    for step in range(steps):
        if not queue:
            queue = _batches([len(x) for x in encoded], recipe, rng)
        items = queue.pop()
        model.audio_adaptor.train()
        model.llm.train()
        rows = _adapted_rows(model, encoded, items)
        texts = [examples[i].text for i in items]
        if short_encoded:
            if not short_queue:
                short_queue = _batches([len(x) for x in short_encoded], short_recipe, short_rng)
            mixed = short_queue.pop()
            rows += _adapted_rows(model, short_encoded, mixed)
            texts += [short[i].text for i in mixed]
        batch = llm_batch(rows, texts, embed, tok, side)
        progress = max(0.0, (step - warm) / max(1, steps - warm))
        cosine = 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))
        lr = recipe.conversation_lr * min(1.0, (step + 1) / warm) * cosine
        llm_step(model, embed, side, batch, recipe, opt, params, lr, running)
        if (step + 1) % max(1, steps // 20) == 0 or step == steps - 1:
            log(
                f"conversation stage {step + 1}/{steps} {time.perf_counter() - started:5.0f}s"
                f"  llm {running['llm']:.3f}  acc {running['acc']:.3f}  (items {len(texts)})"
            )
    model.eval()
    return time.perf_counter() - started
