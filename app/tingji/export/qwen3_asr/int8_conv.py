"""The audio tower's two big convolutions as u8 x s8 matrix products (int8 CPU graph only).

Why: at 3 s of audio the 480-channel stride-2 convolutions `conv2d2` and
`conv2d3` are half of the int8 encoder, because dynamic quantisation covers
MatMul only and ONNX Runtime's ConvInteger has no fast kernel (slower than the
fp32 Conv). Rewritten as quantise -> channels-last -> 3x3 patches ->
MatMulInteger they run on the u8 x s8 GEMM the transformer's layers already
use, several times faster (benchmarks/README.md#smaller-choices).

How, per Conv node (the graph runs the chunks in `CONV_PARTS` slices, so each
convolution appears once per slice and each is replaced where it stands):

    x [n, C, H, W] --DynamicQuantizeLinear--> u8, scale, zero point
      --Transpose--> [n, H, W, C] --Pad 1 (with the zero point)--> [n, H+2, W+2, C]
      --9 strided Slices, Concat--> patches [n, H/2, W/2, 9C]
      --MatMulInteger (s8 weights [9C, C_out])--> int32 --Cast, x scale * w_scale[c], + bias-->
      --Transpose--> y [n, C_out, H/2, W/2]

The activations are quantised before the patches are cut, so the copies move
bytes, not floats. Weights are symmetric per output channel
(`onnx_tools.int8_per_channel`), within `onnx_tools.INT8_WEIGHT_LIMIT` as every
int8 MatMul here, so the u8 x s8 products cannot saturate on AVX2 and give one
result on every x86 CPU.
Only the dynamic (CPU) graph is rewritten: the fixed DirectML graph keeps its
Conv nodes, which DirectML runs in float on the GPU.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..onnx_tools import int8_per_channel, replace_nodes

TAPS = [(i, j) for i in range(3) for j in range(3)]


def _quantised_weights(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[C_out, C_in, 3, 3] -> (s8 [9 * C_in, C_out] in tap-major patch order, per-column scales [C_out])."""
    q, scale = int8_per_channel(w)
    return q.transpose(2, 3, 1, 0).reshape(-1, w.shape[0]), scale


def _is_plain_3x3_stride2(node: onnx.NodeProto) -> bool:
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return (
        list(attrs.get("strides", [])) == [2, 2]
        and list(attrs.get("pads", [])) == [1, 1, 1, 1]
        and list(attrs.get("kernel_shape", [3, 3])) == [3, 3]
        and attrs.get("group", 1) == 1
        and list(attrs.get("dilations", [1, 1])) == [1, 1]
    )


def convs_to_int8(proto: onnx.ModelProto, inputs: dict[str, tuple[int, int]]) -> onnx.ModelProto:
    """Rewrite every Conv whose weight is named in `inputs` ({weight name: (H, W) of its input}).

    Returns the same proto, changed in place; a named weight that no Conv uses,
    or a Conv with other strides or padding, is an error of the exporter.
    """
    graph = proto.graph
    inits = {t.name: t for t in graph.initializer}
    added: list[onnx.TensorProto] = []
    prepared: dict[str, dict[str, str]] = {}
    new_nodes: list[onnx.NodeProto] = []
    for node in graph.node:
        if node.op_type != "Conv" or node.input[1] not in inputs:
            new_nodes.append(node)
            continue
        if not _is_plain_3x3_stride2(node):
            raise ValueError(f"{node.name}: not a 3x3 stride-2 convolution with padding 1")
        name = node.input[1]
        if name not in prepared:
            prepared[name] = _conv_initialisers(name, inits, node, inputs[name], added)
        new_nodes.extend(_patch_matmul(node, prepared[name], len(new_nodes)))
    if set(prepared) != set(inputs):
        raise ValueError(f"no Conv uses {sorted(set(inputs) - set(prepared))}")
    replace_nodes(graph, new_nodes, added)
    return proto


