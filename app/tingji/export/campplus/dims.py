"""CAM++'s sizes and the tensors they give, without torch (`modules` builds the graph from them)."""

from __future__ import annotations

from dataclasses import dataclass

BLOCKS = ((12, 3, 1), (24, 3, 2), (16, 3, 2))  # (layers, kernel, dilation) of the three dense blocks


@dataclass(frozen=True)
class CamPlusDims:
    """The sizes config.yaml's `model_conf` sets (the defaults are the release's)."""

    feat_dim: int = 80
    embedding_size: int = 192
    growth_rate: int = 32
    bn_size: int = 4
    init_channels: int = 128
    m_channels: int = 32  # FCM's width (fixed in the reference)


def _norm(prefix: str, channels: int, affine: bool = True) -> dict[str, tuple[int, ...]]:
    """A batch norm's tensors: affine terms, running statistics and the batch counter (a scalar)."""
    affine_terms = {f"{prefix}.weight": (channels,), f"{prefix}.bias": (channels,)} if affine else {}
    return {
        **affine_terms,
        f"{prefix}.running_mean": (channels,),
        f"{prefix}.running_var": (channels,),
        f"{prefix}.num_batches_tracked": (),
    }


def expected_shapes(d: CamPlusDims) -> dict[str, tuple[int, ...]]:
    """Every tensor of `modules.CamPlusGraph(d)`'s state dict and its shape, in its order."""
    m = d.m_channels
    shapes: dict[str, tuple[int, ...]] = {"head.conv1.weight": (m, 1, 3, 3), **_norm("head.bn1", m)}
    for layer in ("layer1", "layer2"):
        for i, stride in enumerate((2, 1)):
            p = f"head.{layer}.{i}"
            shapes.update({f"{p}.conv1.weight": (m, m, 3, 3), **_norm(f"{p}.bn1", m)})
            shapes.update({f"{p}.conv2.weight": (m, m, 3, 3), **_norm(f"{p}.bn2", m)})
            if stride != 1:
                shapes.update({f"{p}.shortcut.0.weight": (m, m, 1, 1), **_norm(f"{p}.shortcut.1", m)})
    shapes.update({"head.conv2.weight": (m, m, 3, 3), **_norm("head.bn2", m)})
    channels = d.init_channels
    shapes["xvector.tdnn.linear.weight"] = (channels, m * (d.feat_dim // 8), 5)
    shapes.update(_norm("xvector.tdnn.nonlinear.batchnorm", channels))
    growth, bn_channels = d.growth_rate, d.bn_size * d.growth_rate
    for b, (layers, kernel, _dilation) in enumerate(BLOCKS, 1):
        for i in range(layers):
            p = f"xvector.block{b}.tdnnd{i + 1}"
            cin = channels + i * growth
            shapes.update(_norm(f"{p}.nonlinear1.batchnorm", cin))
            shapes[f"{p}.linear1.weight"] = (bn_channels, cin, 1)
            shapes.update(_norm(f"{p}.nonlinear2.batchnorm", bn_channels))
            shapes.update(
                {
                    f"{p}.cam_layer.linear_local.weight": (growth, bn_channels, kernel),
                    f"{p}.cam_layer.linear1.weight": (bn_channels // 2, bn_channels, 1),
                    f"{p}.cam_layer.linear1.bias": (bn_channels // 2,),
                    f"{p}.cam_layer.linear2.weight": (growth, bn_channels // 2, 1),
                    f"{p}.cam_layer.linear2.bias": (growth,),
                }
            )
        channels += layers * growth
        shapes.update(_norm(f"xvector.transit{b}.nonlinear.batchnorm", channels))
        shapes[f"xvector.transit{b}.linear.weight"] = (channels // 2, channels, 1)
        channels //= 2
    shapes.update(_norm("xvector.out_nonlinear.batchnorm", channels))
    shapes["xvector.dense.linear.weight"] = (d.embedding_size, channels * 2, 1)
    shapes.update(_norm("xvector.dense.nonlinear.batchnorm", d.embedding_size, affine=False))
    return shapes


NORM_EPS = 1e-5  # every batch norm's epsilon (torch's default, as the reference)


def folded_norms(d: CamPlusDims) -> list[tuple[str, str]]:
    """(convolution, batch norm) of every batch norm that reads only a convolution's output.

    torch's ONNX exporter merges each of these into its convolution (EvalPeepholeONNX); the
    convolutions of the dense layers' `nonlinear1` and of the first two transits feed a concatenation
    too, so their norms stay. `convert.fold_norms` merges them itself, before the export.
    """
    pairs = [("head.conv1", "head.bn1")]
    for layer in ("layer1", "layer2"):
        for i, stride in enumerate((2, 1)):
            p = f"head.{layer}.{i}"
            pairs += [(f"{p}.conv1", f"{p}.bn1"), (f"{p}.conv2", f"{p}.bn2")]
            if stride != 1:
                pairs.append((f"{p}.shortcut.0", f"{p}.shortcut.1"))
    pairs += [("head.conv2", "head.bn2"), ("xvector.tdnn.linear", "xvector.tdnn.nonlinear.batchnorm")]
    for b, (layers, _kernel, _dilation) in enumerate(BLOCKS, 1):
        for i in range(layers):
            p = f"xvector.block{b}.tdnnd{i + 1}"
            pairs.append((f"{p}.linear1", f"{p}.nonlinear2.batchnorm"))
    pairs.append((f"xvector.transit{len(BLOCKS)}.linear", "xvector.out_nonlinear.batchnorm"))
    pairs.append(("xvector.dense.linear", "xvector.dense.nonlinear.batchnorm"))
    return pairs
