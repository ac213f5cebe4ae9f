"""Paraformer in PyTorch, split into the graphs the engine runs: encoder + CIF weights, decoder, timestamp head.

The parameter names are those of the official `model.pt` (`encoder.*`,
`predictor.*`, `decoder.*`), so its state dict loads with `strict=True`.
funasr runs the model as one `Paraformer.inference` (or
`BiCifParaformer.inference`) call; here it is cut where the shapes stop
being known in advance:

* `EncoderGraph` - speech features and a frame mask in, encoder states
  (zero on padding) and the CIF weights `alphas` out. The predictor's
  3-tap convolution reads the zero right after the last valid frame, as
  the unpadded reference reads its own zero padding there.
* integrate-and-fire turns frames into token embeddings; how many tokens
  fire depends on the values, so it runs in NumPy (`engine.families.
  paraformer.cif`), never in a graph.
* `DecoderGraph` - encoder states + frame mask and the token embeddings in
  a fixed number of slots + a slot mask in; the best token per slot and
  its log-probability out (computed as max - logsumexp, never an 8404-wide
  log-softmax leaving the graph). The FSMN memory block sees its input
  zeroed on padded slots and the cross-attention adds a large negative bias
  on padded frames, so valid slots do not depend on either padding.
* `TimestampGraph` (BiCifParaformer only) - encoder states in, the
  timestamp head's upsampled weights out: ConvTranspose1d x3, a
  bidirectional LSTM, a linear layer. It has no mask: the backward LSTM
  would start in the padding, so it only ever runs at the real length.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..layers import MASK_BIAS, layer_norm, masks
from ..sanm import SanmEncoder
from .dims import ParaformerDims


class Predictor(nn.Module):
    """CifPredictorV2's weight head, and CifPredictorV3's timestamp head when the model has one."""

    def __init__(self, d: ParaformerDims) -> None:
        super().__init__()
        dim = d.encoder_dim
        self.pad = (d.predictor_left, d.predictor_right)
        self.smooth, self.noise = d.smooth_factor, d.noise_threshold
        self.cif_conv1d = nn.Conv1d(dim, dim, d.predictor_left + d.predictor_right + 1)
        self.cif_output = nn.Linear(dim, 1)
        if d.timestamp_head:
            self.upsample_cnn = nn.ConvTranspose1d(dim, dim, d.upsample_times, d.upsample_times)
            self.blstm = nn.LSTM(dim, dim, 1, bias=True, batch_first=True, bidirectional=True)
            self.cif_output2 = nn.Linear(dim * 2, 1)
            self.smooth2, self.noise2 = d.smooth_factor2, d.noise_threshold2

    def alphas(self, enc: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        """[B, T] CIF weights of encoder states that are zero on padding (keep: [B, T, 1])."""
        hidden = torch.relu(self.cif_conv1d(F.pad(enc.transpose(1, 2), self.pad))).transpose(1, 2)
        weights = torch.sigmoid(self.cif_output(hidden).float())
        weights = torch.relu(weights * self.smooth - self.noise) * keep.float()
        return weights.squeeze(-1)

    def timestamp_alphas(self, enc: torch.Tensor) -> torch.Tensor:
        """[B, upsample x T] weights of the timestamp head, before funasr rescales them to the token count.

        `use_cif1_cnn: false` in the releases: the head reads the encoder states, not the conv output.
        """
        up = self.upsample_cnn(enc.transpose(1, 2)).transpose(1, 2)
        out, _ = self.blstm(up)
        weights = torch.sigmoid(self.cif_output2(out))
        return torch.relu(weights * self.smooth2 - self.noise2).squeeze(-1)


class DecoderFsmn(nn.Module):
    """The decoder's "self-attention": an FSMN memory over token slots (MultiHeadedAttentionSANMDecoder)."""

    def __init__(self, dim: int, kernel_size: int, sanm_shift: int) -> None:
        super().__init__()
        self.fsmn_block = nn.Conv1d(dim, dim, kernel_size, stride=1, padding=0, groups=dim, bias=False)
        left = (kernel_size - 1) // 2 + max(sanm_shift, 0)
        self.pad = (left, kernel_size - 1 - left)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        x = x * keep
        mem = self.fsmn_block(F.pad(x.transpose(1, 2), self.pad)).transpose(1, 2)
        return (mem + x) * keep


class CrossAttention(nn.Module):
    """Attention of token slots over encoder frames (MultiHeadedAttentionCrossAtt); padded frames biased away."""

    def __init__(self, heads: int, dim: int) -> None:
        super().__init__()
        self.heads, self.d_k = heads, dim // heads
        self.linear_q = nn.Linear(dim, dim)
        self.linear_k_v = nn.Linear(dim, dim * 2)
        self.linear_out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, enc: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        dim = self.heads * self.d_k
        q = self.linear_q(x).unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        k, v = torch.split(self.linear_k_v(enc), dim, dim=-1)
        k = k.unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        v = v.unflatten(-1, (self.heads, self.d_k)).transpose(1, 2)
        scores = torch.matmul(q * self.d_k ** (-0.5), k.transpose(-2, -1))
        attn = torch.softmax(scores.float() + bias, dim=-1).to(v.dtype)
        return self.linear_out(torch.matmul(attn, v).transpose(1, 2).flatten(2))