def _conv_initialisers(
    name: str,
    inits: dict[str, onnx.TensorProto],
    node: onnx.NodeProto,
    hw: tuple[int, int],
    added: list[onnx.TensorProto],
) -> dict[str, str]:
    """The initializers one convolution's rewrites share: weights, scales, bias, slice bounds."""
    stem = name.rsplit(".", 1)[0] + ".int8"
    q, scale = _quantised_weights(numpy_helper.to_array(inits[name]).astype(np.float32))
    c_out = q.shape[1]
    bias = (
        numpy_helper.to_array(inits[node.input[2]]).astype(np.float32)
        if len(node.input) > 2 and node.input[2]
        else np.zeros(c_out, np.float32)
    )
    h, w = hw
    oh, ow = (h + 1) // 2, (w + 1) // 2
    names = {
        "w": f"{stem}.weight",
        "scale": f"{stem}.scale",
        "bias": f"{stem}.bias",
        "pads": f"{stem}.pads",
        "axes": f"{stem}.axes",
        "steps": f"{stem}.steps",
    }
    added += [
        numpy_helper.from_array(q, names["w"]),
        numpy_helper.from_array(scale, names["scale"]),
        numpy_helper.from_array(bias, names["bias"]),
        numpy_helper.from_array(np.array([0, 1, 1, 0, 0, 1, 1, 0], np.int64), names["pads"]),
        numpy_helper.from_array(np.array([1, 2], np.int64), names["axes"]),
        numpy_helper.from_array(np.array([2, 2], np.int64), names["steps"]),
    ]
    for i, j in TAPS:
        names[f"start{i}{j}"], names[f"end{i}{j}"] = f"{stem}.start{i}{j}", f"{stem}.end{i}{j}"
        added += [
            numpy_helper.from_array(np.array([i, j], np.int64), names[f"start{i}{j}"]),
            numpy_helper.from_array(np.array([i + 2 * oh - 1, j + 2 * ow - 1], np.int64), names[f"end{i}{j}"]),
        ]
    return names


def _patch_matmul(node: onnx.NodeProto, c: dict[str, str], serial: int) -> list[onnx.NodeProto]:
    """The nodes that replace one Conv (see the module docstring), named after it."""
    p = f"{node.name or node.output[0]}.int8_{serial}"
    x, (y,) = node.input[0], node.output
    taps = [f"{p}/tap{i}{j}" for i, j in TAPS]
    return [
        helper.make_node("DynamicQuantizeLinear", [x], [f"{p}/q", f"{p}/xs", f"{p}/xz"], name=f"{p}/quantise"),
        helper.make_node("Transpose", [f"{p}/q"], [f"{p}/nhwc"], perm=[0, 2, 3, 1], name=f"{p}/nhwc"),
        helper.make_node("Pad", [f"{p}/nhwc", c["pads"], f"{p}/xz"], [f"{p}/padded"], name=f"{p}/pad"),
        *[
            helper.make_node(
                "Slice", [f"{p}/padded", c[f"start{i}{j}"], c[f"end{i}{j}"], c["axes"], c["steps"]], [t], name=t
            )
            for (i, j), t in zip(TAPS, taps)
        ],
        helper.make_node("Concat", taps, [f"{p}/patches"], axis=3, name=f"{p}/patches"),
        helper.make_node("MatMulInteger", [f"{p}/patches", c["w"], f"{p}/xz"], [f"{p}/acc"], name=f"{p}/matmul"),
        helper.make_node("Cast", [f"{p}/acc"], [f"{p}/accf"], to=TensorProto.FLOAT, name=f"{p}/cast"),
        helper.make_node("Mul", [f"{p}/xs", c["scale"]], [f"{p}/scale"], name=f"{p}/scale"),
        helper.make_node("Mul", [f"{p}/accf", f"{p}/scale"], [f"{p}/scaled"], name=f"{p}/rescale"),
        helper.make_node("Add", [f"{p}/scaled", c["bias"]], [f"{p}/biased"], name=f"{p}/bias"),
        helper.make_node("Transpose", [f"{p}/biased"], [y], perm=[0, 3, 1, 2], name=f"{p}/nchw"),
    ]
