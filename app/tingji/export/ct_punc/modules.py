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

import torch
from torch import nn

from ..layers import masks
from ..sanm import SanmEncoder
from .dims import PuncDims


class CtTransformer(nn.Module):
    """The checkpoint's modules under their names."""

    def __init__(self, d: PuncDims) -> None:
        super().__init__()
        self.dims = d
        self.embed = nn.Embedding(d.vocab, d.input_size)
        self.encoder = SanmEncoder(d)
        self.decoder = nn.Linear(d.encoder_dim, d.classes)


class Int8Rows(nn.Module):
    """An embedding table stored as int8 rows with one scale each (symmetric, 127 levels).

    The release's table is 272727 x 256 floats, 279 MB; as int8 it is 70 MB
    (a lookup dequantises only the rows it reads), which keeps Paraformer
    and its punctuation model together under 700 MB.
    """

    def __init__(self, table: torch.Tensor) -> None:
        super().__init__()
        scale = table.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127.0
        self.register_buffer("rows", torch.round(table / scale).to(torch.int8))
        self.register_buffer("scale", scale.float())

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.rows[ids].float() * self.scale[ids]


class PunctuationGraph(nn.Module):
    """(ids [B,N] int64, mask [B,N]) -> the best mark class per token [B,N] int64.

    `int8_embedding`: the token table as int8 rows (`Int8Rows`), for the int8 export.
    """

    def __init__(self, model: CtTransformer, int8_embedding: bool = False) -> None:
        super().__init__()
        self.embed = Int8Rows(model.embed.weight.detach()) if int8_embedding else model.embed
        self.encoder = model.encoder
        self.decoder = model.decoder

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        keep, bias = masks(mask, torch.float32)
        hidden = self.encoder(self.embed(ids) * keep, keep, bias)
        return self.decoder(hidden).float().argmax(dim=-1)
