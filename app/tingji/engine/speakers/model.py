"""A CAM++ speaker model folder: its manifest section and the embedding of audio windows.

The features are funasr's for CAM++: Kaldi fbank (80 bins, povey window) of
the [-1, 1] samples, minus the clip's own mean per bin. The graph takes them
zero-padded with a 0/1 frame mask; on the CPU each group of equal-length
windows is one batch at its real length, under the fixed policy (DirectML)
every window is padded to the one warmed window shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import ModelError
from .. import messages
from ..families.base import LoadOptions
from ..frontend import FrontendConfig, fbank
from ..manifest import load_manifest, verify
from ..schema import Invalid, entry
from ..sessions import GraphSpec, OnnxGraphs

FAMILY = "campplus"
INPUTS = ("feats", "mask")
OUTPUTS = ("embedding",)
WINDOW_SECONDS = 1.5  # FunASR's sv_chunk: 1.5 s windows every 0.75 s
SHIFT_SECONDS = 0.75
MIN_FRAMES = 3  # the graph's least input length; a shorter clip is padded (its mask says so)
BATCH = 32  # windows per CPU run: enough to amortise a run's overhead, small enough for the arena


@dataclass(frozen=True, kw_only=True)
class SpeakerSection:
    """The `campplus` section of a speaker model's manifest (written as `asdict`, read strictly by `schema`).

    Args:
        precision: of the graph (always fp32, see export/campplus/convert.py).
        feat_dim: fbank bins the graph takes.
        embedding_size: the embedding's width.
        inputs: the graph's input names (features, mask).
        outputs: its output name.
        shift_seconds: step between windows (the window itself is the manifest's window_seconds).
        subtract_mean: each clip's features minus their mean per bin, as funasr's extract_feature.
    """

    precision: str = entry(choices=("fp32",))
    feat_dim: int = entry(min=1)
    embedding_size: int = entry(min=1)
    inputs: tuple[str, ...] = entry(INPUTS, choices=INPUTS)
    outputs: tuple[str, ...] = entry(OUTPUTS, choices=OUTPUTS)
    shift_seconds: float = entry(SHIFT_SECONDS, above=0)
    subtract_mean: bool = True

    def check_frontend(self, frontend: FrontendConfig) -> None:
        """The graph must take the rows the front-end makes: plain fbank, feat_dim bins (`schema.Invalid`)."""
        if self.feat_dim != frontend.feature_dim:
            raise Invalid(
                "feat_dim",
                messages.KEY_MISMATCH,
                value=self.feat_dim,
                other="frontend.n_mels × frontend.lfr_m",
                expected=frontend.feature_dim,
            )


def clip_features(samples: np.ndarray, cfg: FrontendConfig, subtract_mean: bool = True) -> np.ndarray:
    """fbank [T, n_mels] of one clip of [-1, 1] samples, minus its mean per bin (funasr's extract_feature)."""
    feats = fbank(samples, cfg)
    if subtract_mean and len(feats):
        feats = feats - feats.mean(axis=0, keepdims=True, dtype=np.float64).astype(np.float32)
    return feats


class SpeakerModel:
    """A loaded speaker model: `embed(clips)` gives one embedding per clip.

    Args:
        folder: a model folder of family `campplus`.
        provider: ONNX Runtime provider (auto, dml, cuda, cpu); a GPU that fails falls back to the CPU.
        device: DirectML's graphics adapter (`engine.adapters.find`); None: the high-performance one.
        policy: "fixed" (pad every window to the warmed shape) or "dynamic"; None: by provider.
        threads: ONNX Runtime intra-op threads; None: the engine's default.
        exact: ONNX Runtime's basic graph optimisations only (no fusions that reorder float sums).
        check_hashes: verify every file's SHA-256 before loading (sizes are always checked).
        graph_cache: where ONNX Runtime's optimised graphs are kept; None: none.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        provider: str = "auto",
        device: str | None = None,
        policy: str | None = None,
        threads: int | None = None,
        exact: bool = False,
        check_hashes: bool = True,
        graph_cache: str | Path | None = None,
    ) -> None:
        manifest = load_manifest(folder)
        if manifest.family != FAMILY:
            raise ModelError(messages.NOT_A_SPEAKER_MODEL, folder=manifest.folder, family=manifest.family)
        verify(manifest, check_hashes=check_hashes)
        self.manifest = manifest
        self.section: SpeakerSection = manifest.section
        self.frontend: FrontendConfig = manifest.frontend
        self.window_seconds = manifest.window_seconds
        self.shift_seconds = self.section.shift_seconds
        options = LoadOptions(
            provider=provider,
            device=device,
            policy=policy,
            threads=threads,
            exact=exact,
            graph_cache=graph_cache and Path(graph_cache),
        )
        self.graphs = OnnxGraphs(
            manifest, [GraphSpec("embedder", fixed_role="embedder_fixed")], options, warm=self._warm_up
        )
        self.warnings = self.graphs.warnings

    @property
    def provider(self) -> str:
        return self.graphs.provider

    @property
    def identity(self) -> str:
        """Which weights embed: the embedder graph's SHA-256 (from the manifest). Voice prints of
        different identities are not comparable."""
        return self.manifest.files["embedder"].sha256

    @property
    def window_samples(self) -> int:
        return round(self.window_seconds * self.frontend.sample_rate)

    def _warm_up(self, graphs: OnnxGraphs) -> None:
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
        by_length: dict[int, list[int]] = {}
        for i, clip in enumerate(clips):
            by_length.setdefault(len(clip), []).append(i)
        for length, rows in by_length.items():
            width = max(length, MIN_FRAMES)  # a shorter clip is padded: the mask keeps it exact
            for start in range(0, len(rows), BATCH):
                batch = rows[start : start + BATCH]
                feats = np.zeros((len(batch), width, self.section.feat_dim), np.float32)
                mask = np.zeros((len(batch), width), np.float32)
                for j, i in enumerate(batch):
                    feats[j, :length], mask[j, :length] = clips[i], 1.0
                out[batch] = self._run_batch(feats, mask)
        return out

    def embed(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of audio clips (16 kHz mono [-1, 1] samples, at most one window each)."""
        return self.embed_features([clip_features(c, self.frontend, self.section.subtract_mean) for c in clips])

    def close(self) -> None:
        self.graphs = None  # type: ignore[assignment]
