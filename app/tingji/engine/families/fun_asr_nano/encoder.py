"""Fun-ASR-Nano's audio encoder + adaptor and its CTC head, as ONNX graphs.

The encoder graph maps LFR features [T, 560] and a frame mask to encoder
rows [T, 512] (what the CTC head reads) and adaptor rows [T, 1024] (what the
LLM reads). Provider choice, fallback and the fixed-shape policy are the
shared `engine.sessions` machinery; this module only knows the graphs'
names and shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....errors import TingjiError
from ... import messages
from ...manifest import Manifest
from ...options import LoadOptions
from ...sessions import GraphSpec, OnnxGraphs
from .section import NanoSection

# Short fixed bucket for dictation under the fixed policy: 10 s of audio.
SHORT_BUCKET_FRAMES = 167


def num_adaptor_rows(n_lfr: int) -> int:
    """Adaptor rows (LLM audio placeholder tokens) for `n_lfr` LFR frames.

    This is funasr's Fun-ASR-Nano ``data_load_speech`` arithmetic, kept
    literally (two stride-2 convolutions, then one more halving) including
    Python's floor division. It comes to ceil(n_lfr / 8), so 0 frames give 0
    tokens and a 60 s window (1000 LFR frames) gives 125.
    """
    if n_lfr < 0:
        raise ValueError(f"n_lfr must be >= 0, got {n_lfr}")
    olens = 1 + (n_lfr - 3 + 2 * 1) // 2
    olens = 1 + (olens - 3 + 2 * 1) // 2
    return (olens - 1) // 2 + 1


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

    def __init__(self, manifest: Manifest, options: LoadOptions = LoadOptions()) -> None:
        section: NanoSection = manifest.section
        self.feature_dim = section.encoder.input_size
        specs = [
            GraphSpec("encoder", fixed_role="encoder_fixed", dim_names=section.encoder.dim_names),
            # A CTC graph without a mask (peer releases) must see the real length.
            GraphSpec("ctc", padded=section.ctc.mask, dim_names=section.ctc.dim_names),
        ]
        self.graphs = OnnxGraphs(manifest, specs, options, short_bucket=SHORT_BUCKET_FRAMES, warm=self._warm_up)

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
