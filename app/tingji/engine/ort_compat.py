"""Work-arounds for ONNX Runtime releases Tingji still ships, and the check that catches what slips through.

ONNX Runtime before 1.28 computes LayerNormalization on the CPU from the
mean and the mean of squares of each row, in float: for rows whose mean is
large against their spread the difference cancels to a negative variance
and the row comes out NaN (onnxruntime issue 28463). Silence does exactly
that to an encoder's first LayerNorm (log-mel features of digital zeros are
one large negative constant), and the Windows build ships
onnxruntime-directml 1.24.4, the last DirectML release, so every CPU run
there (a PC without a GPU, or DirectML falling back) would fail.

On such a runtime a CPU session is made from the graph with every
LayerNormalization rewritten into plain operators in the two-pass form the
ONNX standard defines it by: the mean, the row minus its mean, the mean of
the squares of that, plus epsilon, reciprocal square root, times scale,
plus bias (same axis, epsilon and stash type; Mean and InvStdDev outputs
kept). ONNX Runtime's fusions that would fold those operators back into its
own LayerNorm kernels are switched off for that session, which also keeps a
LayerNorm an exporter wrote as plain operators away from the kernel. Other
providers and fixed runtimes are left alone; a session's optimised graph
is cached under a key that names the rewrite (ort_cache.entry_fields).

The rewrite edits the model's protobuf at the wire level and copies every
other byte as it is: the `onnx` package is not a runtime dependency (the
Windows build has none), and the weights, inside the file or external to
it, are never decoded.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from . import messages

# The first ONNX Runtime release whose CPU LayerNormalization is stable for rows of large mean.
LAYERNORM_FIXED_IN = (1, 28)
# Names the rewrite goes by in the optimised-graph cache's key (ort_cache.entry_fields).
STABLE_LAYERNORM = "stable-layernorm-1"
# ONNX Runtime's graph transformers, by the names `disabled_optimizers` takes, that would turn plain operators
# back into its LayerNorm kernels: LayerNormFusion runs twice, as L1 (basic level) and L2; the simplified
# fusion would take the centred half of the rewrite; the skip and embed fusions start from a LayerNorm.
LAYERNORM_FUSIONS = (
    "LayerNormFusionL1",
    "LayerNormFusionL2",
    "SimplifiedLayerNormFusion",
    "SkipLayerNormFusion",
    "EmbedLayerNormFusion",
)
# Lets a session made from bytes find the model's external weights (next to the file).
EXTERNAL_FOLDER = "session.model_external_initializers_file_folder_path"


# From this ONNX Runtime release on, a graph saved with its prepacked weights runs: 1.24, 1.28, 1.30 and 1.31
# save one, then crash (SIGSEGV) in the first run of a session made from it (1.29 does not); before it
# ort_cache keeps the plain weights only.
PREPACKED_SAVE_FIXED_IN = (1, 32)


def saves_prepacked_weights(version: tuple[int, int] | None = None) -> bool:
    """Whether ort_cache may save ONNX Runtime's prepacked weights with an optimised graph."""
    return (version or runtime_version()) >= PREPACKED_SAVE_FIXED_IN


def runtime_version() -> tuple[int, int]:
    import onnxruntime as ort

    return parse_version(ort.__version__)


def parse_version(text: str) -> tuple[int, int]:
    """(major, minor) of a version string such as "1.24.4" or "1.28.0.dev20260101"."""
    found = re.match(r"(\d+)\.(\d+)", text)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def rewrites_for(provider: str, version: tuple[int, int] | None = None) -> tuple[str, ...]:
    """The graph rewrites a session on `provider` needs under ONNX Runtime `version` (default: the one in use)."""
    if provider != "cpu":
        return ()
    return (STABLE_LAYERNORM,) if (version or runtime_version()) < LAYERNORM_FIXED_IN else ()


