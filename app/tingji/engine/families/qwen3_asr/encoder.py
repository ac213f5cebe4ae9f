"""Qwen3-ASR's audio tower as an ONNX graph: log-mel frames in, the LLM's audio rows out.

The graph takes the mel at any length plus a 0/1 frame mask and returns its
rows with the valid ones first (`engine.mel.num_audio_tokens` of them), so
the shared `engine.sessions` machinery can pad it to a fixed DirectML shape
without changing the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ....errors import TingjiError
from ... import messages
from ...manifest import Manifest
from ...mel import num_audio_tokens
from ...sessions import GraphSpec, OnnxGraphs

# Short fixed bucket for dictation under the fixed policy: 10 s of mel frames.
SHORT_BUCKET_FRAMES = 1000


class Qwen3Encoder:
    """Runs `encoder` (or its fixed twin) of a Qwen3-ASR model folder."""

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
        info = manifest.section.get("encoder") or {}
        self.n_mels = int(info.get("n_mels", 128))
        self.chunk_frames = int(info.get("chunk_frames", 100))
        self.graphs = OnnxGraphs(
            manifest,
            [GraphSpec("encoder", fixed_role="encoder_fixed")],
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

    def _warm_up(self, graphs: OnnxGraphs) -> None:
        """One run per session, so kernel compilation happens at load, not on the user's first file."""
        mel = np.zeros((self.chunk_frames, self.n_mels), np.float32)
        for bucket in graphs.buckets if graphs.policy == "fixed" else (None,):
            graphs.run("encoder", {"mel": mel}, len(mel), bucket=bucket, record=False)

    def encode(self, mel: np.ndarray) -> np.ndarray:
        """Audio rows [tokens, llm_dim] for one window's log-mel [frames, n_mels]."""
        frames = mel.shape[0]
        if frames == 0:
            raise TingjiError(messages.EMPTY_WINDOW)
        (rows,) = self.graphs.run("encoder", {"mel": mel}, frames)
        return np.ascontiguousarray(rows[0, : num_audio_tokens(frames, self.chunk_frames)], np.float32)
