"""Qwen3-ASR's audio tower in PyTorch, written for static shapes (one graph for every length).

The parameter names are those of the official checkpoint under
`thinker.audio_tower.` (`conv2d1`, `layers.N.self_attn.q_proj`, `proj1`, ...),
so the official tensors load with `strict=True`. The arithmetic is the
reference's (transformers' `Qwen3ASREncoder` + `Qwen3ASRMultiModalProjector`):

* the mel [T, 128] is cut into chunks of 100 frames (1 s); each chunk goes
  through three stride-2 3x3 convolutions with GELU on its own, giving 13
  tokens, and gets sinusoidal positions 0..12 of its own;
* the last chunk is usually partial: the reference zero-pads its mel and
  keeps ceil(valid / 8) of its tokens;
* a pre-LN transformer attends within windows of 8 chunks (104 tokens), the
  packed valid tokens cut into runs of 104;
* LayerNorm, then Linear-GELU-Linear to the LLM's width.

How the shapes are expressed (the seeds' lessons for DirectML): chunks are a
batch dimension; the attention windows are formed by zero-padding the token
rows to whole windows and unflattening, with an additive bias on the keys
that are padding - no index_select of valid rows, no data-dependent
lengths, no `arange(T).view(...)`. Only the partial last chunk can hold
invalid tokens, and they come after every valid one, so the valid output
rows are always a prefix; the graph zeroes the rest. Projections and the
feed-forward run on the real token rows only; only attention sees the
window padding. The 0/1 frame mask decides everything, so a zero-padded
fixed 60 s input gives exactly the unpadded result.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..layers import MASK_BIAS, layer_norm
from .dims import CONV_PARTS, EncoderDims


def gelu(x: torch.Tensor) -> torch.Tensor:
    """The exact (erf) GELU, written in the operand order ONNX Runtime fuses into one Gelu kernel.

    `F.gelu` exports as x * (0.5 * (1 + erf(x / sqrt 2))), which ORT's GeluFusion does not match,
    so every activation ran as five element-wise passes (Div, Erf, Add, Mul, Mul), most of them on the
    first convolution's 480-channel output (benchmarks/README.md#smaller-choices).
    (x * 0.5) * (1 + erf(x / sqrt 2)) is the same function and is fused.
    """
    return (x * 0.5) * (1.0 + torch.erf(x / math.sqrt(2.0)))


def sinusoids(length: int, channels: int, max_timescale: float = 10000.0) -> torch.Tensor:
    """The reference's per-chunk position table: [sin | cos] with geometric timescales."""
    increment = math.log(max_timescale) / (channels // 2 - 1)
    inv = torch.exp(-increment * torch.arange(channels // 2).float())
    scaled = torch.arange(length)[:, None] * inv[None, :]
    return torch.cat([torch.sin(scaled), torch.cos(scaled)], dim=1)


class Attention(nn.Module):
    """Bidirectional multi-head attention over [windows, rows, D] with an additive key bias."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out_proj = nn.Linear(dim, dim)

    def split(self, x: torch.Tensor) -> torch.Tensor:
        return x.unflatten(-1, (self.heads, self.head_dim)).transpose(1, 2)

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(self.split(q), self.split(k).transpose(-2, -1)) * self.head_dim**-0.5
        weights = torch.softmax(scores.float() + bias, dim=-1).to(v.dtype)
        return torch.matmul(weights, self.split(v)).transpose(1, 2).flatten(2)


class EncoderLayer(nn.Module):
    """Pre-LN transformer layer (reference: Qwen3ASRAudioEncoderLayer), attention in windows."""

    def __init__(self, d: EncoderDims) -> None:
        super().__init__()
        self.self_attn = Attention(d.d_model, d.heads)
        self.self_attn_layer_norm = nn.LayerNorm(d.d_model)
        self.fc1 = nn.Linear(d.d_model, d.ffn)
        self.fc2 = nn.Linear(d.ffn, d.d_model)
        self.final_layer_norm = nn.LayerNorm(d.d_model)

    def forward(self, x: torch.Tensor, windows: Windows) -> torch.Tensor:
        attn = self.self_attn
        h = layer_norm(x, self.self_attn_layer_norm)
        q, k, v = (windows.split(proj(h)) for proj in (attn.q_proj, attn.k_proj, attn.v_proj))
        x = x + attn.out_proj(windows.merge(attn.attend(q, k, v, windows.bias), x))
        h = layer_norm(x, self.final_layer_norm)
        x = x + self.fc2(gelu(self.fc1(h)))
        if x.dtype == torch.float16:  # as the reference: keep fp16 activations finite
            limit = torch.finfo(torch.float16).max - 1000
            x = torch.clamp(x, min=-limit, max=limit)
        return x


class Windows:
    """Token rows [B, N, D] <-> attention windows [B * G, W, D] (zero-padded to whole windows)."""

    def __init__(self, token_mask: torch.Tensor, groups: int, window: int) -> None:
        self.groups = groups
        self.window = window
        self.pad = groups * window - token_mask.shape[1]
        keys = F.pad(token_mask, (0, self.pad)).unflatten(1, (groups, window)).flatten(0, 1)
        self.bias = ((1.0 - keys) * MASK_BIAS).unsqueeze(1).unsqueeze(1)  # [B*G, 1, 1, W]

    def split(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (0, 0, 0, self.pad)).unflatten(1, (self.groups, self.window)).flatten(0, 1)

    def merge(self, x: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        # Every size spelt out, no -1: the exporter need not divide symbolic sizes to infer one.
        batch, rows, width = like.shape
        return x.reshape(batch, self.groups * self.window, width).narrow(1, 0, rows)


class AudioTower(nn.Module):
    """What `encoder.onnx` computes: (mel [B, T, n_mels], mask [B, T]) -> audio rows [B, tokens, output_dim].

    Row i is valid where i < the reference's token count for the valid
    frames (`engine.families.qwen3_asr.encoder.num_tower_rows`); the other rows are zero.
    """

    def __init__(self, d: EncoderDims) -> None:
        super().__init__()
        self.dims = d
        ch = d.conv_channels
        self.conv2d1 = nn.Conv2d(1, ch, 3, 2, padding=1)
        self.conv2d2 = nn.Conv2d(ch, ch, 3, 2, padding=1)
        self.conv2d3 = nn.Conv2d(ch, ch, 3, 2, padding=1)
        self.conv_out = nn.Linear(ch * d.freq_bins, d.d_model, bias=False)
        self.layers = nn.ModuleList([EncoderLayer(d) for _ in range(d.layers)])
        self.ln_post = nn.LayerNorm(d.d_model)
        self.proj1 = nn.Linear(d.d_model, d.d_model)
        self.proj2 = nn.Linear(d.d_model, d.output_dim)
        self.register_buffer("positions", sinusoids(d.chunk_tokens, d.d_model), persistent=False)

    def downsample(self, x: torch.Tensor) -> torch.Tensor:
        """Chunk images [N, 1, M, F] -> [N, channels, M/8, F/8]: three stride-2 convolutions with GELU."""
        for conv in (self.conv2d1, self.conv2d2, self.conv2d3):
            x = gelu(conv(x))
        return x

    def forward(self, mel: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor]:
        d = self.dims
        size = d.chunk_frames
        batch, frames = mel.shape[0], mel.shape[1]
        chunks = (frames + size - 1) // size
        mask = F.pad(mask.float(), (0, chunks * size - frames))
        x = F.pad(mel, (0, 0, 0, chunks * size - frames)) * mask.unsqueeze(-1).to(mel.dtype)
        # [B, C*F, M] -> [B*C, 1, M, F]: each chunk an image of mel bins x frames (contiguous, so that
        # the exporter sees plain slices of it below; the graph holds no extra node for it).
        x = x.unflatten(1, (chunks, size)).flatten(0, 1).transpose(1, 2).unsqueeze(1).contiguous()
        # The first convolution's output (480 channels at half the resolution each way) is 120 times
        # the mel: 368 MB for 60 s in fp32. Run the chunks in CONV_PARTS slices, one after the other,
        # so only a slice's intermediates are alive at once (a static count of slices: no loop in the graph).
        # (Slices, not torch.split with sizes computed from B*C: DirectML gets such a Split's outputs wrong
        # when the graph runs at a pinned shorter length, tests/windows/test_dml_graphs.py.)
        step = (x.shape[0] + CONV_PARTS - 1) // CONV_PARTS
        x = torch.cat([self.downsample(x[k * step : (k + 1) * step]) for k in range(CONV_PARTS)])
        x = self.conv_out(x.permute(0, 3, 1, 2).flatten(2)) + self.positions.to(x.dtype)
        # [B*C, 13, D] -> [B, C*13, D], the sizes spelt out (not -1): the exporter's symbolic shapes would
        # otherwise carry the 32 slices' summed min/max sizes through every later op (several times slower).
        x = x.reshape(batch, chunks * d.chunk_tokens, d.d_model)
        # Token j of a chunk is valid when frame 8j is (valid frames are a prefix of the chunk).
        tokens = mask.unflatten(1, (chunks, size))[:, :, ::8].flatten(1)  # [B, C*13]
        windows = Windows(tokens, (chunks + d.window_chunks - 1) // d.window_chunks, d.window_chunks * d.chunk_tokens)
        for layer in self.layers:
            x = layer(x, windows)
        x = layer_norm(x, self.ln_post)
        rows = self.proj2(gelu(self.proj1(x)))
        return (rows * tokens.unsqueeze(-1).to(rows.dtype),)
