"""A CAM++ speaker model folder: its manifest section and the embedding of audio windows.

The features are funasr's for CAM++: Kaldi fbank (80 bins, povey window) of
the [-1, 1] samples, minus the clip's own mean per bin. The graph takes them
zero-padded with a 0/1 frame mask; on the CPU each group of equal-length
windows is one batch at its real length, under the fixed policy (DirectML)
every window is padded to the one warmed window shape.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ModelError
from .. import messages
from ..frontend import FrontendConfig, fbank
from ..manifest import load_manifest, verify
from ..sessions import GraphSpec, OnnxGraphs

FAMILY = "campplus"
INPUTS = ("feats", "mask")
OUTPUTS = ("embedding",)
WINDOW_SECONDS = 1.5  # FunASR's sv_chunk: 1.5 s windows every 0.75 s
SHIFT_SECONDS = 0.75
MIN_FRAMES = 3  # the graph's least input length; a shorter clip is padded (its mask says so)
BATCH = 32  # windows per CPU run: enough to amortise a run's overhead, small enough for the arena


@dataclass(frozen=True)
class SpeakerSection:
    """The `campplus` section of a speaker model's manifest (written by `to_dict`, read strictly by `read`).

    Args:
        precision: of the graph (always fp32, see export/campplus/convert.py).
        feat_dim: fbank bins the graph takes.
        embedding_size: the embedding's width.
        inputs: the graph's input names (features, mask).
        outputs: its output name.
        shift_seconds: step between windows (the window itself is the manifest's window_seconds).
        subtract_mean: each clip's features minus their mean per bin, as funasr's extract_feature.
    """

    precision: str
    feat_dim: int
    embedding_size: int
    inputs: tuple[str, ...] = INPUTS
    outputs: tuple[str, ...] = OUTPUTS
    shift_seconds: float = SHIFT_SECONDS
    subtract_mean: bool = True

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}

    @classmethod
    def read(cls, raw: Any, path: Path) -> SpeakerSection:
        """The section as the converter wrote it; anything else is one ModelError naming `path`."""

        def bad(problem: str) -> ModelError:
            return ModelError(messages.SPEAKER_SECTION, path=path, problem=problem)

        if not isinstance(raw, dict):
            raise bad("the section is not an object")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(raw) - set(fields))
        if unknown:
            raise bad(f"{unknown[0]} is not a key Tingji knows")
        values: dict[str, Any] = {}
        for name, f in fields.items():
            if name not in raw:
                if f.default is dataclasses.MISSING:
                    raise bad(f"{name} is missing")
                continue
            value = raw[name]
            kind = type(f.default) if f.default is not dataclasses.MISSING else None
            if name in ("inputs", "outputs"):
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise bad(f"{name} must be a list of names")
                value = tuple(value)
            elif name == "precision":
                if value != "fp32":
                    raise bad(f"precision {value!r} is not fp32")
            elif name in ("feat_dim", "embedding_size"):
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise bad(f"{name} must be a positive whole number")
            elif kind is float:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                    raise bad(f"{name} must be a positive number")
                value = float(value)
            elif kind is bool and not isinstance(value, bool):
                raise bad(f"{name} must be true or false")
            values[name] = value
        section = cls(**values)
        if section.inputs != INPUTS or section.outputs != OUTPUTS:
            raise bad(f"the graph's inputs and outputs must be {list(INPUTS)} and {list(OUTPUTS)}")
        return section


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
        path = manifest.folder / "manifest.json"
        self.manifest = manifest
        self.section = SpeakerSection.read(manifest.section, path)
        try:
            self.frontend = FrontendConfig.from_dict(manifest.frontend)
        except (TypeError, ValueError) as exc:
            raise ModelError(messages.SPEAKER_SECTION, path=path, problem=f"frontend: {exc}") from None
        if self.frontend.n_mels != self.section.feat_dim or (self.frontend.lfr_m, self.frontend.lfr_n) != (1, 1):
            raise ModelError(messages.SPEAKER_SECTION, path=path, problem="frontend does not give feat_dim fbank rows")
        self.window_seconds = manifest.window_seconds
        self.shift_seconds = self.section.shift_seconds
        self.graphs = OnnxGraphs(
            manifest,
            [GraphSpec("embedder", fixed_role="embedder_fixed")],
            provider,
            window_frames=manifest.window_frames,
            policy=policy,
            threads=threads,
            exact=exact,
            warm=self._warm_up,
            graph_cache=graph_cache,
        )
        self.warnings = self.graphs.warnings

    @property
    def provider(self) -> str:
        return self.graphs.provider

    @property
    def window_samples(self) -> int:
        return round(self.window_seconds * self.frontend.sample_rate)

    def _warm_up(self, graphs: OnnxGraphs) -> None:
        feats = np.zeros((1, self.manifest.window_frames, self.section.feat_dim), np.float32)
        self._run(feats, np.ones(feats.shape[:2], np.float32), graphs)

    def _run(self, feats: np.ndarray, mask: np.ndarray, graphs: OnnxGraphs | None = None) -> np.ndarray:
        graphs = graphs or self.graphs
        bucket = graphs.window_frames if graphs.policy == "fixed" else None
        return graphs.run("embedder", {}, 0, other={"feats": feats, "mask": mask}, bucket=bucket, record=False)[0]

    def embed_features(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of feature clips ([T, feat_dim] each, 1 to window_frames rows)."""
        out = np.zeros((len(clips), self.section.embedding_size), np.float32)
        limit = self.manifest.window_frames
        if self.graphs.policy == "fixed":
            for i, clip in enumerate(clips):
                feats = np.zeros((1, limit, self.section.feat_dim), np.float32)
                mask = np.zeros((1, limit), np.float32)
                feats[0, : len(clip)], mask[0, : len(clip)] = clip, 1.0
                out[i] = self._run(feats, mask)[0]
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
                out[batch] = self._run(feats, mask)
        return out

    def embed(self, clips: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings [N, E] of audio clips (16 kHz mono [-1, 1] samples, at most one window each)."""
        return self.embed_features([clip_features(c, self.frontend, self.section.subtract_mean) for c in clips])

    def close(self) -> None:
        self.graphs = None  # type: ignore[assignment]
