"""The machine's own limits, measured in the same run as everything else.

* fp32 GEMM: large square sgemm through numpy's BLAS and torch, best of several;
* memory bandwidth: a large numpy copy, counted as bytes read + bytes
  written per second, with one thread and with one thread per usable core
  (np.copyto releases the GIL), best of several.
"""

from __future__ import annotations

import threading
import time

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
