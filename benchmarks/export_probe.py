#!/usr/bin/env python3
"""Run `tingji export-model` as a child and measure it: wall time per step, peak RSS, file sizes.

    python benchmarks/export_probe.py --source CKPT --out MODEL [--precision int8] [--decoder-quant q5_k]

The exporter reports its steps on stderr ("export: ..."); each line is
timestamped here, and the child's resident memory is sampled every 50 ms, so
the peak can be attributed to the step that was running. The overall peak
comes from the kernel (`ru_maxrss` of the waited-for child), not the sampler.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import ROOT, emit_json


def _rss_kb(pid: int) -> tuple[int, int]:
    """(resident, anonymous resident) of `pid` and its descendants, in KiB ((0, 0) once gone).

    The difference is file-backed pages, mostly the memory-mapped model.pt,
    which the kernel can drop under pressure; the anonymous part cannot.
    """
    total = anon = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                    elif line.startswith("RssAnon:"):
                        anon += int(line.split()[1])
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo.extend(int(c) for c in fh.read().split())
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return total, anon


def probe_export(
    source: Path,
    out: Path,
    precision: str,
    decoder_quant: str,
    *,
    fixed: bool = True,
    echo: bool = False,
    env: dict[str, str] | None = None,
) -> dict:
    """Export `source` to `out` in a child process (its environment plus `env`); return timings, memory and sizes."""
    cmd = [
        sys.executable,
        "-m",
        "tingji",
        "export-model",
        "--source",
        str(source),
        "--out",
        str(out),
        "--precision",
        precision,
        "--decoder-quant",
        decoder_quant,
    ]
    if not fixed:
        cmd.append("--no-fixed")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    # This checkout's exporter, not whichever `tingji` happens to be installed.
    path = os.pathsep.join(p for p in (str(ROOT / "app"), os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {}), "PYTHONPATH": path},
    )
    steps: list[dict] = []  # {"step", "start_s", "peak_rss_mb"}
    current = {"step": "start", "start_s": 0.0, "peak_rss_mb": 0.0, "peak_anon_mb": 0.0}
    steps.append(current)
    lock = threading.Lock()
    tail: list[str] = []

    def read_stderr() -> None:
        nonlocal current
        for line in proc.stderr:
            line = line.rstrip()
            tail.append(line)
            del tail[:-40]
            if echo:
                print(f"[{time.perf_counter() - t0:7.1f}s] {line}", file=sys.stderr)
            if line.startswith("export: "):
                with lock:
                    current = {
                        "step": line[len("export: ") :],
                        "start_s": round(time.perf_counter() - t0, 2),
                        "peak_rss_mb": 0.0,
                        "peak_anon_mb": 0.0,
                    }
                    steps.append(current)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    while proc.poll() is None:
        rss, anon = (v / 1024 for v in _rss_kb(proc.pid))
        with lock:
            current["peak_rss_mb"] = max(current["peak_rss_mb"], round(rss, 1))
            current["peak_anon_mb"] = max(current["peak_anon_mb"], round(anon, 1))
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    reader.join(timeout=5)
    proc.stdout.read()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    for a, b in zip(steps, steps[1:]):
        a["seconds"] = round(b["start_s"] - a["start_s"], 2)
    steps[-1]["seconds"] = round(wall - steps[-1]["start_s"], 2)
    result = {
        "precision": precision,
        "decoder_quant": decoder_quant,
        "returncode": proc.returncode,
        "wall_s": round(wall, 2),
        # ru_maxrss of RUSAGE_CHILDREN is the largest child so far; only valid if it grew.
        "peak_rss_mb": round(usage / 1024, 1) if usage > before else max(s["peak_rss_mb"] for s in steps),
        "peak_rss_sampled_mb": max(s["peak_rss_mb"] for s in steps),
        "peak_anon_sampled_mb": max(s["peak_anon_mb"] for s in steps),
        "steps": steps,
    }
    if proc.returncode != 0:
        result["stderr_tail"] = tail
        return result
    files = {p.name: p.stat().st_size for p in sorted(out.iterdir()) if p.is_file()}
    result["files_bytes"] = files
    result["encoder_bytes"] = sum(v for k, v in files.items() if k.startswith("encoder."))
    result["ctc_bytes"] = sum(v for k, v in files.items() if k.startswith("ctc."))
    result["decoder_bytes"] = sum(v for k, v in files.items() if k.startswith("decoder."))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--precision", default="fp32")
    ap.add_argument("--decoder-quant", default="f16")
    ap.add_argument("--no-fixed", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the result here")
    args = ap.parse_args(argv)
    res = probe_export(args.source, args.out, args.precision, args.decoder_quant, fixed=not args.no_fixed, echo=True)
    res["load_before"] = os.getloadavg()
    emit_json(res, args.json)
    return 0 if res["returncode"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
