"""Fun-ASR-Nano's audio encoder + adaptor and its CTC head, as ONNX graphs.

The encoder graph maps LFR features [T, 560] and a frame mask to encoder
rows [T, 512] (what the CTC head reads) and adaptor rows [T, 1024] (what the
LLM reads). Provider choice, fallback and the fixed-shape policy are the
shared `engine.sessions` machinery; this module only knows the graphs'
names and shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ....errors import TingjiError
from ... import messages
from ...manifest import Manifest
from ...sessions import GraphSpec, OnnxGraphs

# Short fixed bucket for dictation under the fixed policy: 10 s of audio.
SHORT_BUCKET_FRAMES = 167


@dataclass
class EncoderOutput:
    enc: np.ndarray  # [T, encoder_dim]
    adaptor: np.ndarray  # [T, llm_dim]
    frames: int


class NanoEncoder:
    """Runs `encoder` (and `ctc`) of a Fun-ASR-Nano model folder.

    `graphs` is the shared session machinery: its `provider`, `policy`,
    `buckets`, `warnings` and `shapes_seen` say how the graphs actually run.
    """

    def __init__(
        self,
        manifest: Manifest,
        provider: str = "auto",
        *,
        policy: str | None = None,
        buckets: Sequence[int] | None = None,
        threads: int | None = None,
        warm: bool = True,
        exact: bool = False,
        graph_cache: Path | None = None,
        device: str | None = None,
    ) -> None:
        section = manifest.section
        self.feature_dim = int((section.get("encoder") or {}).get("input_size", 560))
        ctc = section.get("ctc") or {}
        specs = [
            GraphSpec(
                "encoder",
                fixed_role="encoder_fixed",
                dim_names=tuple((section.get("encoder") or {}).get("dim_names") or ("batch", "frames")),
            ),
            # A CTC graph without a mask (peer releases) must see the real length.
            GraphSpec(
                "ctc",
                padded=ctc.get("mask", True) is not False,
                dim_names=tuple(ctc.get("dim_names") or ("batch", "frames")),
            ),
        ]
        self.graphs = OnnxGraphs(
            manifest,
            specs,
            provider,
            window_frames=manifest.window_frames,
            short_bucket=SHORT_BUCKET_FRAMES,
            policy=policy,
            buckets=buckets,
            threads=threads,
            exact=exact,
            warm=self._warm_up if warm else None,
            graph_cache=graph_cache,
            device=device,
        )

    @property
    def has_ctc(self) -> bool:
        return self.graphs.has("ctc")

    def _warm_up(self, graphs: OnnxGraphs) -> None:
        """One run per session, so kernel compilation happens at load, not on the user's first file."""
        for bucket in graphs.buckets if graphs.policy == "fixed" else (None,):
            feats = np.zeros((8, self.feature_dim), np.float32)
            enc, _ = graphs.run("encoder", {"lfr_feat": feats}, 8, bucket=bucket, record=False)
            if graphs.has("ctc"):
                graphs.run("ctc", {"enc_output": enc[0, :8]}, 8, bucket=bucket, record=False)

    def encode(self, feats: np.ndarray) -> EncoderOutput:
        """Encoder and adaptor rows for one window's LFR features [T, 560]."""
        t = feats.shape[0]
        if t == 0:
            raise TingjiError(messages.EMPTY_WINDOW)
        enc, adaptor = self.graphs.run("encoder", {"lfr_feat": feats}, t)
        return EncoderOutput(
            enc=np.asarray(enc[0, :t], np.float32), adaptor=np.asarray(adaptor[0, :t], np.float32), frames=t
        )

    def ctc(self, enc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Top-k CTC log-probs and ids per valid frame: ([T, k], [T, k])."""
        t = enc.shape[0]
        values, ids = self.graphs.run("ctc", {"enc_output": enc}, t)
        return np.asarray(values[0, :t], np.float32), ids[0, :t]
