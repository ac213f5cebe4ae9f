"""PyTorch building blocks shared by the families' export definitions.

Every family's graph is written so that a DirectML session can run it at one
fixed, zero-padded shape and still give exactly the unpadded result. The
pieces that make that work are the same everywhere: a 0/1 frame mask turned
into a multiplier and an additive attention bias, LayerNorm in fp32, and an
fp16 wrapper that keeps the graph's inputs and outputs fp32.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

# Added to attention scores of padded keys. exp(-1e9 - max) underflows to
# exactly 0 in fp32, so padded keys contribute nothing (as the reference's
# masked_fill(-inf) + masked_fill(0) does), and it stays finite, so a graph
# converted to fp16 saturates instead of producing NaN.
MASK_BIAS = -1.0e9


def layer_norm(x: torch.Tensor, norm: nn.LayerNorm) -> torch.Tensor:
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


def masks(mask: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """From a [B, T] 0/1 mask: a [B, T, 1] multiplier (model dtype) and a [B, 1, 1, T] fp32 attention bias."""
    mask = mask.float()
    keep = mask.to(dtype).unsqueeze(-1)
    bias = ((1.0 - mask) * MASK_BIAS).unsqueeze(1).unsqueeze(1)
    return keep, bias


class SlicedProjection(nn.Module):
    """A vocabulary projection followed by log_softmax and top-k, computed a slice of rows at a time.

    A CTC head's projection to a large vocabulary is the largest tensor in its
    graph: [T, 60515] floats for Fun-ASR-Nano, 242 MB for a 60 s window, and
    log_softmax keeps a second one alive next to it, while the caller only
    wants the best k entries per frame. Here the projection runs in slices of
    `rows` vocabulary entries (each its own Linear, so int8 quantisation sees
    a constant weight per slice), and each slice is folded at once into a
    running result, "online softmax" style: the log-sum-exp over the slices
    so far, and the best k log-probabilities relative to it. When a slice
    raises the log-sum-exp, the kept values are shifted by the difference.

    The graph alone does not make a runtime finish one slice before it
    starts the next: every slice's projection depends only on the hidden
    states, so a scheduler may run them all first and hold every slice's
    logits at once (ONNX Runtime did, in one of two node orders of the same
    graph). So each slice reads the hidden states plus zero times the
    running result of the slices before it - the same values, exactly - which
    orders the slices in every schedule: one slice's logits and exponentials
    are the most ever held. The result equals log_softmax + topk up to float
    rounding (a few 1e-7 relative per slice).
    """

    def __init__(self, linear: nn.Linear, rows: int, top_k: int) -> None:
        super().__init__()
        vocab = linear.out_features
        starts = list(range(0, vocab, rows))
        if len(starts) > 1 and vocab - starts[-1] < top_k:  # every slice must hold k entries
            starts.pop()
        bounds = list(zip(starts, starts[1:] + [vocab]))
        self.top_k = top_k
        self.offsets = [lo for lo, _ in bounds]
        self.slices = nn.ModuleList()
        for lo, hi in bounds:
            piece = nn.Linear(linear.in_features, hi - lo, bias=linear.bias is not None)
            with torch.no_grad():
                piece.weight.copy_(linear.weight[lo:hi])
                if linear.bias is not None:
                    piece.bias.copy_(linear.bias[lo:hi])
            self.slices.append(piece)

    def forward(self, hidden: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Top-k log-probabilities (fp32) and their vocabulary ids, per row of `hidden`."""
        best_v = best_i = peak = total = lse = None
        for lo, piece in zip(self.offsets, self.slices):
            # After the first slice: + 0 * (the running result), which adds nothing but makes this
            # slice wait until the previous one is folded in (see the class docstring).
            rows = hidden if lse is None else hidden + (lse + best_v[..., :1]).to(hidden.dtype) * 0
            logits = piece(rows).float()
            top = logits.amax(-1, keepdim=True)
            sums = torch.exp(logits - top).sum(-1, keepdim=True)
            values, ids = torch.topk(logits, self.top_k, dim=-1)
            ids = ids + lo
            if lse is None:
                peak, total = top, sums
                lse = peak + torch.log(total)
                best_v, best_i = values - lse, ids
                continue
            new_peak = torch.maximum(peak, top)
            total = total * torch.exp(peak - new_peak) + sums * torch.exp(top - new_peak)
            peak = new_peak
            new_lse = peak + torch.log(total)
            kept = best_v + (lse - new_lse)
            lse = new_lse
            best_v, order = torch.topk(torch.cat([kept, values - lse], -1), self.top_k, dim=-1)
            best_i = torch.gather(torch.cat([best_i, ids], -1), -1, order)
        return best_v, best_i


class HalfPrecision(nn.Module):
    """Runs a graph module in fp16 behind fp32 inputs and outputs (what callers always feed)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner.half()

    def forward(
        self, features: torch.Tensor, mask: torch.Tensor, ids: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, ...]:
        # `ids`: an integer input some graphs take (SenseVoice's query rows), passed on as given.
        outs = self.inner(features.half(), mask) if ids is None else self.inner(features.half(), mask, ids)
        return tuple(o.float() if o.is_floating_point() else o for o in outs)


class CtcProjection(nn.Module):
    """Holds `ctc_lo` so the state dict key is `ctc.ctc_lo.*`, as funasr's CTC module names it."""

    def __init__(self, dim: int, vocab: int) -> None:
        super().__init__()
        self.ctc_lo = nn.Linear(dim, vocab)


def split_state(state: dict[str, torch.Tensor], prefixes: tuple[str, ...]) -> dict[str, torch.Tensor]:
    """The entries of a checkpoint state dict that belong to the given top-level modules."""
    return {k: v for k, v in state.items() if k.split(".", 1)[0] in prefixes}
