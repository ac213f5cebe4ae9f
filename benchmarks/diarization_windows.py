#!/usr/bin/env python3
"""Speaker turns' DER and window count under each window plan, on the test conversations (issue 45).

    python benchmarks/diarization_windows.py [--plans padded,real,...]

The conversations are the tests': test_speaker_demo.py's (2, 3 and 4 voices, turns of 1-15 s, some
talk over each other) and tests/support/turn_taking.py's (quick turns of 0.5-4 s), made once and
cached under benchmarks/.cache/der/. Each plan cuts the engine's VAD spans into windows
(`diarize.windows` with that plan's arguments), embeds them with the trained demo speaker model and
runs the product's clustering and turns, with the count found and with it given; DER is
pyannote.metrics' with test_speaker_demo.py's collar. A plan could replace the product's ("padded")
only if no DER were worse. Measured (issue 45): "real" (a short span embedded at its real length, no
zero padding) and "steady-*" (every other window, the one between embedded only where its neighbours'
cosine is under the figure; 0.67 is the voice library's MATCH_COSINE, fitted on other voices) each
made some conversation's DER worse, so the product keeps FunASR's plan.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "app"), str(ROOT / "tools")]

from common import BENCH  # noqa: E402

from tingji.engine.speakers import diarize  # noqa: E402

SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"
DEMO_CASES = [(2, 60, 2), (3, 90, 3), (4, 120, 4)]  # test_speaker_demo.CASES
QUICK_CASES = [(2, 22, 2), (3, 26, 3), (4, 30, 4)]  # test_speaker_words.CASES
# name -> (diarize.windows keyword arguments, zero-pad short windows, steady cosine or None)
PLANS = {
    "padded": ({}, True, None),  # funasr's sv_chunk (Tingji's plan before issue 45)
    "real": ({}, False, None),
    "steady-0.67": ({}, True, 0.67),  # library.MATCH_COSINE
    "steady-0.5": ({}, True, 0.5),
    "steady-0.8": ({}, True, 0.8),
}


def thin(wins: Sequence[diarize.Window]) -> tuple[list[int], list[tuple[int, int, int]]]:
    """Every other window of each span, and the ones between: (kept, [(between, before, after), ...]).

    A window is "between" when the windows either side of it touch or overlap each other, so leaving
    it out leaves no gap in the speech; the first and last window of a span are always kept.
    """
    kept: list[int] = []
    between: list[tuple[int, int, int]] = []
    i = 0
    while i < len(wins):
        kept.append(i)
        j = i + 2
        if j < len(wins) and wins[j].first <= wins[i].first + wins[i].length and wins[i + 1].first < wins[j].first:
            between.append((i + 1, i, j))
            i = j
        else:
            i += 1
    return kept, between


def embed_windows(
    embed: Callable[[list[int]], np.ndarray], wins: Sequence[diarize.Window], steady: float | None
) -> tuple[list[diarize.Window], np.ndarray]:
    """The windows worth embedding and their embeddings [N, E], in time order.

    Args:
        embed: Embeddings [n, E] of the windows at the given indices into `wins`.
        wins: The windows, in time order (`windows`).
        steady: With a cosine: every other window first, and a window between two is embedded only
            where their cosine is under `steady` (the voice may change there). None: every window.
    """
    if steady is None or len(wins) < 3:
        return list(wins), embed(list(range(len(wins))))
    kept, between = thin(wins)
    first = embed(kept)
    unit = first / np.maximum(np.linalg.norm(first, axis=1, keepdims=True), 1e-12)
    row = {k: r for r, k in enumerate(kept)}
    fill = [b for b, x, y in between if float(unit[row[x]] @ unit[row[y]]) < steady]
    order = sorted(kept + fill)
    out = np.concatenate([first, embed(fill)]) if fill else first
    where = {k: r for r, k in enumerate(kept + fill)}
    return [wins[i] for i in order], out[[where[i] for i in order]]


def conversations(cache: Path) -> list[tuple[str, np.ndarray, list[tuple[float, float, int]], int]]:
    """(name, samples, reference turns, voices) of every test conversation, cached as .npz."""
    from speaker_demo import voices

    from tests.support import turn_taking

    out = []
    for kind, cases in (("demo", DEMO_CASES), ("quick", QUICK_CASES)):
        for count, seconds, seed in cases:
            path = cache / f"{kind}-{count}-{seconds}-{seed}.npz"
            if not path.is_file():
                if kind == "demo":
                    talk = voices.conversation(
                        voices.pick_distinct(voices.held_out_voices(), count, seed), seconds, seed
                    )
                else:
                    talk = turn_taking.conversation(count, seconds, seed)
                cache.mkdir(parents=True, exist_ok=True)
                np.savez(path, samples=talk.samples, turns=np.array(talk.turns, dtype=np.float64))
            z = np.load(path)
            turns = [(float(a), float(b), int(w)) for a, b, w in z["turns"]]
            out.append((f"{kind}-{count}", z["samples"], turns, count))
    return out


def main(argv: list[str] | None = None) -> int:
    from tests.engine.test_speaker_demo import der
    from tingji.engine.speakers.cluster import cluster
    from tingji.engine.speakers.model import SpeakerModel
    from tingji.engine.vad import SileroVad
    from tingji.engine.windows import WindowPlanner

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plans", default=",".join(PLANS))
    args = ap.parse_args(argv)
    model = SpeakerModel(SPEAKER_DEMO, provider="cpu", threads=2)
    vad = SileroVad()
    talks = conversations(BENCH / ".cache" / "der")
    rows = {}
    for plan in args.plans.split(","):
        errors, count_windows, secs = [], 0, 0.0
        for _name, samples, ref, voices_n in talks:
            planner = WindowPlanner(vad, max_s=60.0)
            spans = [
                (w.start + round(a * 16000), w.start + round(b * 16000))
                for w in [*planner.feed(samples), *planner.finish()]
                for a, b in w.speech
            ]
            kwargs, pad, steady = PLANS[plan]
            every = diarize.windows(spans, **kwargs)

            def embed(rows: list[int], every=every, pad=pad, samples=samples) -> np.ndarray:
                size = model.window_samples
                if pad:  # funasr's sv_chunk: a short window zero-padded to the full length
                    return model.embed([diarize.window_audio(samples, every[i], size) for i in rows])
                return model.embed([samples[every[i].first : every[i].first + every[i].length] for i in rows])

            t = time.perf_counter()
            wins, emb = embed_windows(embed, every, steady)
            secs += time.perf_counter() - t
            count_windows += len(wins)
            for count in (None, voices_n):
                turns = diarize.turns(wins, cluster(emb, count))
                errors.append(der(ref, turns, len(samples) / 16000))
        rows[plan] = errors
        cells = " ".join(f"{100 * e:5.1f}" for e in errors)
        print(f"{plan:10s} windows {count_windows:5d}  embed {secs:6.2f} s  DER % (auto, known per talk): {cells}")
    names = [f"{n}/{m}" for n, *_ in talks for m in ("auto", "known")]
    print("columns:", " ".join(names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
