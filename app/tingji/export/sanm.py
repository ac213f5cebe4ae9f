"""The SAN-M audio encoder (funasr's SenseVoiceEncoderSmall / SANMEncoder) in PyTorch, masked for fixed shapes.

Fun-ASR-Nano and SenseVoice-Small share this encoder: 50 + 20 layers of
self-attention with an FSMN memory block. Paraformer's SANMEncoder is the
same without the 20 `tp_encoders` (it ends at `after_norm`) and with
funasr's LayerNorm epsilon of 1e-12 instead of torch's 1e-5. The parameter
names are those of the official checkpoints (`encoders0.*`, `encoders.*`,
`tp_encoders.*`), so their state dicts load with `strict=True`; the
arithmetic follows the reference operation for operation.

What differs from the reference is how padding and shapes are expressed,
because a DirectML session only stays fast when it sees one fixed input
shape:

* every frame carries a 0/1 mask; attention adds a large negative bias to
  padded keys (no boolean masked_fill), the FSMN convolution sees its input
  zeroed on padding, and outputs are zeroed on padding, so results on valid
  frames do not depend on how much padding follows;
* positions come from a cumulative sum over the input, never from
  `arange(T).view(...)`; heads are split with `unflatten`/`flatten`, never a
  `view` whose sizes are computed from the input;
* nothing branches or slices on tensor values.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .layers import FeedForward, layer_norm
from .sanm_dims import SanmDims


class SanmAttention(nn.Module):
    """Self-attention plus an FSMN memory block (reference: MultiHeadedAttentionSANM)."""

    def __init__(self, heads: int, in_dim: int, dim: int, kernel_size: int, sanm_shift: int) -> None:
        super().__init__()
        self.heads = heads
        self.d_k = dim // heads
        self.linear_q_k_v = nn.Linear(in_dim, dim * 3)
        self.linear_out = nn.Linear(dim, dim)
        self.fsmn_block = nn.Conv1d(dim, dim, kernel_size, stride=1, padding=0, groups=dim, bias=False)
        left = (kernel_size - 1) // 2 + sanm_shift
        self.pad = (left, kernel_size - 1 - left)

    def forward(self, x: torch.Tensor, keep: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        # keep: [B, T, 1] 0/1; bias: [B, 1, 1, T] 0 / MASK_BIAS
        dim = self.heads * self.d_k
        q, k, v = torch.split(self.linear_q_k_v(x), dim, dim=-1)
        q_h = q.unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        k_h = k.unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        v_h = v.unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)

        # FSMN memory: the convolution must see exact zeros on padding, or the
        # last valid frames would mix in whatever the padding holds.
        v_masked = v * keep
        mem = self.fsmn_block(F.pad(v_masked.transpose(1, 2), self.pad)).transpose(1, 2)
        mem = (mem + v_masked) * keep

        scores = torch.matmul(q_h * self.d_k ** (-0.5), k_h.transpose(-2, -1))
        attn = torch.softmax(scores.float() + bias, dim=-1).to(v_h.dtype)  # fp32 softmax in fp16 graphs
        ctx = torch.matmul(attn, v_h).transpose(1, 2).flatten(2)
        return self.linear_out(ctx) + mem


class SanmLayer(nn.Module):
    """Pre-norm SAN-M encoder layer (reference: EncoderLayerSANM, eval mode)."""

    def __init__(
        self, in_dim: int, dim: int, heads: int, ffn: int, kernel_size: int, sanm_shift: int, eps: float = 1e-5
    ) -> None:
        super().__init__()
        self.self_attn = SanmAttention(heads, in_dim, dim, kernel_size, sanm_shift)
        self.feed_forward = FeedForward(dim, ffn)
        self.norm1 = nn.LayerNorm(in_dim, eps=eps)
        self.norm2 = nn.LayerNorm(dim, eps=eps)
        self.residual = in_dim == dim

    def forward(self, x: torch.Tensor, keep: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        att = self.self_attn(layer_norm(x, self.norm1), keep, bias)
        # The first layer changes width (560 -> 512) and so has no residual.
        x = x + att if self.residual else att
        return x + self.feed_forward(layer_norm(x, self.norm2))


class SanmEncoder(nn.Module):
    """SenseVoiceEncoderSmall: scaled input + sinusoidal positions, SAN-M stacks (no tp stack: SANMEncoder)."""

    def __init__(self, d: SanmDims) -> None:
        super().__init__()
        dim = self.dim = d.encoder_dim
        args = (d.encoder_heads, d.encoder_ffn, d.kernel_size, d.sanm_shift, d.norm_eps)
        self.encoders0 = nn.ModuleList([SanmLayer(d.input_size, dim, *args)])
        self.encoders = nn.ModuleList([SanmLayer(dim, dim, *args) for _ in range(d.encoder_blocks - 1)])
        # (registration order kept as the checkpoints list their tensors: encoders, tp_encoders, norms)
        self.tp_encoders = nn.ModuleList([SanmLayer(dim, dim, *args) for _ in range(d.tp_blocks)])
        self.after_norm = nn.LayerNorm(dim, eps=d.norm_eps)
        self.tp_norm = nn.LayerNorm(dim, eps=d.norm_eps) if d.tp_blocks else None
        # The reference builds the timescales in fp32 exactly like this; a
        # buffer keeps the same values without any arange in the graph.
        depth = d.input_size
        increment = torch.log(torch.tensor([10000.0])) / (depth / 2 - 1)
        inv = torch.exp(torch.arange(depth / 2).float() * (-increment))
        self.register_buffer("inv_timescales", inv.reshape(1, 1, -1), persistent=False)

    def positions(self, x: torch.Tensor) -> torch.Tensor:
        """Sinusoids for positions 1..T, derived from the input's own shape (always in fp32)."""
        pos = torch.cumsum(torch.ones_like(x[:, :, :1], dtype=torch.float32), dim=1)  # [B, T, 1] = 1, 2, ...
        scaled = pos * self.inv_timescales
        return torch.cat([torch.sin(scaled), torch.cos(scaled)], dim=2).to(x.dtype)

    def forward(self, x: torch.Tensor, keep: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x * self.dim**0.5
        x = x + self.positions(x)
        for layer in self.encoders0:
            x = layer(x, keep, bias)
        for layer in self.encoders:
            x = layer(x, keep, bias)
        x = layer_norm(x, self.after_norm)
        if self.tp_norm is None:  # Paraformer's SANMEncoder ends here
            return x
        for layer in self.tp_encoders:
            x = layer(x, keep, bias)
        return layer_norm(x, self.tp_norm)
