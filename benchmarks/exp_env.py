#!/usr/bin/env python3
"""Experiment: process-level settings of the decoder (environment variables read at library load).

    python benchmarks/exp_env.py --model benchmarks/.cache/full/int8-q5_k --rounds 4 \
        --env "default=" --env "passive=OMP_WAIT_POLICY=PASSIVE" --env "threads1=@threads1"

llama.cpp here is built with OpenMP, whose worker threads busy-wait between
parallel regions (OMP_WAIT_POLICY, GOMP_SPINCOUNT); those are read once when
libgomp loads, so each setting needs its own process. Each round starts one
fresh process per setting (in alternating order) that runs exp_decoder.py's
measurement once; `@variant` picks an exp_decoder variant instead of an
environment change. Reports median prefill and generation speed per setting.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import emit_json  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--env", action="append", required=True, help="NAME=VAR=VALUE[,VAR=VALUE] or NAME=@variant")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--gen", type=int, default=32)
    args = ap.parse_args(argv)

    settings = {}
    for spec in args.env:
        name, _, rest = spec.partition("=")
        variant, env = "baseline", {}
        if rest.startswith("@"):
            variant = rest[1:]
        elif rest:
            for kv in rest.split(","):
                k, _, v = kv.partition("=")
                env[k] = v
        settings[name] = (variant, env)
    got: dict[str, dict[str, list[float]]] = {n: {"cold": [], "reused": [], "gen": []} for n in settings}
    load0 = os.getloadavg()
    for r in range(args.rounds):
        names = list(settings) if r % 2 == 0 else list(settings)[::-1]
        for name in names:
            variant, env = settings[name]
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "r.json"
                subprocess.run(
                    [
                        sys.executable,
                        str(HERE / "exp_decoder.py"),
                        "--model",
                        str(args.model),
                        "--variants",
                        variant,
                        "--rounds",
                        "1",
                        "--gen",
                        str(args.gen),
                        "--json",
                        str(out),
                    ],
                    env={**os.environ, **env},
                    check=True,
                    capture_output=True,
                )
                v = json.loads(out.read_text())["variants"][variant]
            got[name]["cold"].append(v["prefill_cold_s"])
            got[name]["reused"].append(v["prefill_reused_s"])
            got[name]["gen"].append(v["raw"]["gen"][0])
    first = next(iter(settings))
    res = {"loadavg_start": load0, "loadavg_end": os.getloadavg(), "settings": {}}
    for name, d in got.items():
        res["settings"][name] = {
            "env": settings[name][1],
            "variant": settings[name][0],
            "prefill_cold_s": statistics.median(d["cold"]),
            "prefill_reused_s": statistics.median(d["reused"]),
            "gen_tok_s": (args.gen - 1) / statistics.median(d["gen"]),
            "gen_speed_ratio_to_first": statistics.median(got[first]["gen"]) / statistics.median(d["gen"]),
            "raw": {k: [round(x, 3) for x in xs] for k, xs in d.items()},
        }
    emit_json(res, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
