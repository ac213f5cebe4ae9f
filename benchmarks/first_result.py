#!/usr/bin/env python3
"""One fresh process: from its start to a finished 3 s dictation take, as after launching the app.

    python benchmarks/first_result.py MODEL_FOLDER TAKE.wav TOKENS [--graph-cache DIR] [--threads N]

Imports the engine, loads and warms the model, reads the take and
transcribes it as the app's dictation does (the live lane, text only), with
TOKENS forced tokens (EOS disabled), on the engine's default threads
unless --threads fixes them, with ONNX Runtime's optimised graphs from
--graph-cache as the app keeps them (tingji.engine.ort_cache). Prints one JSON line of
`time.monotonic()` readings - the parent subtracts the time it started
this process - and exits without tearing the engine down: the
measurement ends at the result, and so does nothing the user waits for.
Run by the `first_result` stage (stages.py); usable by hand.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("take")
    ap.add_argument("tokens", type=int)
    ap.add_argument("--graph-cache")
    ap.add_argument("--threads", type=int)
    args = ap.parse_args()
    import soundfile as sf

    from tingji.engine import Engine, TranscribeOptions

    imported = time.monotonic()
    engine = Engine(args.model, provider="cpu", threads=args.threads, graph_cache=args.graph_cache)
    ready = time.monotonic()
    samples, _ = sf.read(args.take, dtype="float32")
    transcript = engine.live.transcribe(
        samples, TranscribeOptions(max_tokens=args.tokens, ignore_eos=True, timestamps=False)
    )
    done = time.monotonic()
    print(
        json.dumps(
            {
                "started": STARTED,
                "imported": imported,
                "ready": ready,
                "done": done,
                "engine_load_s": engine.load_s,
                "timings": transcript.timings,
                "tokens": [len(t) for t in transcript.window_tokens],
            }
        ),
        flush=True,
    )
    os._exit(0)


if __name__ == "__main__":
    main()
