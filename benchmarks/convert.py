#!/usr/bin/env python3
"""Issue 44 proof 4: what converting an official checkpoint costs, from graph templates beside the torch exporter.

    python3 benchmarks/convert.py [--only nano qwen3-1.7b ...] [--write]

Each release's full-size random checkpoint (made once under benchmarks/.cache/convert/) is converted
twice in the same run, each in a child process measured by `export_probe` (wall time, peak RSS from
the kernel): by the torch exporter (`TINGJI_GRAPHS=torch`) and from the app's shipped templates
(`TINGJI_GRAPHS=templates`, torch never imported). The two folders' manifests must list the same
files (same SHA-256), or the run stops. `--write` puts `convert_<name>_s` and
`convert_<name>_peak_rss_mb` (templates) with the torch figures beside them into results/latest.json.
The machine's CPU flags go with the run (common.machine()).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from common import BENCH, ROOT, machine, write_latest
from export_probe import probe_export

CACHE = BENCH / ".cache" / "convert"
# name -> (make_tiny_checkpoint.py arguments, precision, decoder quantisation, goals {key: (op, value)})
RELEASES: dict[str, tuple[list[str], str, str, dict[str, tuple[str, float]]]] = {
    "nano": (
        ["--family", "fun-asr-nano"],
        "int8",
        "q5_k",
        {"convert_nano_s": ("<=", 40), "convert_nano_peak_rss_mb": ("<=", 2500)},
    ),
    "sensevoice": (["--family", "sense-voice-small"], "int8", "f16", {}),
    "qwen3_0_6b": (["--family", "qwen3-asr", "--size", "0.6b"], "int8", "q5_k", {}),
    "qwen3_1_7b": (
        ["--family", "qwen3-asr", "--size", "1.7b"],
        "int8",
        "q5_k",
        {"convert_qwen3_1_7b_peak_rss_mb": ("<=", 3500)},
    ),
    "paraformer": (["--family", "paraformer", "--variant", "bicif"], "int8", "f16", {}),
    "ct_punc": (["--family", "ct-punc"], "int8", "f16", {}),
    "campplus": (["--family", "campplus"], "fp32", "f16", {}),
}


def checkpoint(name: str, args: list[str]) -> Path:
    folder = CACHE / name / "checkpoint"
    if not folder.is_dir():
        partial = CACHE / name / "checkpoint.partial"
        shutil.rmtree(partial, ignore_errors=True)
        tool = ROOT / "tools" / "make_tiny_checkpoint.py"
        rc = os.spawnv(
            os.P_WAIT, os.sys.executable, [os.sys.executable, str(tool), *args, "--full-size", "--out", str(partial)]
        )
        if rc != 0:
            raise SystemExit(f"convert: making the {name} checkpoint failed ({rc})")
        partial.rename(folder)
    return folder


def files(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["files"]


def measure(name: str) -> dict[str, Any]:
    args, precision, quant, _ = RELEASES[name]
    source = checkpoint(name, args)
    runs = {}
    for way in ("torch", "templates"):
        out = CACHE / name / f"out-{way}"
        shutil.rmtree(out, ignore_errors=True)
        stats = probe_export(source, out, precision, quant, env={"TINGJI_GRAPHS": way})
        if stats["returncode"] != 0:
            raise SystemExit(f"convert: {name} with {way} failed:\n" + "\n".join(stats.get("stderr_tail", [])))
        runs[way] = {k: stats[k] for k in ("wall_s", "peak_rss_mb", "peak_anon_sampled_mb", "steps")}
    same = files(CACHE / name / "out-torch") == files(CACHE / name / "out-templates")
    if not same:
        raise SystemExit(f"convert: {name}: the two folders differ")
    for way in ("torch", "templates"):
        shutil.rmtree(CACHE / name / f"out-{way}")
    return {"precision": precision, "decoder_quant": quant, "identical_files": same, **runs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(RELEASES))
    ap.add_argument("--write", action="store_true", help="merge the figures into results/latest.json")
    args = ap.parse_args(argv)
    doc: dict[str, Any] = {"machine": machine(), "releases": {}}
    summary: dict[str, Any] = {}
    for name in args.only or list(RELEASES):
        result = measure(name)
        result["measured"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        doc["releases"][name] = result
        summary[f"convert_{name}_s"] = result["templates"]["wall_s"]
        summary[f"convert_{name}_peak_rss_mb"] = result["templates"]["peak_rss_mb"]
        summary[f"convert_{name}_torch_s"] = result["torch"]["wall_s"]
        summary[f"convert_{name}_torch_peak_rss_mb"] = result["torch"]["peak_rss_mb"]
        goals = {k: v for k, v in RELEASES[name][3].items()}
        for key, (op, value) in goals.items():
            got = summary[key]
            result.setdefault("goals", {})[key] = {"value": got, "goal": f"{op} {value}", "met": got <= value}
        print(json.dumps({name: {k: v for k, v in result.items() if k != "machine"}}, indent=1, default=str))
    doc["summary"] = summary
    if args.write:
        # A run of some releases keeps the others' last figures (each result says when it was measured).
        before = json.loads((BENCH / "results" / "latest.json").read_text()).get("convert") or {}
        doc["releases"] = {**(before.get("releases") or {}), **doc["releases"]}
        doc["summary"] = {**(before.get("summary") or {}), **summary}
        write_latest(summary, "convert", doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
