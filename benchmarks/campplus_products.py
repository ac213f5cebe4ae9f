"""CAM++'s matrix products alone: how close to issue 45's floor any ONNX Runtime graph of this model can come.

A stage of `diarization.py` (`dz_products`, a child on 2 threads). Each convolution of the
speaker model's batch twin is timed as the one GEMM it is (rows = windows x output positions,
k = input channels x kernel, n = output channels: the im2col form) through ONNX Runtime's
fp32 `MatMul` and its u8 x s8 `MatMulInteger` (the kernel the int8 graph's products run on),
each alone, the faster counted. Their sum over a window is what the products cost with nothing
else: no quantising, no patch matrices, no normalisation, pooling or copies between them. The
floor's time divided by that sum is the most of the floor (`diarization_floor_fraction`) that a
graph of these products can reach; whatever else the graph does comes out of the difference.
The fastest of these GEMMs is a GEMM of the same run too, so the floor counts it where it beats
`limits.stage_gemm`'s shape: a floor that the products alone went under would be none.

Beside it, counted from the same shapes: the bytes of the 2-D front's patch matrices (u8, one
per convolution with a kernel wider than 1 x 1), which a graph of ONNX Runtime operators writes
whole before its product reads them.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np


def twin_shapes(model: Path) -> tuple[Any, dict[str, list[int]]]:
    """The speaker folder's fixed twin (the batch twin, or the one-window twin of a folder made before it) and
    the static shape of each of its tensors, as ONNX shape inference gives them."""
    import json

    import onnx

    files = json.loads((model / "manifest.json").read_text())["files"]
    twin = files["embedder_batch"] if "embedder_batch" in files else files["embedder_fixed"]
    graph = onnx.shape_inference.infer_shapes(onnx.load(str(model / twin["path"]))).graph
    values = [*graph.value_info, *graph.input, *graph.output]
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in values}
    shapes.update({t.name: list(t.dims) for t in graph.initializer})
    return graph, shapes


def conv_gemms(model: Path) -> tuple[Counter, int, int]:
    """Counter of (rows, k, n) GEMMs, one per Conv node of the folder's fixed twin; the twin's windows; the front's
    patch bytes for those windows (u8 patches of every 2-D convolution wider than 1 x 1)."""
    graph, shapes = twin_shapes(model)
    gemms: Counter = Counter()
    patch_bytes = 0
    for node in graph.node:
        if node.op_type != "Conv":
            continue
        out, w = shapes[node.output[0]], shapes[node.input[1]]
        rows, k = int(np.prod(out)) // out[1], int(np.prod(w[1:]))
        gemms[(rows, k, out[1])] += 1
        if len(w) == 4 and w[2] * w[3] > 1:
            patch_bytes += rows * k
    return gemms, shapes[graph.input[0].name][0], patch_bytes


def _session(graph: Any) -> Any:
    import onnxruntime as ort
    from onnx import helper

    from tingji.engine.sessions import session_options

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = session_options("cpu", 2)  # as Tingji's own sessions run, as limits' GEMMs do
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _product(op: str, rows: int, k: int, n: int, rng: np.random.Generator) -> tuple[Any, dict[str, np.ndarray]]:
    """A session of one [rows, k] x [k, n] product (fp32 `MatMul` or u8 x s8 `MatMulInteger`) and its input."""
    from onnx import TensorProto, helper, numpy_helper

    if op == "MatMul":
        types, w = (TensorProto.FLOAT, TensorProto.FLOAT), rng.standard_normal((k, n)).astype(np.float32)
        x = rng.standard_normal((rows, k)).astype(np.float32)
    else:  # weights within Tingji's int8 limit, as its graphs' are
        types, w = (TensorProto.UINT8, TensorProto.INT32), rng.integers(-63, 64, (k, n)).astype(np.int8)
        x = rng.integers(0, 256, (rows, k)).astype(np.uint8)
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "w"], ["y"])],
        "product",
        [helper.make_tensor_value_info("x", types[0], [rows, k])],
        [helper.make_tensor_value_info("y", types[1], [rows, n])],
        [numpy_helper.from_array(w, "w")],
    )
    return _session(graph), {"x": x}


def stage_products(a: dict[str, Any]) -> dict[str, Any]:
    """`dz_products`: the products of a window of `a["model"]`'s batch twin, each alone, on 2 threads.

    Every product runs three times in a row per round, `a["rounds"]` rounds, and keeps its best time: with its
    operands in cache, as they are when one layer's product reads what the last one wrote, which favours the
    products; and spread over the run, since the machine's pace moves (a shape timed only in a slow minute would
    count slow).
    """
    gemms, windows, patch_bytes = conv_gemms(Path(a["model"]))
    rng = np.random.default_rng(0)
    runs = {(shape, op): _product(op, *shape, rng) for shape in gemms for op in ("MatMul", "MatMulInteger")}
    best_s = dict.fromkeys(runs, float("inf"))
    for _ in range(a.get("rounds", 7)):
        for key, (session, feed) in runs.items():
            session.run(None, feed)  # its buffers and its operands in cache, then the timed runs
            for _ in range(3):
                t = time.perf_counter()
                session.run(None, feed)
                best_s[key] = min(best_s[key], time.perf_counter() - t)
    fp32 = sum(count * best_s[shape, "MatMul"] for shape, count in gemms.items())
    int8 = sum(count * best_s[shape, "MatMulInteger"] for shape, count in gemms.items())
    faster = {shape: min(best_s[shape, "MatMul"], best_s[shape, "MatMulInteger"]) for shape in gemms}
    best = sum(count * faster[shape] for shape, count in gemms.items())
    flops = sum(count * 2.0 * rows * k * n for (rows, k, n), count in gemms.items())
    fastest = max(2.0 * rows * k * n / faster[rows, k, n] for rows, k, n in gemms)
    return {
        "gemms": len(gemms),
        "convolutions": sum(gemms.values()),
        "window_flops": flops / windows,
        "products_ms_per_window": 1000 * best / windows,
        "products_fp32_ms_per_window": 1000 * fp32 / windows,
        "products_int8_ms_per_window": 1000 * int8 / windows,
        "products_gops": flops / best / 1e9,
        "fastest_gops": fastest / 1e9,  # the fastest of these GEMMs: the floor counts it where limits' is slower
        "front_patch_mb_per_window": patch_bytes / windows / 1e6,
    }
