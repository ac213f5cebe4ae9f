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

The rewrite edits the model's protobuf at the wire level (`onnx_wire`) and
copies every other byte as it is: the `onnx` package is not a runtime
dependency (the Windows build has none), and the weights, inside the file
or external to it, are never decoded.

The check: every float output of every run is finite (`require_finite`), or
the run is the coded `engine.not_finite`. A graph that answers with an
ArgMax (the punctuation model) would hide a NaN behind a valid index, so on
every provider its scores become outputs too (`argmax_scores`, asked for by
`sessions.GraphSpec.scores`; cached under its own key like the rewrite).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from . import messages
from . import onnx_wire as wire

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
# Names the check's rewrite goes by (a graph's ArgMax scores as an output too, `argmax_scores`).
ARGMAX_SCORES = "argmax-scores-1"
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

        if not self.rewrites:
            return ort.InferenceSession(str(self.path), sess_options=options, providers=list(providers), **kwargs)
        data = self.path.read_bytes()
        for name in self.rewrites:
            data = REWRITES[name](data)
        if _config(options, EXTERNAL_FOLDER) is None:
            options.add_session_config_entry(EXTERNAL_FOLDER, str(self.path.parent))
        if STABLE_LAYERNORM in self.rewrites:
            kwargs["disabled_optimizers"] = list(LAYERNORM_FUSIONS)
        return ort.InferenceSession(data, sess_options=options, providers=list(providers), **kwargs)


def model_source(path: Path, provider: str, *, scores: bool = False) -> ModelSource:
    """The graph file at `path` as a session on `provider` must see it under the ONNX Runtime in use.

    Args:
        path: The .onnx file (its external weights, if any, beside it).
        provider: Tingji's short provider name ("cpu", "dml", "cuda").
        scores: The graph ends in an ArgMax whose scores `require_finite` must see (`argmax_scores`).
    """
    return ModelSource(Path(path), rewrites_for(provider) + ((ARGMAX_SCORES,) if scores else ()))


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


def argmax_scores(model: bytes) -> bytes:
    """`model` (an encoded ModelProto) with the scores behind each ArgMax output added as the last outputs.

    A graph that answers with an ArgMax (the punctuation model's mark per
    token) hides a NaN: the choice is still a valid index. With the scores
    it picked from as an output too, `require_finite` sees them; callers read
    the outputs they asked for first, so the extra ones change nothing else.
    Returns the bytes unchanged when no graph output comes from an ArgMax.
    """
    buf = memoryview(model)
    top = list(wire.fields(buf))
    graph_fields = [f for f in top if f[0] == wire.MODEL_GRAPH]
    if not graph_fields:
        return model
    graph_buf = graph_fields[0][2]
    info = wire.GraphInfo(graph_buf)
    outputs = {wire.value_info(v)[0] for n, _, v, _, _ in wire.fields(graph_buf) if n == wire.GRAPH_OUTPUT}
    added = b""
    for number, _, value, _, _ in wire.fields(graph_buf):
        if number != wire.GRAPH_NODE:
            continue
        node = wire.read_node(value)
        if node.op == "ArgMax" and node.domain in ("", "ai.onnx") and set(node.outputs) & outputs:
            scores = node.inputs[0]
            if scores not in outputs:
                outputs.add(scores)
                added += wire.bytes_field(wire.GRAPH_OUTPUT, wire.value_info_bytes(scores, info.types.get(scores)))
    if not added:
        return model
    new_graph = bytes(graph_buf) + added
    return b"".join(
        wire.bytes_field(wire.MODEL_GRAPH, new_graph) if number == wire.MODEL_GRAPH else buf[start:end]
        for number, _, _, start, end in top
    )


# -- the rewrite ------------------------------------------------------------------------------------------------


def _layernorm_attributes(node: wire.Node, graph: wire.GraphInfo) -> tuple[int, float, int] | None:
    """A LayerNorm's axis (counted from the end where its input's rank is known, else as written), epsilon and
    stash type; None for a stash type the rewrite does not take."""
    axis = int(node.attributes.get("axis") or -1)
    epsilon = float(node.attributes.get("epsilon") if node.attributes.get("epsilon") is not None else 1e-5)
    stash = int(node.attributes.get("stash_type") or wire.FLOAT)
    if stash not in (wire.FLOAT, wire.DOUBLE):
        return None  # a half-precision stash type: no exporter writes one
    x = node.inputs[0]
    if axis >= 0 and x in graph.ranks:
        axis -= graph.ranks[x]
    return axis, epsilon, stash


