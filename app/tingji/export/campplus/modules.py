"""CAM++ (funasr's `CAMPPlus`, output level "segment") in PyTorch, with a frame mask.

Parameter names are the release's (`head.*`, `xvector.*`), so its state dict
loads as it is. What differs from the reference is only where padding could
leak into valid frames: the input is zero-padded to a fixed length and a 0/1
mask says which frames are real. Every convolution that looks across frames
sees zeros past the last real frame (as the reference's own zero padding at
the clip's end), and every average over time - the context-aware masking's
mean and its 100-frame segment means, the statistics pooling's mean and
standard deviation - counts only real frames. The embedding of a clip then
does not depend on how much padding follows it.

Only the released configuration, `batchnorm-relu` non-linearities, is built.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .dims import BLOCKS, CamPlusDims

SEG_LEN = 100  # frames per segment of the context-aware masking's segment pooling
_EPS = 1e-6  # a floor under frame counts: a fully padded row or segment gives 0, not NaN


def _bn_relu(channels: int) -> nn.Sequential:
    seq = nn.Sequential()
    seq.add_module("batchnorm", nn.BatchNorm1d(channels))
    seq.add_module("relu", nn.ReLU())
    return seq


def masked_mean(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """Mean over the last axis of `x` [B, C, T] where the mask `m` [B, 1, T] is 1."""
    return (x * m).sum(-1, keepdim=True) / m.sum(-1, keepdim=True).clamp(min=_EPS)


class ResBlock(nn.Module):
    """FCM's residual block (the reference's BasicResBlock); stride applies to the frequency axis."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=(stride, 1), padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=(stride, 1), bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x))) * m
        out = self.bn2(self.conv2(out)) + self.shortcut(x)
        return F.relu(out) * m


