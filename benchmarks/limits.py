"""The machine's own limits, measured in the same run as everything else.

* fp32 GEMM: large square sgemm through numpy's BLAS and torch, best of several;
* ONNX Runtime's own GEMMs on a SAN-M feed-forward shape at a set thread count:
  fp32 `MatMul` and int8 `DynamicQuantizeMatMul` (u8 activations x s8 weights,
  the kernel Tingji's int8 graphs run), for the families whose goals are
  ratios against a peer running the same arithmetic;
* memory bandwidth: a large numpy copy, counted as bytes read + bytes
  written per second, with one thread and with one thread per usable core
  (np.copyto releases the GIL), best of several.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np


def best_seconds(fn, reps: int) -> float:
    """Fastest of `reps` timed calls after one untimed warm-up call."""
    fn()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def gemm_gflops_numpy(n: int = 4096, reps: int = 5) -> float:
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
    c = np.empty((n, n), np.float32)
    return 2.0 * n**3 / best_seconds(lambda: np.matmul(a, b, out=c), reps) / 1e9


def gemm_gflops_torch(n: int = 4096, reps: int = 5, threads: int | None = None) -> float | None:
    try:
        import torch
    except ImportError:
        return None
    if threads:
        torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=g)
    b = torch.randn(n, n, generator=g)
    c = torch.empty(n, n)
    return 2.0 * n**3 / best_seconds(lambda: torch.mm(a, b, out=c), reps) / 1e9


def ort_gemm_gops(threads: int, int8: bool, m: int = 1000, k: int = 512, n: int = 2048, reps: int = 10) -> float:
    """Multiply-adds x 2 per second of one ONNX Runtime GEMM node, `[m,k] x [k,n]`, on `threads` threads.

    Args:
        int8: `DynamicQuantizeMatMul` with 7-bit signed weights (as Tingji's int8 export writes them) instead of
            an fp32 `MatMul`.
    """
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from tingji.engine.sessions import session_options

    rng = np.random.default_rng(0)
    w = rng.standard_normal((k, n)).astype(np.float32)
    x = rng.standard_normal((m, k)).astype(np.float32)
    if int8:
        scale = (np.abs(w).max(0) / 63).astype(np.float32)
        inits = [
            numpy_helper.from_array(np.round(w / scale).astype(np.int8), "w"),
            numpy_helper.from_array(scale, "s"),
            numpy_helper.from_array(np.zeros(n, np.int8), "z"),
        ]
        node = helper.make_node("DynamicQuantizeMatMul", ["x", "w", "s", "z"], ["y"], domain="com.microsoft")
    else:
        inits = [numpy_helper.from_array(w, "w")]
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node],
        "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        inits,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    )
    so = session_options("cpu", threads)  # as Tingji's own sessions run
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return 2.0 * m * k * n / best_seconds(lambda: sess.run(None, {"x": x}), reps) / 1e9


def stage_gemm(a: dict[str, Any]) -> dict[str, Any]:
    """A benchmark child's stage: ONNX Runtime's fp32 and int8 GEMMs and torch's sgemm on `a["threads"]` threads
    and on one, and the fastest of those at `a["threads"]` (`limit_gops`), the speed a family's floor uses."""
    threads, reps = a["threads"], a["reps"]
    out: dict[str, Any] = {"threads": threads, "shape": [1000, 512, 2048]}
    for n, suffix in ((1, "_1thread"), (threads, "")):
        out[f"ort_fp32_gops{suffix}"] = ort_gemm_gops(n, int8=False, reps=reps)
        out[f"ort_int8_gops{suffix}"] = ort_gemm_gops(n, int8=True, reps=reps)
        out[f"torch_fp32_gops{suffix}"] = gemm_gflops_torch(2048, reps, threads=n)
    out["limit_gops"] = max(out[k] for k in ("ort_fp32_gops", "ort_int8_gops", "torch_fp32_gops") if out[k])
    return out


def copy_bandwidth_gbs(mb: int = 1024, reps: int = 5, threads: int = 1) -> float:
    """(bytes read + bytes written) / s for copying an `mb`-MB float32 array."""
    n = mb * 1024 * 1024 // 4
    src = np.ones(n, np.float32)
    dst = np.zeros(n, np.float32)
    parts = np.array_split(np.arange(n), threads)
    bounds = [(int(p[0]), int(p[-1]) + 1) for p in parts if len(p)]

    def copy_part(a: int, b: int) -> None:
        np.copyto(dst[a:b], src[a:b])

    def once() -> None:
        if threads == 1:
            np.copyto(dst, src)
        else:
            workers = [threading.Thread(target=copy_part, args=ab) for ab in bounds]
            for w in workers:
                w.start()
            for w in workers:
                w.join()

    return 2.0 * src.nbytes / best_seconds(once, reps) / 1e9


def measure(cores: int, quick: bool = False) -> dict:
    n = 1024 if quick else 4096
    reps = 2 if quick else 6
    mb = 64 if quick else 1024
    res = {
        "gemm_n": n,
        "gemm_numpy_gflops": gemm_gflops_numpy(n, reps),
        "gemm_torch_gflops": gemm_gflops_torch(n, reps, threads=cores),
        "copy_mb": mb,
        "copy_1thread_gbs": copy_bandwidth_gbs(mb, reps, 1),
        "copy_allcores_gbs": copy_bandwidth_gbs(mb, reps, max(1, cores)),
    }
    res["gemm_limit_gflops"] = max(v for v in (res["gemm_numpy_gflops"], res["gemm_torch_gflops"]) if v)
    res["bandwidth_limit_gbs"] = max(res["copy_1thread_gbs"], res["copy_allcores_gbs"])
    return res
