#!/usr/bin/env python3
"""Train Tingji's demo speaker model (tools/speaker_demo/: what it is and how it is trained).

tools/train_speaker_model.py --out DIR --work DIR [--seed N] [--speakers N] [--steps N]   # on this CPU
tools/train_speaker_model.py --out DIR --work DIR --from-gpu campplus.npz   # export tools/speaker_demo/gpu_train.py's
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _extra in (ROOT / "app", ROOT / "tools"):  # run as a script: this checkout's tingji and tools
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

from speaker_demo.train import from_gpu, run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the demo speaker model (CAM++) on synthetic espeak-ng voices.")
    ap.add_argument("--out", required=True, type=Path, help="exported speaker model folder to create")
    ap.add_argument("--work", required=True, type=Path, help="folder for the checkpoint in the official layout")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--speakers", type=int, default=240, help="training voices")
    ap.add_argument("--steps", type=int, default=180, help="optimizer steps of 64 windows")
    ap.add_argument("--margin", type=float, default=0.0, help="the AAM-softmax margin reached (0: plain softmax)")
    ap.add_argument("--from-gpu", type=Path, help="only export the weights speaker_demo/gpu_train.py wrote")
    args = ap.parse_args(argv)
    if args.from_gpu:
        from_gpu(args.from_gpu, args.out, args.work)
        return 0
    t = time.perf_counter()

    def log(line: str) -> None:
        print(f"[{time.perf_counter() - t:7.1f} s] {line}", flush=True)

    run(args.out, args.work, seed=args.seed, speakers=args.speakers, steps=args.steps, margin=args.margin, log=log)
    log(f"done: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
