"""ONNX graphs to files, without torch: int8 quantisation, Reshape clean-up, shared weight files.

Every graph, whether the torch exporter made it (`torch_export`) or it was
filled from a template (`templates`), goes through here the same way: dynamic
int8 quantisation of the MatMul weights (with the same result on every x86
kernel path), and big tensors written once to an aligned external-data file
that several graphs share. The exporters that rewrite convolutions as int8
products by hand (campplus/int8.py, qwen3_asr/int8_conv.py) take their weight
quantisation and graph splicing from here too.
"""

from __future__ import annotations

import hashlib
import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from ..errors import ModelError
from . import messages

OPSET = 18
# Tensors below this size stay inside the .onnx file; above it they go to the
# shared data file, each aligned so ONNX Runtime can memory-map it.
EXTERNAL_MIN_BYTES = 1024
ALIGN = 4096
# Symbolic dimensions every graph of ours names alike: batch and frames.
BATCH_FRAMES: dict[int, str] = {0: "batch", 1: "frames"}


def strip_debug_metadata(proto: onnx.ModelProto) -> onnx.ModelProto:
    """Drop the exporter's debugging notes: each node's stack trace (absolute source paths and line
    numbers), module names and rewrite rules, and the values' origins. They change nothing the graph
    computes, but would make a model's files - and their SHA-256 - depend on where the code and torch
    were installed, and they are most of a graph template's size."""
    for node in proto.graph.node:
        del node.metadata_props[:]
        node.ClearField("doc_string")
    for value in (*proto.graph.value_info, *proto.graph.input, *proto.graph.output, *proto.graph.initializer):
        del value.metadata_props[:]
    return proto


