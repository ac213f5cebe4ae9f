"""A CAM++ speaker model: the embedding of audio windows (its manifest section: `families.campplus`).

The features are funasr's for CAM++: Kaldi fbank (80 bins, povey window) of
the [-1, 1] samples, minus the clip's own mean per bin. The graph takes them
zero-padded with a 0/1 frame mask; on the CPU windows are batched longest
first, each batch padded to its longest clip (the mask keeps every clip's
embedding its own), under the fixed policy (DirectML) every window is padded
to the one warmed window shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import messages
from ..companions import Companion
from ..families.campplus import FAMILY, SpeakerSection
from ..frontend import FrontendConfig, fbank
from ..sessions import GraphSpec, OnnxGraphs

MIN_FRAMES = 3  # the graph's least input length; a shorter clip is padded (its mask says so)
BATCH = 32  # windows per CPU run: enough to amortise a run's overhead, small enough for the arena


def clip_features(samples: np.ndarray, cfg: FrontendConfig, subtract_mean: bool = True) -> np.ndarray:
    """fbank [T, n_mels] of one clip of [-1, 1] samples, minus its mean per bin (funasr's extract_feature)."""
    feats = fbank(samples, cfg)
    if subtract_mean and len(feats):
        feats = feats - feats.mean(axis=0, keepdims=True, dtype=np.float64).astype(np.float32)
    return feats


class SpeakerModel(Companion):
    """A loaded speaker model: `embed(clips)` gives one embedding per clip (`companions.Companion`: the folder
    checked and verified, its graphs on the shared session layer with the recogniser's `LoadOptions`).

    Args:
        folder: A model folder of family `campplus`.
        options: How to load it (the engine passes its own); None: the defaults. A GPU that fails falls back
            to the CPU; `policy` "fixed" pads every window to the warmed shape, "dynamic" runs real lengths.
        check_hashes: Verify every file's SHA-256 before loading (sizes are always checked).
        choices: `LoadOptions` fields set on top of `options` (a script's `provider="cpu"`, `threads=2`).
    """

    FAMILY = FAMILY
    REFUSED = messages.NOT_A_SPEAKER_MODEL
    SPECS = (GraphSpec("embedder", fixed_role="embedder_fixed"),)
    section: SpeakerSection

    def prepare(self) -> None:
        self.frontend: FrontendConfig = self.manifest.frontend
        self.window_seconds = self.manifest.window_seconds
        self.shift_seconds = self.section.shift_seconds

    @property
    def identity(self) -> str:
        """Which weights embed: the embedder graph's SHA-256 (from the manifest). Voice prints of
        different identities are not comparable."""
        return self.manifest.files["embedder"].sha256

    @property
    def window_samples(self) -> int:
        return round(self.window_seconds * self.frontend.sample_rate)

    def warm_up(self, graphs: OnnxGraphs) -> None:
        feats = np.zeros((self.manifest.window_frames, self.section.feat_dim), np.float32)
        if graphs.policy == "fixed":
            self._run_one(feats, graphs)
        else:
            self._run_batch(feats[None], np.ones((1, len(feats)), np.float32), graphs)

    def _run_one(self, clip: np.ndarray, graphs: OnnxGraphs | None = None) -> np.ndarray:
        """The fixed policy: one clip [T, feat_dim], zero-padded to the warmed window by `OnnxGraphs` (its mask)."""
        graphs = graphs or self.graphs
        return graphs.run("embedder", {"feats": clip}, len(clip), bucket=graphs.window_frames, record=False)[0][0]

    def _run_batch(self, feats: np.ndarray, mask: np.ndarray, graphs: OnnxGraphs | None = None) -> np.ndarray:
        """The dynamic policy: a batch [N, T, feat_dim] with its own mask [N, T], at that length."""
        graphs = graphs or self.graphs
        return graphs.run("embedder", {}, 0, other={"feats": feats, "mask": mask}, bucket=None, record=False)[0]

    def embed_features(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of feature clips ([T, feat_dim] each, 1 to window_frames rows)."""
        out = np.zeros((len(clips), self.section.embedding_size), np.float32)
        if self.graphs.policy == "fixed":
            for i, clip in enumerate(clips):
                out[i] = self._run_one(clip)
            return out
        # Longest first, BATCH at a time, each batch padded to its longest clip: the mask keeps a padded clip's
        # embedding its own (tests/engine/test_speakers.py), and windows are mostly full length, so little is padded.
        order = sorted(range(len(clips)), key=lambda i: -len(clips[i]))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            width = max(len(clips[batch[0]]), MIN_FRAMES)
            feats = np.zeros((len(batch), width, self.section.feat_dim), np.float32)
            mask = np.zeros((len(batch), width), np.float32)
            for j, i in enumerate(batch):
                feats[j, : len(clips[i])], mask[j, : len(clips[i])] = clips[i], 1.0
            out[batch] = self._run_batch(feats, mask)
        return out

    def embed(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of audio clips (16 kHz mono [-1, 1] samples, at most one window each)."""
        return self.embed_features([clip_features(c, self.frontend, self.section.subtract_mean) for c in clips])
