"""Fun-ASR-Nano's audio-side sizes, without torch (`modules` builds the graphs from them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..sanm_dims import SanmDims


@dataclass(frozen=True)
class AudioDims(SanmDims):
    """The sizes that define a Fun-ASR-Nano audio side (read from config.yaml): the encoder's, then these."""

    llm_dim: int = 1024
    adaptor_ffn: int = 2048
    adaptor_layers: int = 2
    adaptor_heads: int = 8
    ctc_layers: int = 5
    ctc_ffn: int = 2048
    ctc_heads: int = 8
    ctc_vocab: int = 60515  # 0 when the checkpoint has no CTC head

    @property
    def has_ctc(self) -> bool:
        return self.ctc_vocab > 0 and self.ctc_layers >= 0