@dataclass(frozen=True)
class ModelSource:
    """What an InferenceSession is made from: a graph file, rewritten in memory when `rewrites` say so.

    The rewrite is done when the session is made (`session`), so a load the
    optimised-graph cache serves never reads the graph at all.
    """

    path: Path
    rewrites: tuple[str, ...] = ()

    def session(self, options: Any, providers: Sequence[str], **kwargs: Any) -> Any:
        """A new InferenceSession with `options` (changed here when the graph is rewritten).

        Args:
            options: A SessionOptions.
            providers: ONNX Runtime's provider names, in order.
            kwargs: More of InferenceSession's keywords (`enable_fallback`, ...).
        """
        import onnxruntime as ort

        if STABLE_LAYERNORM not in self.rewrites:
            return ort.InferenceSession(str(self.path), sess_options=options, providers=list(providers), **kwargs)
        data = stable_layernorm(self.path.read_bytes())
        if _config(options, EXTERNAL_FOLDER) is None:
            options.add_session_config_entry(EXTERNAL_FOLDER, str(self.path.parent))
        return ort.InferenceSession(
            data, sess_options=options, providers=list(providers), disabled_optimizers=list(LAYERNORM_FUSIONS), **kwargs
        )


def model_source(path: Path, provider: str) -> ModelSource:
    """The graph file at `path` as a session on `provider` must see it under the ONNX Runtime in use.

    Args:
        path: The .onnx file (its external weights, if any, beside it).
        provider: Tingji's short provider name ("cpu", "dml", "cuda").
    """
    return ModelSource(Path(path), rewrites_for(provider))


def _config(options: Any, key: str) -> str | None:
    try:
        return options.get_session_config_entry(key)
    except Exception:  # ONNX Runtime raises when the key was never set
        return None


def require_finite(outputs: Sequence[Any], folder: Path | str, role: str, provider: str) -> None:
    """Raise a coded ModelError when a float output holds NaN or infinity.

    Downstream (CTC, sampling, the decoder's input rows) a NaN turns into an
    error nobody can act on; here it says which graph gave it, on which
    provider and runtime.
    """
    for output in outputs:
        if isinstance(output, np.ndarray) and output.dtype.kind == "f" and not np.isfinite(output).all():
            import onnxruntime as ort

            raise ModelError(
                messages.NOT_FINITE, folder=str(folder), role=role, provider=provider.upper(), version=ort.__version__
            )


# -- the rewrite ------------------------------------------------------------------------------------------------