class FCM(nn.Module):
    """The 2-D front: [B, F, T] -> [B, m_channels * F / 8, T]."""

    def __init__(self, m_channels: int, feat_dim: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, m_channels, 3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(m_channels)
        self.layer1 = nn.ModuleList([ResBlock(m_channels, m_channels, 2), ResBlock(m_channels, m_channels, 1)])
        self.layer2 = nn.ModuleList([ResBlock(m_channels, m_channels, 2), ResBlock(m_channels, m_channels, 1)])
        self.conv2 = nn.Conv2d(m_channels, m_channels, 3, stride=(2, 1), padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(m_channels)
        self.out_channels = m_channels * (feat_dim // 8)

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        m2 = m.unsqueeze(1)  # [B, 1, 1, T]
        out = F.relu(self.bn1(self.conv1(x.unsqueeze(1) * m2))) * m2
        for block in (*self.layer1, *self.layer2):
            out = block(out, m2)
        out = F.relu(self.bn2(self.conv2(out)))
        return out.flatten(1, 2)


class TDNNLayer(nn.Module):
    def __init__(self, cin: int, cout: int, kernel: int, stride: int) -> None:
        super().__init__()
        self.linear = nn.Conv1d(cin, cout, kernel, stride=stride, padding=(kernel - 1) // 2, bias=False)
        self.nonlinear = _bn_relu(cout)

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return self.nonlinear(self.linear(x * m))


class CAMLayer(nn.Module):
    """Context-aware masking: a local convolution scaled by a gate from utterance and segment means."""

    def __init__(self, channels: int, cout: int, kernel: int, dilation: int) -> None:
        super().__init__()
        pad = (kernel - 1) // 2 * dilation
        self.linear_local = nn.Conv1d(channels, cout, kernel, padding=pad, dilation=dilation, bias=False)
        self.linear1 = nn.Conv1d(channels, channels // 2, 1)
        self.relu = nn.ReLU()
        self.linear2 = nn.Conv1d(channels // 2, cout, 1)

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        x = x * m
        y = self.linear_local(x)
        context = masked_mean(x, m) + self.segment_means(x, m)
        gate = torch.sigmoid(self.linear2(self.relu(self.linear1(context))))
        return y * gate

    @staticmethod
    def segment_means(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        """Each frame gets the mean of the real frames of its 100-frame segment (counted from frame 0).

        The reference average-pools the real-length input with ceil_mode, which
        divides the last, partial segment by its real length. Here `x` (zero on
        padding) and the mask are padded to whole segments and summed per
        segment: their ratio is the mean of the segment's real frames. An expand
        repeats each mean over its segment's frames. Plain Pad, ReduceSum and
        Expand, because DirectML refuses a ceil_mode AveragePool and a nearest
        Resize; in the fixed twin every shape folds, so it is fully static. Sums
        run at memory speed where gathers from running sums took a fifth of the
        graph's time (issue 45).
        """
        frames = x.shape[-1]
        tail = (SEG_LEN - frames % SEG_LEN) % SEG_LEN
        xs, ms = F.pad(x, (0, tail)), F.pad(m, (0, tail))
        b, c, n = xs.shape[0], xs.shape[1], xs.shape[-1] // SEG_LEN
        sums = xs.reshape(b, c, n, SEG_LEN).sum(-1)
        counts = ms.reshape(ms.shape[0], ms.shape[1], n, SEG_LEN).sum(-1)
        means = sums / counts.clamp(min=_EPS)
        spread = means.unsqueeze(-1).expand(b, c, n, SEG_LEN).reshape(b, c, n * SEG_LEN)
        return spread[..., :frames]


class DenseTDNNLayer(nn.Module):
    def __init__(self, cin: int, growth: int, bn_channels: int, kernel: int, dilation: int) -> None:
        super().__init__()
        self.nonlinear1 = _bn_relu(cin)
        self.linear1 = nn.Conv1d(cin, bn_channels, 1, bias=False)
        self.nonlinear2 = _bn_relu(bn_channels)
        self.cam_layer = CAMLayer(bn_channels, growth, kernel, dilation)

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return self.cam_layer(self.nonlinear2(self.linear1(self.nonlinear1(x))), m)


class DenseBlock(nn.ModuleDict):
    def __init__(self, layers: int, cin: int, growth: int, bn_channels: int, kernel: int, dilation: int) -> None:
        super().__init__(
            {
                f"tdnnd{i + 1}": DenseTDNNLayer(cin + i * growth, growth, bn_channels, kernel, dilation)
                for i in range(layers)
            }
        )

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        for layer in self.values():
            x = torch.cat([x, layer(x, m)], dim=1)
        return x


class TransitLayer(nn.Module):
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.nonlinear = _bn_relu(cin)
        self.linear = nn.Conv1d(cin, cout, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(self.nonlinear(x))


class DenseLayer(nn.Module):
    """The embedding layer: a linear map of the pooled statistics and a batch norm without affine."""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.linear = nn.Conv1d(cin, cout, 1, bias=False)
        self.nonlinear = nn.Sequential()
        self.nonlinear.add_module("batchnorm", nn.BatchNorm1d(cout, affine=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.nonlinear(self.linear(x.unsqueeze(-1))).squeeze(-1)


class XVector(nn.Module):
    def __init__(self, d: CamPlusDims, channels: int) -> None:
        super().__init__()
        self.tdnn = TDNNLayer(channels, d.init_channels, 5, stride=2)
        self.register_buffer("pick", torch.tensor([[[0.0, 0.0, 1.0, 0.0, 0.0]]]), persistent=False)
        channels = d.init_channels
        for i, (layers, kernel, dilation) in enumerate(BLOCKS):
            block = DenseBlock(layers, channels, d.growth_rate, d.bn_size * d.growth_rate, kernel, dilation)
            self.add_module(f"block{i + 1}", block)
            channels += layers * d.growth_rate
            self.add_module(f"transit{i + 1}", TransitLayer(channels, channels // 2))
            channels //= 2
        self.out_nonlinear = _bn_relu(channels)
        self.dense = DenseLayer(channels * 2, d.embedding_size)

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        x = self.tdnn(x, m)
        # The stride-2 TDNN keeps frames 0, 2, 4, ...: m[..., ::2], taken by a convolution shaped
        # like the TDNN's, so torch.export sees one length formula for both (slicing and pooling
        # made it specialise the frame count to the example's).
        m = F.conv1d(m, self.pick, stride=2, padding=2)
        for i in range(len(BLOCKS)):
            x = getattr(self, f"transit{i + 1}")(getattr(self, f"block{i + 1}")(x, m))
        x = self.out_nonlinear(x)
        n = m.sum(-1).clamp(min=1.0)
        mean = (x * m).sum(-1) / n
        var = (((x - mean.unsqueeze(-1)) * m) ** 2).sum(-1) / (n - 1.0).clamp(min=1.0)  # unbiased, as torch.std
        return self.dense(torch.cat([mean, var.sqrt()], dim=-1))


class CamPlusGraph(nn.Module):
    """fbank features [B, T, feat_dim] (each clip's mean already subtracted) + mask [B, T] -> embeddings [B, E]."""

    def __init__(self, d: CamPlusDims) -> None:
        super().__init__()
        self.head = FCM(d.m_channels, d.feat_dim)
        self.xvector = XVector(d, self.head.out_channels)

    def forward(self, feats: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        m = mask.unsqueeze(1)  # [B, 1, T]
        x = self.head(feats.transpose(1, 2), m)
        return self.xvector(x, m)
