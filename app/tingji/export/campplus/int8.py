"""CAM++'s convolutions as u8 x s8 matrix products: the int8 CPU graph (issue 45).

Why: two thirds of a window's time are convolutions (ORT profile of the fp32
graph, 32 windows: the dense layers' 1x1 `linear1` 27 %, the 2-D front 19 %,
the dilated `linear_local` 8 %, the transits 7 %). ONNX Runtime's ConvInteger
has no fast kernel (2.5x slower than fp32), and static QDQ lost the embedding
(cosine 0.70). Rewritten as quantise -> channels-last -> MatMulInteger they
run on MLAS's u8 x s8 GEMM, which VNNI and AMX make faster than fp32. The
int8 graph is only chosen where that holds (`engine/speakers/model.py`).

Which convolutions: the D-TDNN's 1-D ones (`RANK`) of at least `MIN_MACS`
multiply-adds per position whose input cannot be negative (a Relu's output),
so activations are u8 with zero point 0 and need no zero-point correction:
the dense layers' `linear1` and `linear_local` and the transits. The
features' and the front's convolutions, the TDNN's, the context gate's and
the final dense layer stay fp32.

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
measured several times slower than the integer product itself. The two
scale multiplies stay separate: ONNX Runtime fuses MatMulInteger -> Cast ->
Mul(a product of two scales) into MatMulIntegerToFloat, which then read the
per-clip scale as one scalar (measured: 0.53 relative error).

Whole clips only: the int8 graph takes no mask (`whole_clips`). The engine
embeds whole windows (a short span's audio is zero-padded, as funasr's
`sv_chunk`), and `SpeakerModel` batches only clips of one length for it, so
every frame is real and a clip's embedding is the one it gets alone. Times
an all-ones mask changes nothing, yet in the 2-D front each such multiply
split ONNX Runtime's blocked (NCHWc) convolution chain with a reorder out
and back in: with the 117 multiplies gone the graph took a fifth less time
(ORT profile, 32 windows). A Relu read only by a rewritten convolution goes
too, as QuantizeLinear's u8 saturation is one, and each context gate runs
once per segment instead of once per frame (`segment_gates`): another
tenth. Both change no number beyond float rounding
(tests/export/test_campplus_int8.py).

Weights are symmetric per output channel (`onnx_tools.int8_per_channel`), within
`onnx_tools.INT8_WEIGHT_LIMIT` as every int8 weight here, so the u8 x s8 pair sums
cannot saturate on AVX2 and every x86 CPU computes the same integers.

One module past 400 lines: its rewrites are one pipeline (`convs_to_int8`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..onnx_tools import constants, int8_per_channel, replace_nodes

__all__ = ["convs_to_int8", "quantised_weights", "segment_gates", "whole_clips"]

LEVELS = 255.0  # u8 activations, zero point 0 (the inputs are non-negative)
TINY = 1e-20  # a scale floor: an all-zero clip (silence, padding) quantises to zeros, not NaN
END = np.iinfo(np.int64).max
# Below this many multiply-adds per output position (the context gate's 64 -> 32 `linear2`: 2,048) the
# quantising and transposing passes cost more than the integer product saves. The 2-D front stays fp32
# too: its 32-channel 3x3 products are small per position and their int32 tap sums (eight adds over
# [B, F, T, 32]) cost more than the fp32 Conv (measured, 2 threads, AVX-512 VNNI).
MIN_MACS = 4096
RANK = 1  # spatial axes of the convolutions rewritten (the D-TDNN's 1-D ones)
# the exported graph's frame mask and features (modules.CamPlusGraph)
MASK = "mask"
FEATS = "feats"
# Ops whose output is all ones wherever their first input is (a reshaped, cast or sliced mask).
KEEPS_ONES = frozenset({"Unsqueeze", "Reshape", "Squeeze", "Expand", "Cast", "Identity", "Transpose", "Slice"})


def quantised_weights(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[C_out, C_in, *kernel] -> (s8 [C_in, taps * C_out]: each tap's columns side by side, taps in row-major
    kernel order; scales [C_out])."""
    q, scale = int8_per_channel(w)
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

    A graph with a frame mask input becomes one of whole clips first (`whole_clips`), and context gates
    are computed per segment (`segment_gates`).

    Returns the proto and how many convolutions were rewritten. A chosen one that is strided is an error
    of the exporter (the frame axis is symbolic; CAM++'s strided 1-D convolution reads no Relu).
    """
    graph = proto.graph
    if any(i.name == MASK for i in graph.input):
        whole_clips(proto)
    segment_gates(proto)
    producers = {o: n for n in graph.node for o in n.output}
    inits = {t.name: t for t in graph.initializer}
    added: list[onnx.TensorProto] = [
        numpy_helper.from_array(np.array(TINY, np.float32), "int8.tiny"),
        numpy_helper.from_array(np.array(LEVELS, np.float32), "int8.levels"),
        numpy_helper.from_array(np.array([-1], np.int64), "int8.flat"),
    ]
    new_nodes: list[onnx.NodeProto] = []
    quantising: set[int] = set()  # ids of the rewrites' nodes that read a convolution's input
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
        made = _rewrite(node, w, bias, _attrs(node, w.ndim - 2), done, added)
        quantising.update(id(n) for n in made if n.op_type in ("ReduceMax", "QuantizeLinear"))
        new_nodes += made
        done += 1
    replace_nodes(graph, _skip_relus(new_nodes, quantising), added)
    return proto, done


def _picks_frames(node: onnx.NodeProto, consts: dict[str, onnx.TensorProto]) -> bool:
    """Whether `node` is a 1-D convolution that only picks input frames: a one-channel one-hot kernel whose tap
    reads frame `stride * t` exactly (the TDNN's stride-2 mask, `modules.XVector`), so ones stay ones."""
    if node.op_type != "Conv" or len(node.input) > 2 or node.input[1] not in consts:
        return False
    w = numpy_helper.to_array(consts[node.input[1]])
    if w.ndim != 3 or w.shape[:2] != (1, 1) or np.count_nonzero(w) != 1 or w.max() != 1:
        return False
    a = _attrs(node, 1)
    tap, (k,), (d,), pads = int(np.flatnonzero(w)[0]), a["kernel"], a["dilations"], a["pads"]
    return tap * d == pads[0] and pads[0] + pads[1] <= d * (k - 1)


def whole_clips(proto: onnx.ModelProto) -> tuple[onnx.ModelProto, int]:
    """The graph for batches of whole clips, in place: the `MASK` input replaced by ones of the features'
    [batch, frames], and every multiply by the mask (or a reshape, slice or frame pick of it) dropped - exact,
    as x * 1 is x. Frame counts still sum the ones, so every mean is the same.

    Args:
        proto: A graph with inputs `FEATS` [batch, frames, ...] and `MASK` [batch, frames].

    Returns the proto and how many multiplies were dropped.
    """
    graph = proto.graph
    consts = constants(graph)
    ones, rename, kept = {MASK}, {}, []
    for node in graph.node:
        node.input[:] = [rename.get(i, i) for i in node.input]
        if node.input and node.input[0] in ones and (node.op_type in KEEPS_ONES or _picks_frames(node, consts)):
            ones.update(node.output)
        other = [i for i in node.input if i not in ones]
        if node.op_type == "Mul" and len(other) == 1 and other[0] not in consts:  # activations times the mask
            rename[node.output[0]] = other[0]
            continue
        kept.append(node)
    if {o.name for o in graph.output} & set(rename):
        raise ValueError("the graph outputs a multiple of its mask")
    first = [
        helper.make_node("Shape", [FEATS], ["whole.shape"], start=0, end=2),
        helper.make_node(
            "ConstantOfShape", ["whole.shape"], [MASK], value=numpy_helper.from_array(np.ones(1, np.float32))
        ),
    ]
    del graph.node[:]
    graph.node.extend(first + kept)
    inputs = [i for i in graph.input if i.name != MASK]
    del graph.input[:]
    graph.input.extend(inputs)
    return proto, len(rename)


def _producer_chain(name: str, producers: dict[str, onnx.NodeProto], ops: tuple[str, ...]) -> list[onnx.NodeProto]:
    """The nodes that made `name` through first inputs, if their op types are `ops` (nearest first); else []."""
    chain = []
    for op in ops:
        node = producers.get(name)
        if node is None or node.op_type != op:
            return []
        chain.append(node)
        name = node.input[0]
    return chain


def segment_gates(proto: onnx.ModelProto) -> tuple[onnx.ModelProto, int]:
    """Each context gate computed once per 100-frame segment, then spread over its frames, in place.

    The context-aware masking's gate is sigmoid(linear2(relu(linear1(mean + segment means)))), and the
    segment means are spread over their frames first (`modules.CAMLayer.segment_means`), so the two 1x1
    convolutions ran on every frame of identical columns: a tenth of the int8 graph's time (ORT profile).
    Here they run on the [batch, channels, segments] means and the gate's 32 channels are spread instead
    of the context's 128, with the graph's own spread shape, reshape and slice. Every frame gets the same
    numbers as before. A gate not built that way is left as it is.

    Returns the proto and how many gates were moved.
    """
    graph = proto.graph
    producers = {o: n for n in graph.node for o in n.output}
    after: dict[str, list[onnx.NodeProto]] = {}  # nodes to insert after the named node's output
    moved = 0
    for node in graph.node:
        if node.op_type != "Sigmoid":
            continue
        found = _segment_gate(node, producers)
        if found is None:
            continue
        after[node.output[0]] = _gate_per_segment(graph, node, *found)
        moved += 1
    if not moved:
        return proto, 0
    _spread_gates(graph, after)
    return proto, moved


def _segment_gate(
    sigmoid: onnx.NodeProto, producers: dict[str, onnx.NodeProto]
) -> tuple[onnx.NodeProto, str, onnx.NodeProto, onnx.NodeProto, onnx.NodeProto] | None:
    """The parts of a context gate built as `segment_gates` says, from its Sigmoid: the Add of the clip's mean
    and the spread segment means, that mean's name, and the spread's Slice, Expand and Unsqueeze; else None."""
    gate = _producer_chain(sigmoid.input[0], producers, ("Conv", "Relu", "Conv", "Add"))
    add = gate[-1] if gate else None
    spread = next(
        (
            c
            for i in (add.input if add else [])
            if (c := _producer_chain(i, producers, ("Slice", "Reshape", "Expand", "Unsqueeze")))
        ),
        [],
    )
    if not spread:
        return None
    cut, _, expand, unsqueeze = spread
    mean = add.input[0] if add.input[1] == cut.output[0] else add.input[1]
    if getattr(producers.get(mean), "op_type", None) != "Div":  # the clip's mean [B, C, 1]: a sum / a count
        return None
    return add, mean, cut, expand, unsqueeze


def _gate_per_segment(
    graph: onnx.GraphProto,
    sigmoid: onnx.NodeProto,
    add: onnx.NodeProto,
    mean: str,
    cut: onnx.NodeProto,
    expand: onnx.NodeProto,
    unsqueeze: onnx.NodeProto,
) -> list[onnx.NodeProto]:
    """Feed the gate the segment means unspread (its constants go into `graph`); returns the nodes that spread
    its output over the frames as the graph spread the means, to go after the Sigmoid."""
    p = f"{sigmoid.name or sigmoid.output[0]}.segments"
    add.input[:] = [mean, unsqueeze.input[0]]  # [B, C, 1] + [B, C, segments]
    axes, tail, flat = f"{p}.axes", f"{p}.tail", f"{p}.flat"
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array([3], np.int64), axes),
            numpy_helper.from_array(np.array([1, 1, 1], np.int64), f"{p}.ones"),
            numpy_helper.from_array(np.array([0, 0, -1], np.int64), flat),
            numpy_helper.from_array(np.array([3], np.int64), f"{p}.last"),
            numpy_helper.from_array(np.array([4], np.int64), tail),
        ]
    )
    return [
        helper.make_node("Slice", [expand.input[1], f"{p}.last", tail], [f"{p}/frames"]),  # the segment length
        helper.make_node("Concat", [f"{p}.ones", f"{p}/frames"], [f"{p}/shape"], axis=0),
        helper.make_node("Unsqueeze", [sigmoid.output[0], axes], [f"{p}/g4"]),
        helper.make_node("Expand", [f"{p}/g4", f"{p}/shape"], [f"{p}/spread"]),
        helper.make_node("Reshape", [f"{p}/spread", flat], [f"{p}/flat"]),
        helper.make_node("Slice", [f"{p}/flat", *cut.input[1:]], [f"{p}/gate"]),
    ]