# ONNX's TensorProto.DataType values used here.
FLOAT, INT64, DOUBLE = 1, 7, 11
# Field numbers of onnx.proto's messages (stable parts of the format).
_MODEL_GRAPH, _MODEL_OPSET = 7, 8
_OPSET_DOMAIN, _OPSET_VERSION = 1, 2
_GRAPH_NODE, _GRAPH_INITIALIZER, _GRAPH_INPUT, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO = 1, 5, 11, 12, 13
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_ATTRIBUTE, _NODE_DOMAIN = 1, 2, 3, 4, 5, 7
_ATTR_NAME, _ATTR_F, _ATTR_I, _ATTR_INTS, _ATTR_TYPE = 1, 2, 3, 8, 20
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS_TYPE = 1, 2, 7
_TENSOR_DIMS, _TENSOR_TYPE, _TENSOR_NAME, _TENSOR_RAW = 1, 2, 8, 9
_VALUE_NAME, _VALUE_TYPE, _TYPE_TENSOR, _TENSOR_ELEM, _TENSOR_SHAPE, _SHAPE_DIM = 1, 2, 1, 1, 2, 1


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(buf: memoryview) -> Iterator[tuple[int, int, Any, int, int]]:
    """(field number, wire type, value, start, end) of each field of one encoded message."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos : pos + size], pos + size
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value, start, pos


def _encode_varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64s as protobuf writes them
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _encode_varint(number << 3 | wire)


def _bytes_field(number: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _tag(number, 2) + _encode_varint(len(data)) + data


def _int_field(number: int, value: int) -> bytes:
    return _tag(number, 0) + _encode_varint(value)


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _tensor(name: str, values: np.ndarray, data_type: int) -> bytes:
    dims = b"".join(_int_field(_TENSOR_DIMS, d) for d in values.shape)
    return (
        dims
        + _int_field(_TENSOR_TYPE, data_type)
        + _bytes_field(_TENSOR_NAME, name)
        + _bytes_field(_TENSOR_RAW, values.tobytes())
    )


def _attribute(name: str, value: int | float | list[int]) -> bytes:
    head = _bytes_field(_ATTR_NAME, name)
    if isinstance(value, list):
        body = b"".join(_int_field(_ATTR_INTS, v) for v in value)
        return head + body + _int_field(_ATTR_TYPE, _ATTR_INTS_TYPE)
    if isinstance(value, float):
        return head + _tag(_ATTR_F, 5) + struct.pack("<f", value) + _int_field(_ATTR_TYPE, _ATTR_FLOAT)
    return head + _int_field(_ATTR_I, value) + _int_field(_ATTR_TYPE, _ATTR_INT)


def _node(op: str, inputs: Sequence[str], outputs: Sequence[str], name: str, **attributes: Any) -> bytes:
    body = b"".join(_bytes_field(_NODE_INPUT, i) for i in inputs)
    body += b"".join(_bytes_field(_NODE_OUTPUT, o) for o in outputs)
    body += _bytes_field(_NODE_NAME, name) + _bytes_field(_NODE_OP, op)
    body += b"".join(_bytes_field(_NODE_ATTRIBUTE, _attribute(k, v)) for k, v in attributes.items())
    return _bytes_field(_GRAPH_NODE, body)


@dataclass
class _Node:
    """The parts of a NodeProto the rewrite reads."""

    op: str
    domain: str
    inputs: list[str]
    outputs: list[str]
    name: str
    attributes: dict[str, Any]


def _read_node(buf: memoryview) -> _Node:
    node = _Node("", "", [], [], "", {})
    for number, _, value, _, _ in _fields(buf):
        if number == _NODE_INPUT:
            node.inputs.append(bytes(value).decode())
        elif number == _NODE_OUTPUT:
            node.outputs.append(bytes(value).decode())
        elif number == _NODE_NAME:
            node.name = bytes(value).decode()
        elif number == _NODE_OP:
            node.op = bytes(value).decode()
        elif number == _NODE_DOMAIN:
            node.domain = bytes(value).decode()
        elif number == _NODE_ATTRIBUTE:
            name, found = "", None
            for a_number, _, a_value, _, _ in _fields(value):
                if a_number == _ATTR_NAME:
                    name = bytes(a_value).decode()
                elif a_number == _ATTR_F:
                    found = struct.unpack("<f", a_value)[0]
                elif a_number == _ATTR_I:
                    found = _signed(a_value)
            node.attributes[name] = found
    return node


def _value_info(buf: memoryview) -> tuple[str, int | None, int | None]:
    """(name, element type, rank) of a ValueInfoProto; None where it does not say."""
    name, elem, rank = "", None, None
    for number, _, value, _, _ in _fields(buf):
        if number == _VALUE_NAME:
            name = bytes(value).decode()
        elif number == _VALUE_TYPE:
            for t_number, _, t_value, _, _ in _fields(value):
                if t_number != _TYPE_TENSOR:
                    continue
                for s_number, _, s_value, _, _ in _fields(t_value):
                    if s_number == _TENSOR_ELEM:
                        elem = s_value
                    elif s_number == _TENSOR_SHAPE:
                        rank = sum(1 for d in _fields(s_value) if d[0] == _SHAPE_DIM)
    return name, elem, rank


def _tensor_name_type(buf: memoryview) -> tuple[str, int | None]:
    name, elem = "", None
    for number, _, value, _, _ in _fields(buf):
        if number == _TENSOR_NAME:
            name = bytes(value).decode()
        elif number == _TENSOR_TYPE:
            elem = value
    return name, elem


class _Graph:
    """What the rewrite needs to know about a graph: element types, ranks and names in use."""

    def __init__(self, buf: memoryview) -> None:
        self.types: dict[str, int] = {}
        self.ranks: dict[str, int] = {}
        self.names: set[str] = set()
        for number, _, value, _, _ in _fields(buf):
            if number in (_GRAPH_INPUT, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO):
                name, elem, rank = _value_info(value)
                self.names.add(name)
                if elem:
                    self.types[name] = elem
                if rank is not None:
                    self.ranks[name] = rank
            elif number == _GRAPH_INITIALIZER:
                name, elem = _tensor_name_type(value)
                self.names.add(name)
                if elem:
                    self.types[name] = elem
            elif number == _GRAPH_NODE:
                node = _read_node(value)
                self.names.update(node.inputs + node.outputs + [node.name])
                if node.op == "Cast" and node.domain in ("", "ai.onnx") and node.attributes.get("to"):
                    self.types[node.outputs[0]] = int(node.attributes["to"])

    def fresh(self, base: str) -> str:
        name = base
        while name in self.names:
            name += "_"
        self.names.add(name)
        return name


def _rewrite_layernorm(node: _Node, graph: _Graph, opset: int) -> tuple[bytes, bytes] | None:
    """(nodes, initializers) computing `node` in the two-pass form; None when it cannot be rewritten."""
    axis = int(node.attributes.get("axis") or -1)
    epsilon = float(node.attributes.get("epsilon") if node.attributes.get("epsilon") is not None else 1e-5)
    stash = int(node.attributes.get("stash_type") or FLOAT)
    if stash not in (FLOAT, DOUBLE):
        return None  # a half-precision stash type: no exporter writes one
    x, scale = node.inputs[0], node.inputs[1]
    bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
    outputs = node.outputs + [""] * (3 - len(node.outputs))
    y, mean_out, inv_out = outputs[:3]
    if axis >= 0 and x in graph.ranks:
        axis -= graph.ranks[x]
    flatten = axis >= 0  # rank unknown: normalise [outer, inner] and reshape back
    if flatten and (mean_out or inv_out):
        return None  # their shape needs the rank
    base = (node.name or y or "layernorm") + "/stable_"
    nodes: list[bytes] = []
    inits: list[bytes] = []

    def add(op: str, inputs: Sequence[str], out: str = "", **attributes: Any) -> str:
        out = out or graph.fresh(base + op.lower())
        nodes.append(_node(op, inputs, [out], graph.fresh(base + op.lower() + "_node"), **attributes))
        return out

    def const(tag: str, values: np.ndarray, data_type: int) -> str:
        name = graph.fresh(base + tag)
        inits.append(_bytes_field(_GRAPH_INITIALIZER, _tensor(name, values, data_type)))
        return name

    x_type = graph.types.get(x)
    source = add("Flatten", [x], axis=axis) if flatten else x
    axes = [-1] if flatten else list(range(axis, 0))
    if x_type != stash:
        source = add("Cast", [source], to=stash)
    if opset >= 18:
        axes_name = const("axes", np.array(axes, np.int64), INT64)

        def reduce_mean(value: str, out: str = "") -> str:
            return add("ReduceMean", [value, axes_name], out, keepdims=1)

    else:

        def reduce_mean(value: str, out: str = "") -> str:
            return add("ReduceMean", [value], out, axes=axes, keepdims=1)

    eps_dtype = np.float64 if stash == DOUBLE else np.float32
    mean = reduce_mean(source, mean_out)
    centred = add("Sub", [source, mean])
    variance = reduce_mean(add("Mul", [centred, centred]))
    std = add("Sqrt", [add("Add", [variance, const("epsilon", np.array(epsilon, eps_dtype), stash)])])
    normalised = add("Mul", [centred, add("Reciprocal", [std], inv_out)])
    if x_type != stash:
        normalised = add("Cast", [normalised], to=x_type) if x_type else add("CastLike", [normalised, x])
    if flatten:
        normalised = add("Reshape", [normalised, add("Shape", [x])])
    if bias:
        add("Add", [add("Mul", [normalised, scale]), bias], y)
    else:
        add("Mul", [normalised, scale], y)
    return b"".join(nodes), b"".join(inits)


def _rewrite_skip_layernorm(node: _Node, graph: _Graph, opset: int) -> tuple[bytes, bytes] | None:
    """ONNX Runtime's SkipLayerNormalization (a graph it optimised and saved holds them): the sum, then a LayerNorm."""
    inputs = node.inputs + [""] * (5 - len(node.inputs))
    outputs = node.outputs + [""] * (4 - len(node.outputs))
    if outputs[1] or outputs[2]:
        return None  # its own Mean/InvStdDev shapes; no inference graph reads them
    base = (node.name or outputs[0] or "skip_layernorm") + "/stable_"
    total = outputs[3] if outputs[3] and not inputs[4] else graph.fresh(base + "sum")
    nodes = _node("Add", inputs[:2], [total], graph.fresh(base + "add_node"))
    if inputs[4]:
        total_bias = outputs[3] or graph.fresh(base + "sum_bias")
        nodes += _node("Add", [total, inputs[4]], [total_bias], graph.fresh(base + "add_bias_node"))
        total = total_bias
    if node.inputs[0] in graph.types:
        graph.types[total] = graph.types[node.inputs[0]]
    epsilon = node.attributes.get("epsilon")
    attributes = {"axis": -1, "epsilon": 1e-12 if epsilon is None else epsilon, "stash_type": FLOAT}
    layernorm = _Node("LayerNormalization", "", [total, inputs[2], inputs[3]], [outputs[0]], node.name, attributes)
    rewritten = _rewrite_layernorm(layernorm, graph, opset)
    return None if rewritten is None else (nodes + rewritten[0], rewritten[1])


