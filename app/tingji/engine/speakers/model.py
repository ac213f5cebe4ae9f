"""A CAM++ speaker model: the embedding of audio windows (its manifest section: `families.campplus`).

The features are funasr's for CAM++: Kaldi fbank (80 bins, povey window) of
the [-1, 1] samples, minus the clip's own mean per bin. The graph takes them
zero-padded with a 0/1 frame mask; on the CPU windows are batched longest
first, each batch padded to its longest clip (the mask keeps every clip's
embedding its own). Under the fixed policy (DirectML) every window is padded
to the window length and runs in the one warmed shape: the folder's batch
twin ([fixed_batch, window_frames, feat_dim], a short last batch filled with
fully masked zero windows), or in a folder made before it, the one-window
twin, a window at a time. The int8 CPU graph has no mask: its batches are
clips of one length (the engine's windows all are). The windows of a span,
0.75 s apart, share one fbank (`chained_features`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import messages
from ..companions import Companion
from ..families.campplus import FAMILY, SpeakerSection
from ..frontend import FrontendConfig, fbank, num_fbank_frames
from ..int8_cpu import fast_int8
from ..manifest import Manifest
from ..options import LoadOptions
from ..sessions import GraphSpec, OnnxGraphs, pick_provider

MIN_FRAMES = 3  # the graph's least input length; a shorter clip is padded (its mask says so)
# Windows per CPU run: 16 costs no more CPU than 32 and adds 18 MB less to a transcription's peak (a run's
# arena blocks go back after it; the 5-minute file with speakers, 2026-11-29: +72 against +90 MB).
BATCH = 16
BATCH_TWIN = "embedder_batch"  # the fixed policy's graph where the folder has it (else "embedder_fixed")
INT8 = "embedder_int8"  # the dynamic graph's int8 rewrite (export/campplus/int8.py), where the folder has it


def embedder_spec(manifest: Manifest) -> GraphSpec:
    """The embedder's sessions: the real-length graph, and at the window length under the fixed policy its static
    twin - the batch twin where the folder has one (`OnnxGraphs` opens only that one there)."""
    return GraphSpec("embedder", fixed_role=BATCH_TWIN if manifest.file(BATCH_TWIN) else "embedder_fixed")


def clip_features(samples: np.ndarray, cfg: FrontendConfig, subtract_mean: bool = True) -> np.ndarray:
    """fbank [T, n_mels] of one clip of [-1, 1] samples, minus its mean per bin (funasr's extract_feature)."""
    feats = fbank(samples, cfg)
    return _mean_removed(feats) if subtract_mean else feats


def _mean_removed(feats: np.ndarray) -> np.ndarray:
    """fbank rows minus their mean per bin (funasr's extract_feature)."""
    return feats - feats.mean(axis=0, keepdims=True, dtype=np.float64).astype(np.float32) if len(feats) else feats


def chained_features(
    clips: Sequence[np.ndarray], cfg: FrontendConfig, step: int, subtract_mean: bool = True
) -> list[np.ndarray]:
    """`clip_features` of each clip, with one fbank per chain: a clip as long as the one before whose samples are
    that one's from `step` on (the engine's windows of a span, 0.75 s apart) takes the chain's frames from there.

    A frame reads only its own 25 ms, so the shared rows are the numbers `fbank` gives the clip alone, bit for
    bit (tests/engine/test_speakers_int8.py); half of each window's frames were computed twice, and the fbank
    was a third of a window's time. Each clip's mean is its own. A step of no whole number of frames shares
    nothing.

    Args:
        clips: 16 kHz mono [-1, 1] samples, in the order they were cut.
        cfg: The model's frontend.
        step: Samples from one window's start to the next's.
        subtract_mean: Subtract each clip's mean per bin.
    """
    rows = [num_fbank_frames(len(c), cfg) for c in clips]
    shift = round(cfg.sample_rate * cfg.frame_shift_ms / 1000)
    hop = step // shift if step > 0 and step % shift == 0 else 0
    chains: list[list[int]] = []
    for i, clip in enumerate(clips):
        prev = clips[i - 1] if i else clip
        follows = (
            i > 0
            and hop > 0
            and len(clip) == len(prev) > step
            and num_fbank_frames(len(prev) + step, cfg) == rows[i - 1] + hop
            and np.array_equal(clip[: len(clip) - step], prev[step:])
        )
        if follows:
            chains[-1].append(i)
        else:
            chains.append([i])
    out: list[np.ndarray] = []
    for chain in chains:
        first = clips[chain[0]]
        joined = np.concatenate([first, *(clips[i][len(first) - step :] for i in chain[1:])]) if chain[1:] else first
        feats = fbank(joined, cfg)
        for j, i in enumerate(chain):
            rows_i = feats[j * hop : j * hop + rows[i]]
            out.append(_mean_removed(rows_i) if subtract_mean else rows_i)
    return out


class SpeakerModel(Companion):
    """A loaded speaker model: `embed(clips)` gives one embedding per clip (`companions.Companion`: the folder
    checked and verified, its graphs on the shared session layer with the recogniser's `LoadOptions`).

    Args:
        folder: A model folder of family `campplus`.
        options: How to load it (the engine passes its own); None: the defaults. A GPU that fails falls back
            to the CPU; `policy` "fixed" pads every window to the warmed shape, "dynamic" runs real lengths.
        check_hashes: Verify every file's SHA-256 before loading (sizes are always checked).
        int8: Run the folder's int8 CPU graph: None (the default) where it is faster - the folder has one,
            the CPU provider runs real lengths, and this CPU sums int8 products in int32 (`int8_cpu`: VNNI,
            AMX) -, True wherever the folder has one and the CPU runs real lengths, False never.
        choices: `LoadOptions` fields set on top of `options` (a script's `provider="cpu"`, `threads=2`).
    """

    FAMILY = FAMILY
    REFUSED = messages.NOT_A_SPEAKER_MODEL
    section: SpeakerSection

    def prepare(self) -> None:
        self.frontend: FrontendConfig = self.manifest.frontend
        self.window_seconds = self.manifest.window_seconds
        self.shift_seconds = self.section.shift_seconds
        # The folder says which static twin the fixed policy runs, so the specs are this folder's.
        self.SPECS = (embedder_spec(self.manifest),)  # type: ignore[misc]
        # Windows per fixed-policy run: the batch twin's, else one (a folder made before it).
        self.fixed_batch = self.section.fixed_batch if self.manifest.file(BATCH_TWIN) else 1

    def __init__(
        self,
        folder: str | os.PathLike[str],
        options: LoadOptions | None = None,
        *,
        int8: bool | None = None,
        **kwargs: Any,
    ) -> None:
        self.int8_choice = int8
        super().__init__(folder, options, **kwargs)

    def open_graphs(self, options: LoadOptions) -> None:
        """The int8 graph in place of the fp32 one where `int8` (the constructor's) chooses it."""
        cpu = pick_provider(options.provider) == "cpu" and options.policy in (None, "dynamic")
        wanted = fast_int8() if self.int8_choice is None else self.int8_choice
        self.role = INT8 if cpu and wanted and self.manifest.file(INT8) is not None else "embedder"
        if self.role == INT8:
            self.SPECS = (GraphSpec(INT8),)  # type: ignore[misc]
        super().open_graphs(options)

    @property
    def identity(self) -> str:
        """Which weights embed: the embedder graph's SHA-256 (from the manifest). Voice prints of
        different identities are not comparable; the int8 graph's are the fp32 graph's (the same weights,
        embeddings at cosine 0.999 on speech: tests/engine/test_speakers_int8.py), so one library serves both."""
        return self.manifest.files["embedder"].sha256

    @property
    def window_samples(self) -> int:
        return round(self.window_seconds * self.frontend.sample_rate)

    def warm_up(self, graphs: OnnxGraphs) -> None:
        feats = np.zeros((self.manifest.window_frames, self.section.feat_dim), np.float32)
        if graphs.policy == "fixed":
            self._run_fixed([feats], graphs)
        else:
            self._run_batch(feats[None], np.ones((1, len(feats)), np.float32), graphs)

    def _run_fixed(self, clips: Sequence[np.ndarray], graphs: OnnxGraphs | None = None) -> np.ndarray:
        """The fixed policy: up to `fixed_batch` clips [T, feat_dim] in the warmed shape, each zero-padded to the
        window with its mask, the rows past the last clip zero and fully masked; their embeddings [N, E]."""
        graphs = graphs or self.graphs
        window = graphs.bucket_for(max(len(c) for c in clips))  # the window length; a longer clip: a coded error
        if self.fixed_batch == 1:  # the one-window twin: `OnnxGraphs` pads the clip and adds its mask
            (clip,) = clips
            return graphs.run("embedder", {"feats": clip}, len(clip), bucket=window, record=False)[0][:1]
        feats = np.zeros((self.fixed_batch, window, self.section.feat_dim), np.float32)
        mask = np.zeros((self.fixed_batch, window), np.float32)
        for j, clip in enumerate(clips):
            feats[j, : len(clip)], mask[j, : len(clip)] = clip, 1.0
        other = {"feats": feats, "mask": mask}
        return graphs.run("embedder", {}, window, other=other, bucket=window, record=False)[0][: len(clips)]

    def _run_batch(self, feats: np.ndarray, mask: np.ndarray, graphs: OnnxGraphs | None = None) -> np.ndarray:
        """The dynamic policy: a batch [N, T, feat_dim] with its own mask [N, T], at that length."""
        graphs = graphs or self.graphs
        other = {"feats": feats, "mask": mask}
        size = feats.shape[0] * feats.shape[1]  # a batch of windows: its arena blocks go back after it, as a long run's
        return graphs.run(self.role, {}, 0, other=other, bucket=None, record=False, size=size)[0]

    def embed_features(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of feature clips ([T, feat_dim] each, 1 to window_frames rows)."""
        out = np.zeros((len(clips), self.section.embedding_size), np.float32)
        if self.graphs.policy == "fixed":
            for start in range(0, len(clips), self.fixed_batch):
                out[start : start + self.fixed_batch] = self._run_fixed(clips[start : start + self.fixed_batch])
            return out
        # Longest first, BATCH at a time, each batch padded to its longest clip: the mask keeps a padded clip's
        # embedding its own (tests/engine/test_speakers.py), and windows are mostly full length, so little is padded.
        # The int8 graph takes whole clips only (export/campplus/int8.py: no mask), so there a batch is clips of one
        # length - the engine's windows all are: a short span's audio is zero-padded to the window.
        order = sorted(range(len(clips)), key=lambda i: -len(clips[i]))
        batches = [order[start : start + BATCH] for start in range(0, len(order), BATCH)]
        if self.role == INT8:
            lengths = sorted({len(c) for c in clips}, reverse=True)
            same = [[i for i in order if len(clips[i]) == n] for n in lengths]
            batches = [group[start : start + BATCH] for group in same for start in range(0, len(group), BATCH)]
        for batch in batches:
            # The int8 graph runs any length from 1 frame (nothing is padded for it to mask); a clip of no frames
            # (under 25 ms of audio) runs as one silent frame, as it has nothing to say either way.
            width = max(len(clips[batch[0]]), 1 if self.role == INT8 else MIN_FRAMES)
            feats = np.zeros((len(batch), width, self.section.feat_dim), np.float32)
            mask = np.zeros((len(batch), width), np.float32)
            for j, i in enumerate(batch):
                feats[j, : len(clips[i])], mask[j, : len(clips[i])] = clips[i], 1.0
            out[batch] = self._run_batch(feats, mask)
        return out

    def embed(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of audio clips (16 kHz mono [-1, 1] samples, at most one window each)."""
        step = round(self.shift_seconds * self.frontend.sample_rate)
        return self.embed_features(chained_features(clips, self.frontend, step, self.section.subtract_mean))