def _spread_gates(graph: onnx.GraphProto, after: dict[str, list[onnx.NodeProto]]) -> None:
    """Insert each gate's spreading nodes after its Sigmoid, point the gate's readers at the spread gate, and
    drop what nothing reads any more."""
    gates = {sig: spread[-1].output[0] for sig, spread in after.items()}
    nodes = []
    for node in graph.node:
        node.input[:] = [gates.get(i, i) for i in node.input]  # the Mul by the gate reads the spread one
        nodes.append(node)
        nodes += after.get(node.output[0], [])
    del graph.node[:]
    graph.node.extend(_live(nodes, {o.name for o in graph.output}))


def _live(nodes: list[onnx.NodeProto], outputs: set[str]) -> list[onnx.NodeProto]:
    """`nodes` (in order) less those none of whose outputs anything reads, transitively."""
    needed, keep = set(outputs), []
    for node in reversed(nodes):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(node.input)
    return keep[::-1]


def _skip_relus(nodes: list[onnx.NodeProto], quantising: set[int]) -> list[onnx.NodeProto]:
    """`nodes` less each Relu read only by rewritten convolutions' ReduceMax and QuantizeLinear (`quantising`,
    by id), which then read its input: u8 quantisation saturates negatives to 0 and the scale's floor is
    positive, so both give what they gave."""
    readers: dict[str, list[onnx.NodeProto]] = {}
    for n in nodes:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    out = []
    for n in nodes:
        users = readers.get(n.output[0], []) if n.op_type == "Relu" else []
        if users and all(id(u) in quantising for u in users):
            for u in users:
                u.input[0] = n.input[0]
            continue
        out.append(n)
    return out


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


