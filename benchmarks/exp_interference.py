#!/usr/bin/env python3
"""Experiment: does the encoder (ONNX Runtime) slow the decoder (llama.cpp) that runs right after it?

    python benchmarks/exp_interference.py --model benchmarks/.cache/full/int8-q5_k [--rounds 4] [--gen 32]

In one warmed Engine, interleaved: (a) decoder prefill + forced generation
alone; (b) the same right after an encoder + CTC run on 60 s of audio (the
order every window uses); (c) like (b) after a short sleep, so thread pools
that spin after a run have gone idle. Differences between (a) and (b) are
in-process interference (spinning worker threads, cache effects); load from
other jobs hits all three alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, emit_json  # noqa: E402,F401


def main(argv: list[str] | None = None) -> int:
    from stages import _long_audio

    from tingji.engine import Engine
    from tingji.engine.decoder import DecodeOptions
    from tingji.engine.families.fun_asr_nano.prompt import build_prompt
    from tingji.engine.frontend import features

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--audio", type=Path, default=ROOT / "benchmarks/.cache/full/audio/long300.wav")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--gen", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--sleep", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)

    engine = Engine(args.model, provider="cpu", threads=args.threads)
    dec = engine.files.state  # the file lane's llama.cpp context
    feats = features(_long_audio(str(args.audio), args.seconds))
    prompt = build_prompt(engine.manifest.section.prompt)
    before, after = dec.tokenize(prompt.before), dec.tokenize(prompt.after)
    rows = engine.recognizer.encoder.encode(feats).adaptor[: max(1, len(feats) // 8)]
    opts = DecodeOptions(max_tokens=args.gen, guard=False, ignore_eos=True)

    def decode() -> tuple[float, float]:
        r = dec.generate(before, rows, after, opts)
        return r.prefill_s, r.generate_s

    def after_encoder(sleep: float) -> tuple[float, float]:
        out = engine.recognizer.encoder.encode(feats)
        engine.recognizer.encoder.ctc(out.enc)
        if sleep:
            time.sleep(sleep)
        return decode()

    cases = {
        "decoder_alone": decode,
        "after_encoder": lambda: after_encoder(0.0),
        "after_encoder_sleep": lambda: after_encoder(args.sleep),
    }
    for fn in cases.values():
        fn()
    res: dict = {v: {"prefill": [], "gen": []} for v in cases}
    load0 = os.getloadavg()
    for r in range(args.rounds):
        for name in list(cases) if r % 2 == 0 else list(cases)[::-1]:
            p, g = cases[name]()
            res[name]["prefill"].append(p)
            res[name]["gen"].append(g)
    out = {
        "threads": dec.n_threads,
        "prompt_rows": len(rows),
        "gen_tokens": args.gen,
        "loadavg_start": load0,
        "loadavg_end": os.getloadavg(),
    }
    for name, d in res.items():
        out[name] = {
            "prefill_s": statistics.median(d["prefill"]),
            "gen_tok_s": (args.gen - 1) / statistics.median(d["gen"]),
            "raw": {k: [round(x, 3) for x in v] for k, v in d.items()},
        }
    emit_json(out, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