def stable_layernorm(model: bytes) -> bytes:
    """`model` (an encoded ModelProto) with every LayerNormalization of its main graph rewritten.

    ONNX Runtime's SkipLayerNormalization (com.microsoft), whose old CPU
    kernel fails the same way, becomes the sum and the same rewrite.

    Returns the bytes unchanged when there is none. Subgraphs and functions
    are not looked into: Tingji's exports have no LayerNorm there.
    """
    buf = memoryview(model)
    top = list(_fields(buf))
    opset = 0
    for number, _, value, _, _ in top:
        if number == _MODEL_OPSET:
            domain, version = "", 0
            for o_number, _, o_value, _, _ in _fields(value):
                if o_number == _OPSET_DOMAIN:
                    domain = bytes(o_value).decode()
                elif o_number == _OPSET_VERSION:
                    version = o_value
            if domain in ("", "ai.onnx"):
                opset = version
    graph_fields = [f for f in top if f[0] == _MODEL_GRAPH]
    if not graph_fields:
        return model
    graph_buf = graph_fields[0][2]
    graph = _Graph(graph_buf)
    parts: list[bytes | memoryview] = []
    added: list[bytes] = []
    changed = False
    for number, _, value, start, end in _fields(graph_buf):
        if number == _GRAPH_NODE:
            node = _read_node(value)
            rewritten = None
            if node.op == "LayerNormalization" and node.domain in ("", "ai.onnx"):
                rewritten = _rewrite_layernorm(node, graph, opset)
            elif node.op == "SkipLayerNormalization" and node.domain == "com.microsoft":
                rewritten = _rewrite_skip_layernorm(node, graph, opset)
            if rewritten is not None:
                parts.append(rewritten[0])
                added.append(rewritten[1])
                changed = True
                continue
        parts.append(graph_buf[start:end])
    if not changed:
        return model
    new_graph = b"".join([*parts, *added])
    out: list[bytes | memoryview] = []
    for number, _, _, start, end in top:
        out.append(_bytes_field(_MODEL_GRAPH, new_graph) if number == _MODEL_GRAPH else buf[start:end])
    return b"".join(out)
