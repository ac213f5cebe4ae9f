"""CAM++'s convolutions as u8 x s8 matrix products: the int8 CPU graph (issue 45).

Why: two thirds of a window's time are convolutions (ORT profile of the fp32
graph, 32 windows: the dense layers' 1x1 `linear1` 27 %, the 2-D front 19 %,
the dilated `linear_local` 8 %, the transits 7 %). ONNX Runtime's ConvInteger
has no fast kernel (2.5x slower than fp32), and static QDQ lost the embedding
(cosine 0.70). Rewritten as quantise -> channels-last -> MatMulInteger they
run on MLAS's u8 x s8 GEMM, which VNNI and AMX make faster than fp32. The
int8 graph is only chosen where that holds (`engine/speakers/model.py`).

Which convolutions: the D-TDNN's 1-D ones (`RANK`) of at least `MIN_MACS`
multiply-adds per position whose input cannot be negative - a Relu, or a Relu
times the frame mask - so activations are u8 with zero point 0 and need no
zero-point correction: the dense layers' `linear1` and `linear_local` and the
transits. The features' and the front's convolutions, the TDNN's, the context
gate's and the final dense layer stay fp32.

How, per Conv node with input x [B, C, T]:

    s = max(x over channels and frames) / 255     per clip: a clip's scale never depends on its batch
    q = QuantizeLinear(x, s, axis 0)  (u8)
    --Transpose--> [B, T, C] --Pad (zeros)--> each tap: the frames at its offset (a Slice of whole rows)
    --MatMulInteger (that tap's s8 weights [C, C_out])--> int32, the taps summed
    --Cast, x s, x w_scale[c], + bias--> --Transpose--> y [B, C_out, T]

No patch matrix [B, T, taps * C]: its Concat on the channel axis copied a few
dozen bytes per position and took longer than the products. One scale per
clip, not per frame: a kernel-3 convolution mixes frames, which must share a
scale, and a per-frame scale (ReduceMax over channels, a broadcast multiply)
measured several times slower than the integer product itself. Masked inputs
(every kernel > 1) are zero on padding, so their scale is the clip's own; a
Relu input is unmasked, and a padded frame sets its clip's scale only where it
exceeds every real frame. The two scale multiplies stay separate: ONNX
Runtime fuses MatMulInteger -> Cast -> Mul(a product of two scales) into
MatMulIntegerToFloat, which then read the per-clip scale as one scalar
(measured: 0.53 relative error).

Weights are symmetric per output channel, at most `onnx_tools.INT8_WEIGHT_LIMIT`
- 1 in magnitude, as every int8 weight here, so the u8 x s8 pair sums cannot
saturate on AVX2 and every x86 CPU computes the same integers.
"""

from __future__ import annotations

import itertools

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..onnx_tools import INT8_WEIGHT_LIMIT

__all__ = ["convs_to_int8", "quantised_weights"]

WEIGHT_MAX = INT8_WEIGHT_LIMIT - 1  # symmetric: [-63, 63]
LEVELS = 255.0  # u8 activations, zero point 0 (the inputs are non-negative)
TINY = 1e-20  # a scale floor: an all-zero clip (silence, padding) quantises to zeros, not NaN
END = np.iinfo(np.int64).max
# Below this many multiply-adds per output position (the context gate's 64 -> 32 `linear2`: 2,048) the
# quantising and transposing passes cost more than the integer product saves. The 2-D front stays fp32
# too: its 32-channel 3x3 products are small per position and their int32 tap sums (eight adds over
# [B, F, T, 32]) cost more than the fp32 Conv (measured, 2 threads, AVX-512 VNNI).
MIN_MACS = 4096
RANK = 1  # spatial axes of the convolutions rewritten (the D-TDNN's 1-D ones)