class DecoderFeedForward(nn.Module):
    """w_1 -> ReLU -> LayerNorm -> w_2 without bias (PositionwiseFeedForwardDecoderSANM)."""

    def __init__(self, dim: int, hidden: int, eps: float) -> None:
        super().__init__()
        self.w_1 = nn.Linear(dim, hidden)
        self.w_2 = nn.Linear(hidden, dim, bias=False)
        self.norm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(layer_norm(torch.relu(self.w_1(x)), self.norm))


class DecoderLayer(nn.Module):
    """DecoderLayerSANM: FFN, FSMN memory (residual from the layer input), cross-attention (residual).

    Without `self_attn`/`src_attn` (funasr's `decoders3`) it is the FFN alone, with no residual.
    """

    def __init__(self, d: ParaformerDims, full: bool) -> None:
        super().__init__()
        dim = d.encoder_dim
        self.feed_forward = DecoderFeedForward(dim, d.decoder_ffn, d.norm_eps)
        self.norm1 = nn.LayerNorm(dim, eps=d.norm_eps)
        self.full = full
        if full:
            self.self_attn = DecoderFsmn(dim, d.decoder_kernel, d.decoder_sanm_shift)
            self.src_attn = CrossAttention(d.decoder_heads, dim)
            self.norm2 = nn.LayerNorm(dim, eps=d.norm_eps)
            self.norm3 = nn.LayerNorm(dim, eps=d.norm_eps)

    def forward(self, x: torch.Tensor, keep: torch.Tensor, enc: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        t = self.feed_forward(layer_norm(x, self.norm1))
        if not self.full:
            return t
        x = x + self.self_attn(layer_norm(t, self.norm2), keep)
        return x + self.src_attn(layer_norm(x, self.norm3), enc, bias)


class Decoder(nn.Module):
    """ParaformerSANMDecoder at inference: CIF embeddings in, vocabulary logits out.

    `embed` (a token embedding table) is in the checkpoint but unused at
    inference; it is kept so the state dict loads strictly, and the export
    leaves it out because nothing reads it.
    """

    def __init__(self, d: ParaformerDims) -> None:
        super().__init__()
        dim = d.encoder_dim
        self.embed = nn.Sequential(nn.Embedding(d.vocab, dim))
        self.decoders = nn.ModuleList([DecoderLayer(d, full=True) for _ in range(d.decoder_blocks)])
        self.decoders3 = nn.ModuleList([DecoderLayer(d, full=False)])
        self.after_norm = nn.LayerNorm(dim, eps=d.norm_eps)
        self.output_layer = nn.Linear(dim, d.vocab)

    def forward(self, x: torch.Tensor, keep: torch.Tensor, enc: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x * keep
        for layer in self.decoders:
            x = layer(x, keep, enc, bias)
        for layer in self.decoders3:
            x = layer(x, keep, enc, bias)
        return self.output_layer(layer_norm(x, self.after_norm))


class Paraformer(nn.Module):
    """All the parts under their checkpoint names (the tiny checkpoints are made from its state dict)."""

    def __init__(self, d: ParaformerDims) -> None:
        super().__init__()
        self.dims = d
        self.encoder = SanmEncoder(d)
        self.predictor = Predictor(d)
        self.decoder = Decoder(d)


class EncoderGraph(nn.Module):
    """(speech [B,T,D_in], mask [B,T]) -> (encoder states [B,T,D] zero on padding, alphas [B,T]).

    Its state dict is the checkpoint's `encoder.*` and `predictor.*` tensors.
    """

    def __init__(self, d: ParaformerDims) -> None:
        super().__init__()
        self.encoder = SanmEncoder(d)
        self.predictor = Predictor(d)

    def forward(self, speech: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keep, bias = masks(mask, speech.dtype)
        enc = self.encoder(speech * keep, keep, bias) * keep
        return enc.float(), self.predictor.alphas(enc, keep)


class DecoderGraph(nn.Module):
    """(enc [B,T,D], mask [B,T], acoustic [B,N,D], slot_mask [B,N]) -> (best log-prob [B,N], best id [B,N]).

    Its state dict is the checkpoint's `decoder.*` tensors.
    """

    def __init__(self, d: ParaformerDims) -> None:
        super().__init__()
        self.decoder = Decoder(d)

    def forward(
        self, enc: torch.Tensor, mask: torch.Tensor, acoustic: torch.Tensor, slot_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        dtype = next(self.decoder.parameters()).dtype
        frame_bias = ((1.0 - mask.float()) * MASK_BIAS).unsqueeze(1).unsqueeze(1)
        keep = slot_mask.to(dtype).unsqueeze(-1)
        logits = self.decoder(acoustic.to(dtype), keep, enc.to(dtype), frame_bias).float()
        best, ids = logits.max(dim=-1)
        return best - torch.logsumexp(logits, dim=-1), ids


class TimestampGraph(nn.Module):
    """(enc [1,T,D]) -> upsampled timestamp weights [1, 3T] (BiCifParaformer; always the real length).

    Its state dict is the checkpoint's `predictor.*` tensors.
    """

    def __init__(self, d: ParaformerDims) -> None:
        super().__init__()
        self.predictor = Predictor(d)

    def forward(self, enc: torch.Tensor) -> torch.Tensor:
        return self.predictor.timestamp_alphas(enc)
