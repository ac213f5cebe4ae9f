#!/usr/bin/env python3
"""Experiment: ONNX Runtime session settings for the encoder, A/B against the engine's own.

    python benchmarks/exp_encoder.py --model benchmarks/.cache/full/fp32-f16 [--frames 1000] [--rounds 5]
        [--variants baseline,opt_basic,...] [--profile]

Every variant is a session built from `tingji.engine.recognizer.encoder.session_options`
(what the app uses) with one change. Sessions are built side by side and run
in interleaved rounds (A B C A B C ...), so load from other jobs on the
machine hits all variants alike; the report gives each variant's median and
its ratio to the baseline's median. Nothing in the engine is modified.

`--profile` also runs ORT's profiler on the baseline and sums time per
operator type (where the encoder's time goes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, emit_json  # noqa: E402,F401  (sets sys.path for the app)


def _opts(change: str, threads: int):
    import onnxruntime as ort

    from tingji.engine.sessions import session_options

    o = session_options("cpu", threads)
    if change == "baseline":
        pass
    elif change == "opt_basic":
        o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    elif change == "opt_extended":
        o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    elif change == "opt_disabled":
        o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    elif change == "threads1":
        o.intra_op_num_threads = 1
    elif change == "spin_on":
        o.add_session_config_entry("session.intra_op.allow_spinning", "1")
    elif change == "arena_off":
        o.enable_cpu_mem_arena = False
    elif change == "mem_pattern_off":
        o.enable_mem_pattern = False
    elif change == "denormal_zero":
        o.add_session_config_entry("session.set_denormal_as_zero", "1")
    elif change == "block_base4":
        o.add_session_config_entry("session.dynamic_block_base", "4")
    else:
        raise SystemExit(f"unknown variant {change}")
    return o


VARIANTS = [
    "baseline",
    "opt_basic",
    "opt_extended",
    "threads1",
    "spin_on",
    "arena_off",
    "mem_pattern_off",
    "denormal_zero",
    "block_base4",
]


def _inputs(frames: int, feat_dim: int = 560):
    rng = np.random.default_rng(0)
    return {
        "lfr_feat": rng.standard_normal((1, frames, feat_dim)).astype(np.float32),
        "mask": np.ones((1, frames), np.float32),
    }


def profile_ops(path: Path, frames: int, threads: int) -> dict:
    """ORT profiler: total ms per operator type for one run (after one warm run)."""
    import onnxruntime as ort

    o = _opts("baseline", threads)
    o.enable_profiling = True
    with tempfile.TemporaryDirectory() as tmp:
        o.profile_file_prefix = str(Path(tmp) / "ort")
        s = ort.InferenceSession(str(path), sess_options=o, providers=["CPUExecutionProvider"])
        feeds = _inputs(frames)
        s.run(None, feeds)
        t = time.perf_counter()
        s.run(None, feeds)
        wall = time.perf_counter() - t
        trace = json.loads(Path(s.end_profiling()).read_text())
    by_op: dict[str, float] = defaultdict(float)
    runs = [e for e in trace if e.get("cat") == "Session" and e.get("name") == "model_run"]
    last_start = runs[-1]["ts"] if runs else 0
    for e in trace:
        if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time") and e["ts"] >= last_start:
            by_op[e["args"].get("op_name", "?")] += e["dur"] / 1000
    total = sum(by_op.values())
    return {
        "wall_ms": wall * 1000,
        "kernel_ms": total,
        "by_op_ms": dict(sorted(((k, round(v, 1)) for k, v in by_op.items()), key=lambda kv: -kv[1])),
    }


def optimized_op_counts(path: Path, threads: int, level: str) -> dict:
    """Operator counts of the graph ORT actually runs at a given optimisation level."""
    import onnx
    import onnxruntime as ort

    o = _opts(level, threads)
    with tempfile.TemporaryDirectory() as tmp:
        o.optimized_model_filepath = str(Path(tmp) / "opt.onnx")
        o.add_session_config_entry("session.optimized_model_external_initializers_file_name", "opt.data")
        o.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        ort.InferenceSession(str(path), sess_options=o, providers=["CPUExecutionProvider"])
        model = onnx.load(str(Path(tmp) / "opt.onnx"), load_external_data=False)
    counts: dict[str, int] = defaultdict(int)
    for n in model.graph.node:
        counts[n.op_type] += 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def main(argv: list[str] | None = None) -> int:
    import onnxruntime as ort

    from tingji.engine.manifest import load_manifest

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--graph", choices=["encoder", "encoder_fixed", "ctc"], default="encoder")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--op-counts", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    m = load_manifest(args.model)
    path = m.file(args.graph)
    variants = args.variants.split(",")
    res: dict = {"model": args.model.name, "graph": args.graph, "frames": args.frames, "loadavg_start": os.getloadavg()}
    feeds = _inputs(args.frames)
    if args.graph == "ctc":
        feeds = {
            "enc_output": np.random.default_rng(0).standard_normal((1, args.frames, 512)).astype(np.float32),
            "mask": np.ones((1, args.frames), np.float32),
        }
    sessions = {}
    for v in variants:
        t = time.perf_counter()
        sessions[v] = ort.InferenceSession(
            str(path), sess_options=_opts(v, args.threads), providers=["CPUExecutionProvider"]
        )
        sessions[v].run(None, feeds)  # warm
        print(f"{v}: session + warm run {time.perf_counter() - t:.1f} s", file=sys.stderr)
    times: dict[str, list[float]] = {v: [] for v in variants}
    for r in range(args.rounds):
        order = variants if r % 2 == 0 else variants[::-1]
        for v in order:
            t = time.perf_counter()
            sessions[v].run(None, feeds)
            times[v].append(time.perf_counter() - t)
    base = statistics.median(times[variants[0]])
    res["variants"] = {
        v: {
            "median_s": statistics.median(ts),
            "min_s": min(ts),
            "ratio_to_first": statistics.median(ts) / base,
            "all_s": [round(x, 4) for x in ts],
        }
        for v, ts in times.items()
    }
    res["loadavg_end"] = os.getloadavg()
    del sessions
    if args.profile:
        res["profile"] = profile_ops(path, args.frames, args.threads)
    if args.op_counts:
        res["op_counts"] = {lvl: optimized_op_counts(path, args.threads, lvl) for lvl in ("opt_basic", "baseline")}
    emit_json(res, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