def quantised_weights(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[C_out, C_in, *kernel] -> (s8 [C_in, taps * C_out]: each tap's columns side by side, taps in row-major
    kernel order; scales [C_out])."""
    scale = np.abs(w).reshape(w.shape[0], -1).max(axis=1) / WEIGHT_MAX
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.clip(np.round(w / scale.reshape((-1,) + (1,) * (w.ndim - 1))), -WEIGHT_MAX, WEIGHT_MAX).astype(np.int8)
    order = (1, *range(2, w.ndim), 0)  # in-channels, kernel axes, out-channels
    return np.ascontiguousarray(q.transpose(order).reshape(w.shape[1], -1)), scale


def _attrs(node: onnx.NodeProto, rank: int) -> dict[str, list[int]]:
    a = {x.name: list(helper.get_attribute_value(x)) for x in node.attribute if x.name != "group"}
    group = next((helper.get_attribute_value(x) for x in node.attribute if x.name == "group"), 1)
    if group != 1 or a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise ValueError(f"{node.name}: grouped or auto-padded convolution")
    return {
        "kernel": a["kernel_shape"],
        "strides": a.get("strides", [1] * rank),
        "dilations": a.get("dilations", [1] * rank),
        "pads": a.get("pads", [0] * 2 * rank),
    }


def _non_negative(name: str, producers: dict[str, onnx.NodeProto]) -> bool:
    """Whether `name` is a Relu's output, or a Relu's times something (the 0/1 frame mask, in this graph)."""
    node = producers.get(name)
    if node is None:
        return False
    if node.op_type == "Relu":
        return True
    return node.op_type == "Mul" and any(getattr(producers.get(i), "op_type", None) == "Relu" for i in node.input)


def convs_to_int8(proto: onnx.ModelProto, min_macs: int = MIN_MACS) -> tuple[onnx.ModelProto, int]:
    """Rewrite every Conv of `proto` whose input is non-negative (see the module docstring), in place.

    Args:
        proto: The fp32 dynamic graph (changed in place).
        min_macs: The least multiply-adds per position of a rewritten convolution (a test lowers it to
            rewrite every eligible one).

    Returns the proto and how many convolutions were rewritten. A chosen one that is strided is an error
    of the exporter (the frame axis is symbolic; CAM++'s strided 1-D convolution reads no Relu).
    """
    graph = proto.graph
    producers = {o: n for n in graph.node for o in n.output}
    inits = {t.name: t for t in graph.initializer}
    added: list[onnx.TensorProto] = [
        numpy_helper.from_array(np.array(TINY, np.float32), "int8.tiny"),
        numpy_helper.from_array(np.array(LEVELS, np.float32), "int8.levels"),
        numpy_helper.from_array(np.array([-1], np.int64), "int8.flat"),
    ]
    new_nodes: list[onnx.NodeProto] = []
    done = 0
    for node in graph.node:
        if (
            node.op_type != "Conv"
            or not _non_negative(node.input[0], producers)
            or node.input[1] not in inits
            or len(inits[node.input[1]].dims) != RANK + 2
            or int(np.prod(inits[node.input[1]].dims)) < min_macs
        ):
            new_nodes.append(node)
            continue
        w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
        bias = numpy_helper.to_array(inits[node.input[2]]) if len(node.input) > 2 and node.input[2] else None
        new_nodes += _rewrite(node, w, bias, _attrs(node, w.ndim - 2), done, added)
        done += 1
    del graph.node[:]
    graph.node.extend(new_nodes)
    graph.initializer.extend(added)
    used = {i for n in graph.node for i in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    return proto, done


def _tap_bounds(tap: tuple[int, ...], a: dict[str, list[int]]) -> tuple[list[int], list[int]]:
    """Slice starts and ends of one kernel tap on the padded channels-last input's spatial axes (stride 1:
    the output has the padded length less d (k - 1) positions, so each end counts back from the end)."""
    starts, ends = [], []
    for i, j in enumerate(tap):
        k, d = a["kernel"][i], a["dilations"][i]
        back = d * (k - 1) - j * d
        starts.append(j * d)
        ends.append(-back if back else END)
    return starts, ends


def _rewrite(
    node: onnx.NodeProto,
    w: np.ndarray,
    bias: np.ndarray | None,
    a: dict[str, list[int]],
    serial: int,
    added: list[onnx.TensorProto],
) -> list[onnx.NodeProto]:
    """The nodes that replace one Conv (module docstring), and their constants appended to `added`."""
    rank = w.ndim - 2
    p = f"{node.name or node.output[0]}.int8_{serial}"
    if any(s != 1 for s in a["strides"]):
        raise ValueError(f"{node.name}: a strided convolution")
    x, (y,) = node.input[0], node.output
    q, w_scale = quantised_weights(w)

    def const(suffix: str, value: np.ndarray) -> str:
        # NumPy's default integer is int32 on some Windows builds: ONNX wants int64 axes, pads and bounds.
        assert value.dtype != np.int32, f"{p}.{suffix}: int32 constant"
        added.append(numpy_helper.from_array(value, f"{p}.{suffix}"))
        return f"{p}.{suffix}"

    spatial = list(range(1, rank + 1))  # the spatial axes once channels are last
    nodes = [
        helper.make_node(
            "ReduceMax", [x, const("axes", np.arange(1, rank + 2, dtype=np.int64))], [f"{p}/max"], keepdims=1
        ),
        helper.make_node("Max", [f"{p}/max", "int8.tiny"], [f"{p}/max1"]),
        helper.make_node("Div", [f"{p}/max1", "int8.levels"], [f"{p}/xs"]),
        helper.make_node("Reshape", [f"{p}/xs", "int8.flat"], [f"{p}/xs1"]),
        helper.make_node("QuantizeLinear", [x, f"{p}/xs1"], [f"{p}/q"], axis=0),
        helper.make_node("Transpose", [f"{p}/q"], [f"{p}/last"], perm=[0, *range(2, rank + 2), 1]),
    ]
    source = f"{p}/last"
    if any(a["pads"]):
        begins, ends = a["pads"][:rank], a["pads"][rank:]
        pads = np.array([0, *begins, 0, 0, *ends, 0], np.int64)
        nodes.append(helper.make_node("Pad", [source, const("pads", pads)], [f"{p}/padded"]))
        source = f"{p}/padded"
    taps = list(itertools.product(*(range(k) for k in a["kernel"])))
    c_out = w.shape[0]
    if len(taps) > 1:
        # Each tap: the input at its offset (a copy of whole rows: channels stay last and whole)
        # times that tap's weights; the int32 products summed. No patches: a Concat on the channel axis
        # copied a few dozen bytes per position and took longer than the products themselves.
        axes = const("sl_axes", np.array(spatial, np.int64))
        sums = []
        for t, tap in enumerate(taps):
            starts, ends = _tap_bounds(tap, a)
            s_name, e_name = const(f"start{t}", np.array(starts, np.int64)), const(f"end{t}", np.array(ends, np.int64))
            w_name = const(f"weight{t}", np.ascontiguousarray(q[:, t * c_out : (t + 1) * c_out]))
            nodes.append(helper.make_node("Slice", [source, s_name, e_name, axes], [f"{p}/tap{t}"]))
            nodes.append(helper.make_node("MatMulInteger", [f"{p}/tap{t}", w_name], [f"{p}/acc{t}"]))
            if sums:
                nodes.append(helper.make_node("Add", [sums[-1], f"{p}/acc{t}"], [f"{p}/sum{t}"]))
                sums.append(f"{p}/sum{t}")
            else:
                sums.append(f"{p}/acc{t}")
        acc = sums[-1]
    else:
        nodes.append(helper.make_node("MatMulInteger", [source, const("weight", q)], [f"{p}/acc"]))
        acc = f"{p}/acc"
    nodes += [
        helper.make_node("Cast", [acc], [f"{p}/accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", [f"{p}/accf", f"{p}/xs"], [f"{p}/clip_scaled"]),
        helper.make_node("Mul", [f"{p}/clip_scaled", const("scale", w_scale)], [f"{p}/scaled"]),
    ]
    out = f"{p}/scaled"
    if bias is not None:
        nodes.append(helper.make_node("Add", [out, const("bias", bias.astype(np.float32))], [f"{p}/biased"]))
        out = f"{p}/biased"
    nodes.append(helper.make_node("Transpose", [out], [y], perm=[0, rank + 1, *spatial]))
    return nodes
