"""Qwen3-ASR's audio tower as an ONNX graph: log-mel frames in, the LLM's audio rows out.

The graph takes the mel at any length plus a 0/1 frame mask and returns its
rows with the valid ones first (`num_tower_rows` of them), so
the shared `engine.sessions` machinery can pad it to a fixed DirectML shape
without changing the result.
"""

from __future__ import annotations

import numpy as np

from ....errors import TingjiError
from ... import messages
from ...manifest import Manifest
from ...options import LoadOptions
from ...sessions import GraphSpec, OnnxGraphs
from .section import Qwen3EncoderInfo

# Short fixed bucket for dictation under the fixed policy: 10 s of mel frames.
SHORT_BUCKET_FRAMES = 1000


def num_tower_rows(frames: int, chunk_frames: int = 100) -> int:
    """Audio rows the encoder gives for `frames` valid frames: 13 per full 100-frame chunk,
    ceil(rest / 8) for the partial last one (three stride-2 convolutions)."""
    per_chunk = -(-chunk_frames // 8)
    return frames // chunk_frames * per_chunk + -(-(frames % chunk_frames) // 8)


class Qwen3Encoder:
    """Runs `encoder` (or its fixed twin) of a Qwen3-ASR model folder."""

    def __init__(self, manifest: Manifest, options: LoadOptions = LoadOptions()) -> None:
        info: Qwen3EncoderInfo = manifest.section.encoder
        self.n_mels = info.n_mels
        self.chunk_frames = info.chunk_frames
        spec = GraphSpec("encoder", fixed_role="encoder_fixed")
        self.graphs = OnnxGraphs(manifest, [spec], options, short_bucket=SHORT_BUCKET_FRAMES, warm=self._warm_up)

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
        return np.ascontiguousarray(rows[0, : num_tower_rows(frames, self.chunk_frames)], np.float32)