def _rewrite_layernorm(node: wire.Node, graph: wire.GraphInfo, opset: int) -> tuple[bytes, bytes] | None:
    """(nodes, initializers) computing `node` in the two-pass form; None when it cannot be rewritten."""
    attributes = _layernorm_attributes(node, graph)
    if attributes is None:
        return None
    axis, epsilon, stash = attributes
    x, scale = node.inputs[0], node.inputs[1]
    bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
    outputs = node.outputs + [""] * (3 - len(node.outputs))
    y, mean_out, inv_out = outputs[:3]
    flatten = axis >= 0  # rank unknown: normalise [outer, inner] and reshape back
    if flatten and (mean_out or inv_out):
        return None  # their shape needs the rank
    base = (node.name or y or "layernorm") + "/stable_"
    nodes: list[bytes] = []
    inits: list[bytes] = []

    def add(op: str, inputs: Sequence[str], out: str = "", **attributes: Any) -> str:
        out = out or graph.fresh(base + op.lower())
        nodes.append(wire.node_field(op, inputs, [out], graph.fresh(base + op.lower() + "_node"), **attributes))
        return out

    def const(tag: str, values: np.ndarray, data_type: int) -> str:
        name = graph.fresh(base + tag)
        inits.append(wire.bytes_field(wire.GRAPH_INITIALIZER, wire.tensor_bytes(name, values, data_type)))
        return name

    x_type = graph.types.get(x)
    source = add("Flatten", [x], axis=axis) if flatten else x
    axes = [-1] if flatten else list(range(axis, 0))
    if x_type != stash:
        source = add("Cast", [source], to=stash)
    if opset >= 18:
        axes_name = const("axes", np.array(axes, np.int64), wire.INT64)

        def reduce_mean(value: str, out: str = "") -> str:
            return add("ReduceMean", [value, axes_name], out, keepdims=1)

    else:

        def reduce_mean(value: str, out: str = "") -> str:
            return add("ReduceMean", [value], out, axes=axes, keepdims=1)

    eps_dtype = np.float64 if stash == wire.DOUBLE else np.float32
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


def _rewrite_skip_layernorm(node: wire.Node, graph: wire.GraphInfo, opset: int) -> tuple[bytes, bytes] | None:
    """ONNX Runtime's SkipLayerNormalization (a graph it optimised and saved holds them): the sum, then a LayerNorm."""
    inputs = node.inputs + [""] * (5 - len(node.inputs))
    outputs = node.outputs + [""] * (4 - len(node.outputs))
    if outputs[1] or outputs[2]:
        return None  # its own Mean/InvStdDev shapes; no inference graph reads them
    base = (node.name or outputs[0] or "skip_layernorm") + "/stable_"
    total = outputs[3] if outputs[3] and not inputs[4] else graph.fresh(base + "sum")
    nodes = wire.node_field("Add", inputs[:2], [total], graph.fresh(base + "add_node"))
    if inputs[4]:
        total_bias = outputs[3] or graph.fresh(base + "sum_bias")
        nodes += wire.node_field("Add", [total, inputs[4]], [total_bias], graph.fresh(base + "add_bias_node"))
        total = total_bias
    if node.inputs[0] in graph.types:
        graph.types[total] = graph.types[node.inputs[0]]
    epsilon = node.attributes.get("epsilon")
    attributes = {"axis": -1, "epsilon": 1e-12 if epsilon is None else epsilon, "stash_type": wire.FLOAT}
    layernorm = wire.Node("LayerNormalization", "", [total, inputs[2], inputs[3]], [outputs[0]], node.name, attributes)
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
    top = list(wire.fields(buf))
    opset = 0
    for number, _, value, _, _ in top:
        if number == wire.MODEL_OPSET:
            domain, version = "", 0
            for o_number, _, o_value, _, _ in wire.fields(value):
                if o_number == wire.OPSET_DOMAIN:
                    domain = bytes(o_value).decode()
                elif o_number == wire.OPSET_VERSION:
                    version = o_value
            if domain in ("", "ai.onnx"):
                opset = version
    graph_fields = [f for f in top if f[0] == wire.MODEL_GRAPH]
    if not graph_fields:
        return model
    graph_buf = graph_fields[0][2]
    graph = wire.GraphInfo(graph_buf)
    parts: list[bytes | memoryview] = []
    added: list[bytes] = []
    changed = False
    for number, _, value, start, end in wire.fields(graph_buf):
        if number == wire.GRAPH_NODE:
            node = wire.read_node(value)
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
        out.append(wire.bytes_field(wire.MODEL_GRAPH, new_graph) if number == wire.MODEL_GRAPH else buf[start:end])
    return b"".join(out)


# Each rewrite by the name `ModelSource.rewrites` and the cache key give it.
REWRITES = {STABLE_LAYERNORM: stable_layernorm, ARGMAX_SCORES: argmax_scores}
