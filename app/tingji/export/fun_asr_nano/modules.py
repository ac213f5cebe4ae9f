"""Fun-ASR-Nano's audio side in PyTorch: the SAN-M encoder, the adaptor and the CTC head.

The parameter names are those of the official `model.pt` (`audio_encoder.*`,
`audio_adaptor.*`, `ctc_decoder.*`, `ctc.ctc_lo.*`), so the official state dict
loads with `strict=True`. The arithmetic follows funasr's reference modules
(SenseVoiceEncoderSmall, the `Transformer` adaptor, CTC) operation for
operation; padding and shapes are expressed as `export/sanm.py` explains, so
the graphs run at one fixed shape on DirectML.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..layers import CtcProjection, FeedForward, SlicedProjection, layer_norm, masks
from ..sanm import SanmEncoder
from .dims import AudioDims


class MultiHeadAttention(nn.Module):
    """Plain multi-head self-attention (reference: transformer MultiHeadedAttention)."""

    def __init__(self, heads: int, dim: int) -> None:
        super().__init__()
        self.heads = heads
        self.d_k = dim // heads
        self.linear_q = nn.Linear(dim, dim)
        self.linear_k = nn.Linear(dim, dim)
        self.linear_v = nn.Linear(dim, dim)
        self.linear_out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        q = self.linear_q(x).unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        k = self.linear_k(x).unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        v = self.linear_v(x).unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        # One head at a time: a 60 s window's scores are [1000, 1000] floats (4 MB) per head, and
        # all eight heads at once, with the masked copy and the softmax, were the largest tensors
        # the encoder and CTC graphs held (~96 MB). Same arithmetic per head.
        heads = []
        for h in range(self.heads):
            scores = torch.matmul(q[:, h], k[:, h].transpose(-2, -1)) / math.sqrt(self.d_k)
            attn = torch.softmax(scores.float() + bias[:, 0], dim=-1).to(v.dtype)
            heads.append(torch.matmul(attn, v[:, h]))
        return self.linear_out(torch.stack(heads, 2).flatten(2))


class TransformerLayer(nn.Module):
    """Pre-norm transformer layer, LayerNorm eps 1e-12 (reference: transformer EncoderLayer)."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(heads, dim)
        self.feed_forward = FeedForward(dim, dim // 4)
        self.norm1 = nn.LayerNorm(dim, eps=1e-12)
        self.norm2 = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(layer_norm(x, self.norm1), bias)
        return x + self.feed_forward(layer_norm(x, self.norm2))


class Adaptor(nn.Module):
    """Linear-ReLU-Linear projection then transformer layers (reference: adaptor `Transformer`).

    Only downsample_rate 1 exists in released checkpoints; the reference then
    keeps one output row per encoder frame.
    """

    def __init__(self, in_dim: int, ffn: int, out_dim: int, layers: int, heads: int) -> None:
        super().__init__()
        self.linear1 = nn.Linear(in_dim, ffn)
        self.linear2 = nn.Linear(ffn, out_dim)
        self.blocks = nn.ModuleList([TransformerLayer(out_dim, heads) for _ in range(layers)]) if layers > 0 else None

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = self.linear2(torch.relu(self.linear1(x)))
        if self.blocks is not None:
            for block in self.blocks:
                x = block(x, bias)
        return x


class EncoderGraph(nn.Module):
    """What `encoder.onnx` computes: (lfr_feat, mask) -> (enc_output, adaptor_output)."""

    def __init__(self, d: AudioDims) -> None:
        super().__init__()
        self.audio_encoder = SanmEncoder(d)
        self.audio_adaptor = Adaptor(d.encoder_dim, d.adaptor_ffn, d.llm_dim, d.adaptor_layers, d.adaptor_heads)

    def forward(self, lfr_feat: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keep, bias = masks(mask, lfr_feat.dtype)
        enc = self.audio_encoder(lfr_feat * keep, keep, bias) * keep
        adapted = self.audio_adaptor(enc, bias) * keep
        return enc, adapted


class CtcGraph(nn.Module):
    """What `ctc.onnx` computes: (enc_output, mask) -> top-k CTC log-probabilities per frame.

    The full 60k-way distribution per 60 ms frame would be ~240 MB per minute;
    greedy CTC and timestamp alignment only need the best few entries. Once
    the weights are loaded, `slice_projection` makes the graph compute the
    projection a vocabulary slice at a time (`layers.SlicedProjection`), so
    the whole distribution never exists in memory either.
    """

    def __init__(self, d: AudioDims, top_k: int = 4) -> None:
        super().__init__()
        self.top_k = top_k
        self.ctc_decoder = Adaptor(d.encoder_dim, d.ctc_ffn, d.encoder_dim, d.ctc_layers, d.ctc_heads)
        self.ctc = CtcProjection(d.encoder_dim, d.ctc_vocab)
        self.sliced: SlicedProjection | None = None

    def slice_projection(self, rows: int) -> None:
        """Compute `ctc.ctc_lo` in slices of `rows` vocabulary entries from now on (weights must be loaded)."""
        self.sliced = SlicedProjection(self.ctc.ctc_lo, rows, self.top_k)
        del self.ctc  # its weights now live in the slices; the graph must not hold them twice

    def forward(self, enc_output: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keep, bias = masks(mask, enc_output.dtype)
        hidden = self.ctc_decoder(enc_output * keep, bias)
        if self.sliced is not None:
            return self.sliced(hidden)
        logp = torch.log_softmax(self.ctc.ctc_lo(hidden).float(), dim=-1)
        values, indices = torch.topk(logp, self.top_k, dim=-1)
        return values, indices