def constants(graph: onnx.GraphProto) -> dict[str, onnx.TensorProto]:
    """The graph's initializers and its Constant nodes' tensors, by name."""
    found = {t.name: t for t in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value":
            found[n.output[0]] = n.attribute[0].t
    return found


def replace_nodes(graph: onnx.GraphProto, nodes: list[onnx.NodeProto], added: list[onnx.TensorProto]) -> None:
    """Make `nodes` the graph's nodes and add the initializers `added`, then drop every initializer no node
    reads any more (the replaced nodes' float weights).

    Args:
        graph: The graph, changed in place.
        nodes: All its nodes, in order: the kept ones and their replacements.
        added: The replacements' initializers.
    """
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(added)
    used = {i for n in graph.node for i in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def plain_reshapes(proto: onnx.ModelProto) -> int:
    """Drop `allowzero` from Reshapes whose target shape is a constant without a 0; returns how many.

    The exporter writes `allowzero=1` for `unflatten`/`view`, and DirectML
    cannot create a Reshape with allowzero=1 and a -1 in its shape once the
    input's shape is known only at session start (free-dimension overrides):
    ONNX Runtime fails the session with 80070057 "Invalid parameter". allowzero
    only changes what a 0 in the shape means, so without one the graph computes
    exactly the same.
    """
    consts = constants(proto.graph)
    changed = 0
    for node in proto.graph.node:
        if node.op_type != "Reshape" or len(node.input) < 2 or node.input[1] not in consts:
            continue
        keep = [a for a in node.attribute if not (a.name == "allowzero" and a.i == 1)]
        if len(keep) != len(node.attribute) and (numpy_helper.to_array(consts[node.input[1]]) != 0).all():
            del node.attribute[:]
            node.attribute.extend(keep)
            changed += 1
    return changed


# int8 weights lie in [-64, 64] ("reduce range", 7 bits), so that no int8 kernel of ONNX
# Runtime can overflow. Activations are quantised per call to u8 (0..255). CPUs without
# VNNI (AVX2 - AMD Zen 2/3, Intel before Ice Lake - and AVX-512 without VNNI) multiply with
# vpmaddubsw, which adds each *pair* of u8 x s8 products into an int16 with saturation:
# with full-range weights a pair reaches 2 x 255 x 127 = 64770 and is clipped to 32767.
# With |w| <= 64 a pair is at most 2 x 255 x 64 = 32640: exact on every path (the same
# workaround OpenVINO documents for this saturation).
# 7 bits cost little error natively and make the AVX2 path as accurate as the VNNI one, at the
# same speed; u8 weights do not saturate either but lose the VNNI speed (u8 x u8)
# (benchmarks/README.md#int8-on-every-cpu-issue-18, exp_quant.py).
# Per channel gains little at full size and makes every MatMul's scale and zero point
# per-column tensors, which the DirectML and CUDA paths have never run and nothing here can
# check; per tensor keeps the graphs exactly as before but for the weights' values. Static
# S8S8 QDQ would need calibration audio; leaving "the layers that overflow" in fp32 cannot
# work, because whether a pair overflows depends on the audio, not on the layer.
INT8_WEIGHT_LIMIT = 64


# Weights quantised here rather than by ONNX Runtime (the convolutions rewritten as u8 x s8
# MatMulInteger, campplus/int8.py and qwen3_asr/int8_conv.py) are symmetric: zero point 0, [-63, 63].
INT8_SYMMETRIC_MAX = INT8_WEIGHT_LIMIT - 1


def int8_per_channel(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 weights with one scale per output channel, within INT8_SYMMETRIC_MAX.

    Args:
        w: Float32 weights, output channels first ([C_out, ...]).

    Returns (s8 weights shaped as `w`, float32 scales [C_out]); an all-zero channel gets scale 1.
    """
    scale = np.abs(w).reshape(w.shape[0], -1).max(axis=1) / INT8_SYMMETRIC_MAX
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.round(w / scale.reshape((-1,) + (1,) * (w.ndim - 1)))
    return np.clip(q, -INT8_SYMMETRIC_MAX, INT8_SYMMETRIC_MAX).astype(np.int8), scale


def to_int8(proto: onnx.ModelProto, ops: tuple[str, ...] = ("MatMul",)) -> onnx.ModelProto:
    """Dynamic int8 quantisation of the weights of `ops` (activations quantised per call),
    with 7-bit weights so that the result does not depend on the CPU (see INT8_WEIGHT_LIMIT).

    Args:
        proto: An fp32 graph.
        ops: The op types whose weights become int8: MatMul (DynamicQuantizeMatMul) and
            LSTM (DynamicQuantizeLSTM, whose input and recurrent weights both become int8).
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.onnx", Path(tmp) / "out.onnx"
        onnx.save(proto, str(src), save_as_external_data=proto.ByteSize() > 1_500_000_000, location="in.data")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(
                str(src),
                str(dst),
                weight_type=QuantType.QInt8,
                op_types_to_quantize=list(ops),
                per_channel=False,
                reduce_range=True,
                extra_options={"MatMulConstBOnly": True},
                use_external_data_format=proto.ByteSize() > 1_500_000_000,
            )
        out = onnx.load(str(dst), load_external_data=True)
    check_int8_weights(out)
    return out


def check_int8_weights(proto: onnx.ModelProto) -> None:
    """Refuse an int8 graph whose MatMul weights could overflow a CPU's int8 kernel
    (an ONNX Runtime whose quantiser stopped honouring reduce_range would otherwise
    ship a model that is wrong only on some users' CPUs)."""
    weights = {t.name: t for t in proto.graph.initializer}
    for node in proto.graph.node:
        for name in node.input[1 : 1 + _INT8_WEIGHT_INPUTS.get(node.op_type, 0)]:
            tensor = weights.get(name)
            if tensor is None or tensor.data_type != onnx.TensorProto.INT8:
                continue
            peak = int(np.abs(numpy_helper.to_array(tensor).astype(np.int16)).max(initial=0))
            if peak > INT8_WEIGHT_LIMIT:
                raise ModelError(messages.INT8_SATURATES, tensor=tensor.name, peak=peak, limit=INT8_WEIGHT_LIMIT)


# Per int8 op type, how many inputs after the first are weights a CPU kernel multiplies
# (DynamicQuantizeLSTM: W and R).
_INT8_WEIGHT_INPUTS = {"MatMulInteger": 1, "DynamicQuantizeMatMul": 1, "DynamicQuantizeLSTM": 2}


def int8_ops(precision: str) -> tuple[str, ...]:
    """The op types whose weights an int8 model's graphs quantise (`templates.make_graph(int8=...)`);
    none for fp32 and fp16 (fp16 is made before the export)."""
    return ("MatMul",) if precision == "int8" else ()


def save_sharing_weights(models: dict[Path, onnx.ModelProto], data_path: Path) -> None:
    """Save several graphs whose big tensors are stored once in `data_path`.

    Tensors are deduplicated by content, so graphs exported from the same
    weights share every block even if the exporter named them differently.
    """
    offsets: dict[str, tuple[int, int]] = {}
    with open(data_path, "wb") as data:
        for proto in models.values():
            for tensor in proto.graph.initializer:
                if tensor.data_location == onnx.TensorProto.EXTERNAL:
                    raise ModelError(messages.TENSOR_EXTERNAL)
                raw = numpy_helper.to_array(tensor).tobytes() if not tensor.HasField("raw_data") else tensor.raw_data
                if len(raw) < EXTERNAL_MIN_BYTES:
                    continue
                key = hashlib.sha256(raw).hexdigest() + f":{tensor.data_type}:{tuple(tensor.dims)}"
                if key not in offsets:
                    pad = (-data.tell()) % ALIGN
                    data.write(b"\0" * pad)
                    offsets[key] = (data.tell(), len(raw))
                    data.write(raw)
                offset, length = offsets[key]
                # Re-encode as raw + external location.
                dims, dtype, name = list(tensor.dims), tensor.data_type, tensor.name
                tensor.Clear()
                tensor.name, tensor.data_type = name, dtype
                tensor.dims.extend(dims)
                tensor.data_location = onnx.TensorProto.EXTERNAL
                for k, v in (("location", data_path.name), ("offset", str(offset)), ("length", str(length))):
                    entry = tensor.external_data.add()
                    entry.key, entry.value = k, v
    for path, proto in models.items():
        onnx.save(proto, str(path))


def save_graph_files(
    graphs: Mapping[str, onnx.ModelProto], paths: Mapping[str, Path], data_role: str, data_path: Path
) -> dict[str, Path]:
    """Save graphs whose weights share `data_path`, check each; returns {role: path} incl. the data file."""
    save_sharing_weights({paths[role]: proto for role, proto in graphs.items()}, data_path)
    written = {role: paths[role] for role in graphs}
    for path in written.values():
        onnx.checker.check_model(str(path), full_check=False)
    written[data_role] = data_path
    return written
