"""Paraformer (funasr Paraformer / BiCifParaformer): non-autoregressive, one encoder and one decoder pass.

One window: Kaldi fbank + LFR + CMVN features -> the `encoder` graph
(encoder states, zero on padding, and one CIF weight per frame) ->
integrate-and-fire in NumPy (`cif.py`: how many tokens fire depends on the
values) -> the `decoder` graph over that many token slots (the best token
per slot) -> words and text by funasr's rules (`text.py`) -> per-token
times: BiCifParaformer's timestamp head (the `timestamp` graph, CPU, real
length) or, for plain Paraformer, the CIF weights themselves.

Under the fixed shape policy (DirectML) the encoder runs at one of two
frame buckets and the decoder at one of two slot lengths per frame bucket,
each a session warmed at load: at most one token fires per frame, so
frames + 1 slots always suffice, and a bucket of 0.4 slots per frame
(6.7 tokens a second) holds ordinary speech at less than half the cost.

There is no per-lane state (`base.GraphsOnly`): a dictation take never
waits for a file's window.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ....errors import ModelError
from ... import messages
from ...align import TimedChar
from ...frontend import FrontendConfig, features
from ...languages import normalise
from ...manifest import Manifest
from ...options import LoadOptions, TranscribeOptions
from ...sessions import GraphSpec, OnnxGraphs
from ..base import CancelCheck, Capabilities, GraphsOnly, WindowResult, manifest_cmvn, stage
from ..kit import declared
from . import cif
from .section import ParaformerSection
from .text import Words, words_from_tokens

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
FILE_ROLES = (
    "encoder",
    "encoder_fixed",
    "encoder_data",
    "decoder",
    "decoder_fixed",
    "decoder_data",
    "timestamp",
    "timestamp_data",
    "cmvn",
    "tokens",
)
REQUIRED_FILES = ("encoder", "decoder", "cmvn", "tokens")
FRONTEND = FrontendConfig
SECTION = ParaformerSection
SHORT_BUCKET_FRAMES = 167  # fixed policy: a 10 s bucket for dictation beside the full window
SLOT_SHARE = 0.4  # the short slot length per frame bucket: 0.4 tokens per 60 ms frame


def slot_lengths(frames: int) -> tuple[int, ...]:
    """The decoder's slot lengths for a frame bucket: the short one, then frames + 1 (always enough)."""
    short = math.ceil(frames * SLOT_SHARE)
    return (short, frames + 1) if short < frames + 1 else (frames + 1,)


def load_tokens(path: Path, size: int) -> list[str]:
    """tokens.json as the converter wrote it: `size` strings; anything else is one ModelError."""
    try:
        tokens = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise ValueError("not a JSON list of strings")
        if len(tokens) != size:
            raise ValueError(f"{len(tokens)} tokens, the decoder has {size} outputs")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelError(messages.PARAFORMER_TOKENS, path=path, reason=exc) from None
    return tokens


