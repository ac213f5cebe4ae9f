"""Fun-ASR-Nano's audio side in PyTorch, written to export cleanly for DirectML.

The parameter names are those of the official `model.pt` (`audio_encoder.*`,
`audio_adaptor.*`, `ctc_decoder.*`, `ctc.ctc_lo.*`), so the official state dict
loads with `strict=True`. The arithmetic follows funasr's reference modules
(SenseVoiceEncoderSmall, the `Transformer` adaptor, CTC) operation for
operation, so the exported graph agrees with the reference to float rounding.

What differs is how padding and shapes are expressed, because a DirectML
session only stays fast when it sees one fixed input shape:

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

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

# Added to attention scores of padded keys. exp(-1e9 - max) underflows to
# exactly 0 in fp32, so padded keys contribute nothing (as the reference's
# masked_fill(-inf) + masked_fill(0) does), and it stays finite, so a graph
# converted to fp16 saturates instead of producing NaN.
MASK_BIAS = -1.0e9


@dataclass(frozen=True)
class AudioDims:
    """The sizes that define a Fun-ASR-Nano audio side (read from config.yaml)."""

    input_size: int = 560
    encoder_dim: int = 512
    encoder_heads: int = 4
    encoder_ffn: int = 2048
    encoder_blocks: int = 50  # encoders0 (1) + encoders (blocks - 1)
    tp_blocks: int = 20
    kernel_size: int = 11
    sanm_shift: int = 0
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


def _layer_norm(x: torch.Tensor, norm: nn.LayerNorm) -> torch.Tensor:
    """LayerNorm computed in fp32 whatever the input dtype (fp16 overflows in the variance)."""
    out = F.layer_norm(x.float(), norm.normalized_shape, norm.weight.float(), norm.bias.float(), norm.eps)
    return out.to(x.dtype)


class FeedForward(nn.Module):
    """Position-wise FFN with ReLU (reference: PositionwiseFeedForward)."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.w_1 = nn.Linear(dim, hidden)
        self.w_2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(torch.relu(self.w_1(x)))


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

    def __init__(self, in_dim: int, dim: int, heads: int, ffn: int, kernel_size: int, sanm_shift: int) -> None:
        super().__init__()
        self.self_attn = SanmAttention(heads, in_dim, dim, kernel_size, sanm_shift)
        self.feed_forward = FeedForward(dim, ffn)
        self.norm1 = nn.LayerNorm(in_dim)
        self.norm2 = nn.LayerNorm(dim)
        self.residual = in_dim == dim

    def forward(self, x: torch.Tensor, keep: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        att = self.self_attn(_layer_norm(x, self.norm1), keep, bias)
        # The first layer changes width (560 -> 512) and so has no residual.
        x = x + att if self.residual else att
        return x + self.feed_forward(_layer_norm(x, self.norm2))


class SenseVoiceEncoder(nn.Module):
    """SenseVoiceEncoderSmall: scaled input + sinusoidal positions, SAN-M stacks."""

    def __init__(self, d: AudioDims) -> None:
        super().__init__()
        self.dim = d.encoder_dim
        args = (d.encoder_heads, d.encoder_ffn, d.kernel_size, d.sanm_shift)
        self.encoders0 = nn.ModuleList([SanmLayer(d.input_size, d.encoder_dim, *args)])
        self.encoders = nn.ModuleList(
            [SanmLayer(d.encoder_dim, d.encoder_dim, *args) for _ in range(d.encoder_blocks - 1)]
        )
        self.tp_encoders = nn.ModuleList(
            [SanmLayer(d.encoder_dim, d.encoder_dim, *args) for _ in range(d.tp_blocks)]
        )
        self.after_norm = nn.LayerNorm(d.encoder_dim)
        self.tp_norm = nn.LayerNorm(d.encoder_dim)
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
        x = x * self.dim ** 0.5
        x = x + self.positions(x)
        for layer in self.encoders0:
            x = layer(x, keep, bias)
        for layer in self.encoders:
            x = layer(x, keep, bias)
        x = _layer_norm(x, self.after_norm)
        for layer in self.tp_encoders:
            x = layer(x, keep, bias)
        return _layer_norm(x, self.tp_norm)


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
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        attn = torch.softmax(scores.float() + bias, dim=-1).to(v.dtype)
        return self.linear_out(torch.matmul(attn, v).transpose(1, 2).flatten(2))


class TransformerLayer(nn.Module):
    """Pre-norm transformer layer, LayerNorm eps 1e-12 (reference: transformer EncoderLayer)."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(heads, dim)
        self.feed_forward = FeedForward(dim, dim // 4)
        self.norm1 = nn.LayerNorm(dim, eps=1e-12)
        self.norm2 = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(_layer_norm(x, self.norm1), bias)
        return x + self.feed_forward(_layer_norm(x, self.norm2))


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


class CtcProjection(nn.Module):
    """Holds `ctc_lo` so the state dict key is `ctc.ctc_lo.*` as in the checkpoint."""

    def __init__(self, dim: int, vocab: int) -> None:
        super().__init__()
        self.ctc_lo = nn.Linear(dim, vocab)


def _masks(mask: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """From a [B, T] 0/1 mask: a [B, T, 1] multiplier (model dtype) and a [B, 1, 1, T] fp32 attention bias."""
    mask = mask.float()
    keep = mask.to(dtype).unsqueeze(-1)
    bias = ((1.0 - mask) * MASK_BIAS).unsqueeze(1).unsqueeze(1)
    return keep, bias


class EncoderGraph(nn.Module):
    """What `encoder.onnx` computes: (lfr_feat, mask) -> (enc_output, adaptor_output)."""

    def __init__(self, d: AudioDims) -> None:
        super().__init__()
        self.audio_encoder = SenseVoiceEncoder(d)
        self.audio_adaptor = Adaptor(d.encoder_dim, d.adaptor_ffn, d.llm_dim, d.adaptor_layers, d.adaptor_heads)

    def forward(self, lfr_feat: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keep, bias = _masks(mask, lfr_feat.dtype)
        enc = self.audio_encoder(lfr_feat * keep, keep, bias) * keep
        adapted = self.audio_adaptor(enc, bias) * keep
        return enc, adapted


class CtcGraph(nn.Module):
    """What `ctc.onnx` computes: (enc_output, mask) -> top-k CTC log-probabilities per frame.

    The full 60k-way distribution per 60 ms frame would be ~240 MB per minute;
    greedy CTC and timestamp alignment only need the best few entries.
    """

    def __init__(self, d: AudioDims, top_k: int = 4) -> None:
        super().__init__()
        self.top_k = top_k
        self.ctc_decoder = Adaptor(d.encoder_dim, d.ctc_ffn, d.encoder_dim, d.ctc_layers, d.ctc_heads)
        self.ctc = CtcProjection(d.encoder_dim, d.ctc_vocab)

    def forward(self, enc_output: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keep, bias = _masks(mask, enc_output.dtype)
        hidden = self.ctc_decoder(enc_output * keep, bias)
        logp = torch.log_softmax(self.ctc.ctc_lo(hidden).float(), dim=-1)
        values, indices = torch.topk(logp, self.top_k, dim=-1)
        return values, indices


class HalfPrecision(nn.Module):
    """Runs a graph module in fp16 behind fp32 inputs and outputs (what callers always feed)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner.half()

    def forward(self, features: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        outs = self.inner(features.half(), mask)
        return tuple(o.float() if o.is_floating_point() else o for o in outs)


def split_state(state: dict[str, torch.Tensor], prefixes: tuple[str, ...]) -> dict[str, torch.Tensor]:
    """The entries of a checkpoint state dict that belong to the given top-level modules."""
    return {k: v for k, v in state.items() if k.split(".", 1)[0] in prefixes}
