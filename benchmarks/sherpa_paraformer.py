#!/usr/bin/env python3
"""sherpa-onnx as an optional peer for Paraformer: funasr's own ONNX export of the same checkpoint.

    python benchmarks/sherpa_paraformer.py --checkpoint CKPT --out DIR   # the export alone (cached in DIR)

sherpa-onnx (pip package `sherpa-onnx`) runs Paraformer from the single
graph funasr exports (`AutoModel.export(type="onnx", quantize=True)`:
`model.onnx` fp32 and `model_quant.onnx` with unsigned 8-bit MatMul weights;
for BiCifParaformer four outputs, the timestamps included) plus a
`tokens.txt`. Three things are done here, none of them to funasr's code:

* the export runs in a child process with `torch.onnx.export` defaulting to
  the TorchScript exporter (`dynamo=False`): torch 2.13 defaults to the dynamo
  one, which funasr's export was not written for;
* the metadata sherpa-onnx reads from the graph (`offline-paraformer-model.cc`:
  `vocab_size`, `lfr_window_size`, `lfr_window_shift`, `neg_mean`,
  `inv_stddev`) is added from the checkpoint's config.yaml, am.mvn and
  tokens.json, as sherpa-onnx's published Paraformer files carry it;
* `tokens.txt` ("symbol id" per line) is written from tokens.json.

When sherpa-onnx or funasr is not installed the peer is skipped with one
line saying what to install.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import cached_build, keep_build

FILES = ("model.onnx", "model_quant.onnx", "tokens.txt")


def unavailable() -> str | None:
    """Why the peer cannot run here, or None."""
    try:
        import sherpa_onnx  # noqa: F401
    except ImportError:
        return "the sherpa-onnx package is not installed (pip install sherpa-onnx==2.0.1)"
    try:
        import funasr  # noqa: F401
    except ImportError:
        return "funasr is not installed: its exporter makes the peer's model (pip install funasr==1.4.16)"
    return None


def metadata(checkpoint: Path) -> dict[str, str]:
    """What sherpa-onnx's OfflineParaformerModel reads from the graph's metadata, from the release files."""
    import yaml

    from tingji.engine.frontend import load_cmvn

    cfg = yaml.safe_load((checkpoint / "config.yaml").read_text(encoding="utf-8"))
    frontend = cfg.get("frontend_conf") or {}
    cmvn = load_cmvn(checkpoint / "am.mvn")  # <AddShift> is minus the mean, <Rescale> one over the deviation
    tokens = json.loads((checkpoint / "tokens.json").read_text(encoding="utf-8"))
    return {
        "vocab_size": str(len(tokens)),
        "lfr_window_size": str(frontend.get("lfr_m", 7)),
        "lfr_window_shift": str(frontend.get("lfr_n", 6)),
        "neg_mean": ",".join(repr(float(v)) for v in cmvn.shift),
        "inv_stddev": ",".join(repr(float(v)) for v in cmvn.scale),
    }


def tokens_txt(checkpoint: Path) -> str:
    """tokens.json as sherpa-onnx's symbol table: one "symbol id" line per token."""
    tokens = json.loads((checkpoint / "tokens.json").read_text(encoding="utf-8"))
    return "".join(f"{tok} {i}\n" for i, tok in enumerate(tokens))


def _add_metadata(path: Path, meta: dict[str, str]) -> None:
    import onnx

    model = onnx.load(str(path))
    have = {p.key for p in model.metadata_props}
    for key, value in meta.items():
        if key not in have:
            prop = model.metadata_props.add()
            prop.key, prop.value = key, value
    onnx.save(model, str(path))


def _export(checkpoint: Path, work: Path) -> None:
    """funasr's export (child process): the TorchScript exporter, as funasr's export was written for."""
    import functools

    import torch

    torch.onnx.export = functools.partial(torch.onnx.export, dynamo=False)
    from funasr import AutoModel

    model = AutoModel(model=str(checkpoint), device="cpu", disable_update=True, log_level="ERROR")
    model.export(type="onnx", quantize=True, output_dir=str(work))


def build(checkpoint: Path, out: Path) -> dict[str, Any]:
    """funasr's export of `checkpoint` made loadable by sherpa-onnx, in `out` (cached); paths and timings."""
    out = out.resolve()
    if (cached := cached_build(out)) is not None:
        return cached
    checkpoint = Path(checkpoint).resolve()
    work = out.with_name(out.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    here = Path(__file__).resolve()
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, str(here), "--checkpoint", str(checkpoint), "--out", str(work), "--child"],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t
    if r.returncode != 0 or not (work / "model_quant.onnx").is_file():
        raise RuntimeError(
            "funasr's Paraformer export failed:\n" + "\n".join((r.stderr or r.stdout).splitlines()[-15:])
        )
    meta = metadata(checkpoint)
    for name in ("model.onnx", "model_quant.onnx"):
        _add_metadata(work / name, meta)
    (work / "tokens.txt").write_text(tokens_txt(checkpoint), encoding="utf-8")
    info = {
        "export_s": round(seconds, 1),
        "model": str(out / "model.onnx"),
        "model_int8": str(out / "model_quant.onnx"),
        "tokens": str(out / "tokens.txt"),
        "model_int8_mb": round((work / "model_quant.onnx").stat().st_size / 1e6, 1),
        "metadata": sorted(meta),
    }
    return keep_build(work, out, FILES, info)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--checkpoint", type=Path, required=True, help="a Paraformer release folder (config.yaml, model.pt)"
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _export(args.checkpoint, args.out)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import common  # noqa: F401  (puts app/ on the path for tingji.engine.frontend)

    print(json.dumps(build(args.checkpoint, args.out), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