class Paraformer(GraphsOnly):
    """A loaded Paraformer model (see `engine.families.base.Recognizer`)."""

    family = FAMILY
    stages = ("features", "encode", "cif", "decode", "timestamps")

    def __init__(self, manifest: Manifest, options: LoadOptions) -> None:
        self.section: ParaformerSection = manifest.section
        self.frontend: FrontendConfig = manifest.frontend
        self.cmvn = manifest_cmvn(manifest, messages.PARAFORMER_CMVN)
        ids = self.section.tokens
        self.tokens = load_tokens(manifest.file("tokens"), ids.vocab_size)
        self.dropped = {ids.blank_id, ids.sos_id, ids.eos_id}
        specs = [
            GraphSpec("encoder", fixed_role="encoder_fixed"),
            GraphSpec(
                "decoder", fixed_role="decoder_fixed", dim_names=("batch", "frames", "tokens"), slots=slot_lengths
            ),
        ]
        self.graphs = OnnxGraphs(manifest, specs, options, short_bucket=SHORT_BUCKET_FRAMES, warm=self._warm_up)
        self.timestamp_graphs: OnnxGraphs | None = None
        if self.section.variant == "bicif" and manifest.file("timestamp") is not None:
            # Always on the CPU at the real length: its backward LSTM would start in any padding.
            cpu = replace(options, provider="cpu", policy="dynamic", buckets=None)
            self.timestamp_graphs = OnnxGraphs(manifest, [GraphSpec("timestamp", padded=False)], cpu)
        self.capabilities = Capabilities(
            languages=("zh",),
            detects_language=False,
            hotwords=False,
            itn=False,
            timestamps="tokens",
            live_lane=True,
            punctuation=False,
        )

    def _warm_up(self, graphs: OnnxGraphs) -> None:
        """One run per session, so kernel compilation happens at load, not on the user's first window."""
        frames = 8
        feats = np.zeros((frames, self.section.encoder.input_size), np.float32)
        enc = np.zeros((frames, self.section.encoder.encoder_dim), np.float32)
        slots = np.zeros((1, self.section.encoder.encoder_dim), np.float32)
        for key in graphs.keys("encoder"):
            graphs.run("encoder", {"speech": feats}, frames, bucket=key, record=False)
        for key in graphs.keys("decoder"):
            bucket, slot_bucket = key if isinstance(key, tuple) else (None, None)
            graphs.run(
                "decoder",
                {"enc": enc},
                frames,
                slotted={"acoustic": slots},
                bucket=bucket,
                slot_bucket=slot_bucket,
                record=False,
            )

    def warm(self, lane: Any) -> None:
        """One short window through everything (features, graphs, CIF, timestamps), so the first
        dictation take pays no first-call costs."""
        noise = np.random.default_rng(0).standard_normal(self.frontend.sample_rate).astype(np.float32) * 0.01
        self.recognize(noise, TranscribeOptions(), lane)

    def recognize(
        self, samples: np.ndarray, options: TranscribeOptions, lane: Any, cancel: CancelCheck | None = None
    ) -> WindowResult:
        timings = dict.fromkeys(self.stages, 0.0)
        ids, words = self.words(samples, timings, timestamps=options.timestamps)
        chars = _char_times(words) if options.timestamps else None
        return WindowResult(words.text, ids, chars, language=normalise(options.language), timings=timings)

    def words(
        self, samples: np.ndarray, timings: dict[str, float] | None = None, *, timestamps: bool = True
    ) -> tuple[list[int], Words]:
        """One window's token ids (blank, <s> and </s> dropped) and its words with their times.

        Args:
            samples: 16 kHz mono float32, at most the model's window.
            timings: seconds per stage are added here when given.
            timestamps: False skips the timestamp head (the words then have no times).
        """
        timings = timings if timings is not None else dict.fromkeys(self.stages, 0.0)
        with stage(timings, "features"):
            feats = features(samples, self.frontend, self.cmvn)
        frames = feats.shape[0]
        if frames == 0:  # shorter than one 25 ms frame
            return [], words_from_tokens([], [] if timestamps else None)
        with stage(timings, "encode"):
            enc, alphas = self.graphs.run("encoder", {"speech": feats}, frames)
            enc, alphas = enc[0, :frames], alphas[0, :frames]
        with stage(timings, "cif"):
            fire = cif.fire_loop if self.section.variant == "bicif" else cif.fire_vectorised
            fired = fire(alphas, enc, self.section.cif.tail_threshold)
        if fired.token_count < 1:  # funasr returns no result when no token fires
            return [], words_from_tokens([], [] if timestamps else None)
        with stage(timings, "decode"):
            _, best = self.graphs.run("decoder", {"enc": enc}, frames, slotted={"acoustic": fired.embeddings})
            ids = [int(i) for i in best[0, : fired.token_count] if int(i) not in self.dropped]
            tokens = [self.tokens[i] for i in ids]
        with stage(timings, "timestamps"):
            times = self._token_times(enc, fired, tokens) if timestamps else None
            result = words_from_tokens(tokens, times)
        return ids, result

    def _token_times(self, enc: np.ndarray, fired: cif.Fired, tokens: list[str]) -> list[list[int]]:
        """[start_ms, end_ms] per token, as funasr's timestamp rules give them."""
        step = self.section.cif.frame_seconds
        if self.timestamp_graphs is None:  # plain Paraformer: the CIF weights' own fires
            return cif.token_times(fired.alphas, fired.peaks, tokens, step, 1)
        (weights,) = self.timestamp_graphs.run("timestamp", {"enc": enc}, len(enc), other={})
        return cif.head_token_times(weights[0], fired.token_count, tokens, step, self.section.cif.upsample_times)


def _char_times(words: Words) -> list[TimedChar]:
    """Each timed word's characters spread over its span (seconds; funasr's times may start before 0)."""
    out = []
    for word, (start_ms, end_ms) in zip(words.words, words.times):
        start, end = max(0.0, start_ms / 1000), max(0.0, end_ms / 1000)
        step = max(0.0, end - start) / len(word)
        out += [TimedChar(ch, start + k * step, start + (k + 1) * step) for k, ch in enumerate(word)]
    return out


def load(manifest: Manifest, options: LoadOptions) -> Paraformer:
    return Paraformer(manifest, options)
