#!/usr/bin/env python3
"""Fun-ASR-Nano's own stages of `run.py`, without the peers: for checking a change in minutes, not an hour.

    python benchmarks/nano_stages.py [--quiet-below 0.6] [--stages decoder first_result tingji]

Runs the `decoder` (q5_k), `first_result` and `tingji` (int8 + q5_k) stages
exactly as `run.py` does (same children, arguments and cached models), and
writes `results/nano-stages.json` with the figures of `latest.json` they
make (`prefill_fraction_of_llama_batch`, `decoder_fraction_of_kernel_ceiling`,
`time_to_first_result_s`, `peak_rss_mb`, `dictation_latency_3s_s`, the
5-minute wall). It never writes `latest.*`: goals are judged on a full run,
whose ratios need the references measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime, timezone
from pathlib import Path

import run
from common import BENCH, add_quiet_options, machine, run_child, use_quiet_options

from tingji.engine.manifest import load_manifest

STAGES = ("decoder", "first_result", "tingji")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stages", nargs="+", choices=STAGES, default=list(STAGES))
    ap.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "nano-stages.json")
    add_quiet_options(ap)
    args = ap.parse_args(argv)
    use_quiet_options(args)
    t0 = time.perf_counter()
    built = run.build(args.cache_dir / "full", False, sensevoice_too=False)
    model = built["models"][run.PRIMARY]
    graphs = str(built["graph_cache"])
    res: dict = {}
    summary: dict = {}
    if "decoder" in args.stages:
        gguf = load_manifest(model).file("decoder")
        res["decoder"] = {
            "q5_k": run_child(
                "decoder",
                {"model": str(model), "gguf": str(gguf), "n_audio": 125, "gen_tokens": 64, "reps": 3, "probe_mb": 512},
                log=run.log,
            )
        }
        d = res["decoder"]["q5_k"]
        summary.update(run.decoder_ratios(d))
    if "first_result" in args.stages:
        res["first_result"] = run_child(
            "first_result", {"model": str(model), "tokens": 12, "reps": 5, "graph_cache": graphs}, log=run.log
        )
        summary["time_to_first_result_s"] = res["first_result"]["median_s"]
        summary["first_result_ready_s"] = res["first_result"]["ready_median_s"]
    if "tingji" in args.stages:
        runs = [["e2e_budget", 200, True]]
        res["tingji"] = run_child(
            "tingji",
            {
                "model": str(model),
                "audio": str(built["audio"]),
                "dict_tokens": 12,
                "reps_dict": 7,
                "e2e_runs": runs,
                "graph_cache": graphs,
            },
            log=run.log,
        )
        t = res["tingji"]
        summary.update(
            peak_rss_mb=t["peak_rss_mb"],
            dictation_latency_3s_s=t["dictation_3s"]["median_s"],
            e2e_5min_s=t["e2e_budget"]["wall_s"],
            e2e_5min_timings=t["e2e_budget"]["timings"],
        )
    doc = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "stages": args.stages,
        "run_s": round(time.perf_counter() - t0, 1),
        "summary": summary,
        "results": res,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    run.log(f"wrote {args.out}")
    for k, v in summary.items():
        run.log(f"  {k} = {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
