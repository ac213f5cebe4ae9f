#!/usr/bin/env python3
"""Experiment: ways to quantise the encoder, on the full-size Nano encoder + adaptor.

    python benchmarks/exp_quant.py --fp32 benchmarks/.cache/full/fp32-f16 --work /tmp/quant \
        [--schemes s8,s8_7bit,...] [--avx2 s8,s8_7bit] [--rounds 3]

For each scheme: the quantised graph (made from the fp32 export's
`encoder.fp32.onnx`, cached in --work), its weight file's size, and in a
fresh process per round: session load time, resident memory after load and
at the peak, and one 60 s window's encode time (the engine's session
options, 2 threads; rounds interleaved so other jobs' load hits every
scheme alike). Error against fp32: largest |q - fp32| over the largest
|fp32| of the adaptor output, on the 60 s window and on a short espeak-ng
clip natively, and with --avx2 also on the clip under qemu's Haswell (AVX2
without VNNI: tests/support/cpu_paths.py; minutes per scheme at full size, and its
timings are emulation, not the kernel's, so only the error is reported).

Schemes: s8 (full-range int8 weights, per tensor: the exporter before issue
18), s8_7bit (7-bit weights: the exporter now), s8_7bit_pc (7-bit, per
output channel), u8 (unsigned weights), int4_b{16,32,128}[_asym]
(MatMulNBits 4-bit weight-only, block size, symmetric unless _asym,
accuracy level 4 = int8 compute), int8_nbits (MatMulNBits 8-bit).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit_json, vm_hwm_mb  # noqa: E402

SCHEMES = ("s8", "s8_7bit", "s8_7bit_pc", "u8", "int8_nbits", "int4_b16", "int4_b32", "int4_b32_asym", "int4_b128")


def quantise(scheme: str, src: Path, dst: Path) -> None:
    """Write `dst` (+ its data file) from the fp32 graph `src` by `scheme`."""
    import onnx

    logging.disable(logging.WARNING)  # the quantisers log every node
    if scheme.startswith(("s8", "u8")):
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(
                str(src),
                str(dst),
                op_types_to_quantize=["MatMul"],
                use_external_data_format=True,
                weight_type=QuantType.QUInt8 if scheme == "u8" else QuantType.QInt8,
                reduce_range="7bit" in scheme,
                per_channel=scheme.endswith("_pc"),
                extra_options={"MatMulConstBOnly": True},
            )
        return
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    bits, block = (8, 32) if scheme == "int8_nbits" else (4, int(scheme.split("_b")[1].split("_")[0]))
    q = MatMulNBitsQuantizer(
        onnx.load(str(src)),
        bits=bits,
        block_size=block,
        is_symmetric=not scheme.endswith("_asym"),
        accuracy_level=4,
        op_types_to_quantize=("MatMul",),
    )
    q.process()
    onnx.save(q.model.model, str(dst), save_as_external_data=True, location=dst.stem + ".data")


def child_speed(a: dict[str, Any]) -> dict[str, Any]:
    """One scheme in this fresh process: load, RSS, and encode times of the 60 s window."""
    import onnxruntime as ort

    from tingji.engine.sessions import session_options

    def rss() -> float:
        line = next(ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    feats = np.load(a["feats"])
    before = rss()
    t = time.perf_counter()
    session = ort.InferenceSession(a["graph"], session_options("cpu", a["threads"]), providers=["CPUExecutionProvider"])
    load_s = time.perf_counter() - t
    loaded = rss() - before
    feed = {"lfr_feat": feats[None], "mask": np.ones((1, len(feats)), np.float32)}
    session.run(None, feed)
    times = []
    for _ in range(a["reps"]):
        t = time.perf_counter()
        session.run(None, feed)
        times.append(time.perf_counter() - t)
    return {"load_s": load_s, "rss_after_load_mb": loaded, "peak_rss_mb": vm_hwm_mb(), "times_s": times}


def _speech_clip(work: Path) -> np.ndarray:
    from tests.support.audio import espeak
    from tingji.engine.frontend import features

    wav = espeak(work / "clip.wav", "Hello world. This is a test of the speech recognizer, one two three four five.")
    return features(wav)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fp32", type=Path, required=True, help="an fp32 Nano export (holds encoder.fp32.onnx)")
    ap.add_argument("--work", type=Path, required=True, help="where the quantised graphs are written and kept")
    ap.add_argument("--audio", type=Path, default=Path(__file__).parent / ".cache/full/audio/long300.wav")
    ap.add_argument("--schemes", default=",".join(SCHEMES))
    ap.add_argument("--avx2", default="", help="schemes whose error is also measured on the emulated AVX2 path")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3, help="timed runs per round (after one untimed)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child_speed(json.loads(args.child))))
        return 0

    from common import read_audio

    from tests.support.cpu_paths import AVX2, NATIVE, run_graphs
    from tingji.engine.frontend import features

    schemes = [s for s in args.schemes.split(",") if s]
    args.work.mkdir(parents=True, exist_ok=True)
    fp32 = args.fp32 / "encoder.fp32.onnx"
    graphs = {"fp32": fp32}
    res: dict[str, Any] = {"schemes": {}}
    for scheme in schemes:
        graphs[scheme] = args.work / f"{scheme}.onnx"
        if not graphs[scheme].is_file():
            t = time.perf_counter()
            quantise(scheme, fp32, graphs[scheme])
            print(f"quantised {scheme} in {time.perf_counter() - t:.0f} s", flush=True)
    feats60 = features(read_audio(str(args.audio), 60.0))
    np.save(args.work / "feats60.npy", feats60)
    clip = _speech_clip(args.work)
    cases = [{"lfr_feat": f[None], "mask": np.ones((1, len(f)), np.float32)} for f in (feats60, clip)]
    names = list(graphs)
    native = {name: run_graphs(NATIVE, [graphs[name]], cases).outputs for name in names}
    ref = native["fp32"]

    def err(outputs: list, case: int) -> float:
        got, want = outputs[case][0]["adaptor_output"], ref[case][0]["adaptor_output"]
        return float(np.abs(got - want).max() / np.abs(want).max())

    for name in names:
        data = [p for p in (graphs[name].with_suffix(".data"), Path(str(graphs[name]) + ".data")) if p.is_file()]
        res["schemes"][name] = {
            "weights_mb": sum(p.stat().st_size for p in data) / 1e6,
            "error_60s": err(native[name], 0),
            "error_clip": err(native[name], 1),
        }
    for scheme in [s for s in args.avx2.split(",") if s]:
        t = time.perf_counter()
        run = run_graphs(AVX2, [graphs[scheme]], cases[1:], timeout=3600)
        got, want = run.outputs[0][0]["adaptor_output"], ref[1][0]["adaptor_output"]
        res["schemes"][scheme]["error_clip_avx2"] = float(np.abs(got - want).max() / np.abs(want).max())
        print(f"{scheme} on the AVX2 path: {time.perf_counter() - t:.0f} s under qemu", flush=True)
    speed: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            child = {
                "graph": str(graphs[name]),
                "feats": str(args.work / "feats60.npy"),
                "threads": args.threads,
                "reps": args.reps,
            }
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--fp32",
                    str(args.fp32),
                    "--work",
                    str(args.work),
                    "--child",
                    json.dumps(child),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            speed[name].append(json.loads(out.stdout.splitlines()[-1]))
    base = statistics.median(t for r in speed["fp32"] for t in r["times_s"])
    for name, runs in speed.items():
        times = [t for r in runs for t in r["times_s"]]
        res["schemes"][name].update(
            {
                "encode_60s_median_s": statistics.median(times),
                "encode_60s_min_s": min(times),
                "speedup_vs_fp32": base / statistics.median(times),
                "load_s": statistics.median(r["load_s"] for r in runs),
                "rss_after_load_mb": statistics.median(r["rss_after_load_mb"] for r in runs),
                "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
            }
        )
    res["threads"], res["rounds"], res["reps"] = args.threads, args.rounds, args.reps
    emit_json(res, args.json)
    print(
        "\n| scheme | weights MB | error 60 s | error clip | clip, AVX2 path | encode 60 s (median) | vs fp32 "
        "| RSS after load MB | peak RSS MB |\n|---|---|---|---|---|---|---|---|---|"
    )
    for name, s in res["schemes"].items():
        avx2 = f"{s['error_clip_avx2']:.3f}" if "error_clip_avx2" in s else "-"
        print(
            f"| {name} | {s['weights_mb']:.0f} | {s['error_60s']:.3f} | {s['error_clip']:.3f} | {avx2} | "
            f"{s['encode_60s_median_s']:.2f} s | {s['speedup_vs_fp32']:.2f}x | {s['rss_after_load_mb']:.0f} | "
            f"{s['peak_rss_mb']:.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
