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


class HalfPrecision(nn.Module):
    """Runs a graph module in fp16 behind fp32 inputs and outputs (what callers always feed)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner.half()

    def forward(self, features: torch.Tensor, mask: torch.Tensor,
                ids: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
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
