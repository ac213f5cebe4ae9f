"""FunASR's CT-Transformer punctuation model in PyTorch: token embedding, SAN-M encoder, a mark per token.

The parameter names are those of the official `model.pt` (`embed.weight`,
`encoder.*`, `decoder.*`), so its state dict loads with `strict=True`. The
encoder is funasr's SANMEncoder (`input_layer: pe`, LayerNorm epsilon
1e-12) - the shared `sanm.SanmEncoder` without a tp stack. The graph takes
token ids and a 0/1 mask and gives the best mark class per token (funasr
takes the top-1 of the decoder's scores); it runs on the CPU at the real
length, so the mask only keeps batches of different lengths exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..layers import masks
from ..sanm import SanmDims, SanmEncoder


@dataclass(frozen=True)
class PuncDims(SanmDims):
    """Sizes of a CT-Transformer (config.yaml's model_conf and encoder_conf, cross-checked with model.pt)."""

    input_size: int = 256  # embed_unit
    encoder_dim: int = 256  # att_unit
    encoder_heads: int = 8
    encoder_ffn: int = 1024
    encoder_blocks: int = 4
    tp_blocks: int = 0
    norm_eps: float = 1e-12
    vocab: int = 272727
    classes: int = 6


class CtTransformer(nn.Module):
    """The checkpoint's modules under their names."""

    def __init__(self, d: PuncDims) -> None:
        super().__init__()
        self.dims = d
        self.embed = nn.Embedding(d.vocab, d.input_size)
        self.encoder = SanmEncoder(d)
        self.decoder = nn.Linear(d.encoder_dim, d.classes)


class PunctuationGraph(nn.Module):
    """(ids [B,N] int64, mask [B,N]) -> the best mark class per token [B,N] int64."""

    def __init__(self, model: CtTransformer) -> None:
        super().__init__()
        self.embed = model.embed
        self.encoder = model.encoder
        self.decoder = model.decoder

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        dtype = self.embed.weight.dtype
        keep, bias = masks(mask, dtype)
        hidden = self.encoder(self.embed(ids) * keep, keep, bias)
        return self.decoder(hidden).float().argmax(dim=-1)