def _quantised_input(
    x: str, p: str, rank: int, pad: list[int], const: Callable[[str, np.ndarray], str]
) -> tuple[list[onnx.NodeProto], str]:
    """The nodes that quantise `x` to u8 with one scale per clip, put its channels last and pad its spatial axes
    (names under `p`, constants made by `const`); and the name of their result."""
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
    if any(pad):
        begins, ends = pad[:rank], pad[rank:]
        pads = np.array([0, *begins, 0, 0, *ends, 0], np.int64)
        nodes.append(helper.make_node("Pad", [source, const("pads", pads)], [f"{p}/padded"]))
        source = f"{p}/padded"
    return nodes, source


def _tap_products(
    nodes: list[onnx.NodeProto],
    source: str,
    q: np.ndarray,
    c_out: int,
    a: dict[str, list[int]],
    spatial: list[int],
    p: str,
    const: Callable[[str, np.ndarray], str],
) -> str:
    """Append to `nodes` the int32 product of the padded u8 channels-last `source` (`spatial`: its spatial axes)
    and the s8 weights `q` (each tap's `c_out` columns side by side), the taps summed; returns the sum's name."""
    taps = list(itertools.product(*(range(k) for k in a["kernel"])))
    if len(taps) <= 1:
        nodes.append(helper.make_node("MatMulInteger", [source, const("weight", q)], [f"{p}/acc"]))
        return f"{p}/acc"
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
    return sums[-1]


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
    nodes, source = _quantised_input(x, p, rank, a["pads"], const)
    acc = _tap_products(nodes, source, q, w.shape[0], a, spatial, p, const)
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
