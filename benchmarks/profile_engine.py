#!/usr/bin/env python3
"""Where Engine.transcribe spends its time: cProfile of dictation calls and of one 60 s window.

    python benchmarks/profile_engine.py --model benchmarks/.cache/full/int8-q5_k [--tokens 12] [--reps 5]
    py-spy record --native -r 200 -o prof.txt -f raw -- python benchmarks/profile_engine.py ...

Prints, for the first call after load and for warm calls, the engine's own
stage timings next to the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT  # noqa: E402,F401


def _top(prof: cProfile.Profile, key: str, n: int) -> str:
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats(key).print_stats(n)
    return s.getvalue()


def main(argv: list[str] | None = None) -> int:
    import soundfile as sf
    from speech import make_utterance

    from tingji.engine import Engine, TranscribeOptions

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--audio", type=Path, help="long file; its first 60 s are one window")
    ap.add_argument("--tokens", type=int, default=12)
    ap.add_argument("--window-tokens", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)

    t = time.perf_counter()
    engine = Engine(args.model, provider="cpu")
    print(f"load {time.perf_counter() - t:.2f} s")
    utt = make_utterance(3.0)
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    first = engine.transcribe(utt, TranscribeOptions(max_tokens=args.tokens, ignore_eos=True))
    prof.disable()
    print(f"first dictation call {time.perf_counter() - t:.3f} s; timings {json.dumps(first.timings)}")
    print(_top(prof, "cumulative", args.top))
    prof = cProfile.Profile()
    walls = []
    for _ in range(args.reps):
        t = time.perf_counter()
        prof.enable()
        tr = engine.transcribe(utt, TranscribeOptions(max_tokens=args.tokens, ignore_eos=True))
        prof.disable()
        walls.append(time.perf_counter() - t)
        print(
            f"warm dictation call {walls[-1]:.3f} s; "
            f"timings {json.dumps({k: round(v, 4) for k, v in tr.timings.items()})}"
        )
    print(_top(prof, "tottime", args.top))
    if args.audio:
        x, sr = sf.read(str(args.audio), dtype="float32", frames=60 * 16000)
        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        tr = engine.transcribe(x, TranscribeOptions(max_tokens=args.window_tokens, ignore_eos=True))
        prof.disable()
        print(
            f"60 s window {time.perf_counter() - t:.3f} s; timings "
            f"{json.dumps({k: round(v, 3) for k, v in tr.timings.items()})}"
        )
        print(_top(prof, "tottime", args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
