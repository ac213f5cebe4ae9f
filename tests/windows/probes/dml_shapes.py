"""Proof 2, Windows side: after the warm-up, transcribing files of different lengths compiles nothing new.

usage: python dml_shapes.py MODEL POLICY AUDIO...

DirectML compiles a graph when ONNX Runtime creates a session whose shapes are pinned, and again in
a session whose shapes are not for every input shape it has not run yet. So a compile shows as a
DirectML session created, or as a DirectML session running an input shape it has not run before;
both are counted here by a hook on `onnxruntime.InferenceSession` (creation and `run`), split into
the engine's load (warm-up included) and the transcriptions after it (the VAD runs on the CPU and
compiles nothing). POLICY is the shape policy ("fixed", the product's for DirectML; "dynamic" shows
what the count sees when shapes are not warmed).
Prints one JSON line: counts, the encoder runs' seconds in order, the transcripts' texts.
"""

import json
import sys
import time

import onnxruntime as ort

from tingji.engine import Engine

phase = ["load"]
created: dict[str, int] = {"load": 0, "files": 0}
seen: dict[str, set] = {"load": set(), "files": set()}
runs: list[dict] = []
plain_init, plain_run = ort.InferenceSession.__init__, ort.InferenceSession.run


def on_dml(session) -> bool:
    return session.get_providers()[0] == "DmlExecutionProvider"


def counted_init(self, *args, **kwargs):
    plain_init(self, *args, **kwargs)
    created[phase[0]] += on_dml(self)


def counted_run(self, output_names, input_feed, run_options=None):
    if not on_dml(self):  # the VAD, on the CPU: nothing to compile
        return plain_run(self, output_names, input_feed, run_options)
    shapes = tuple(sorted((k, tuple(v.shape)) for k, v in input_feed.items()))
    key = (id(self), shapes)
    new = key not in seen["load"] and key not in seen["files"]
    seen[phase[0]].add(key)
    start = time.perf_counter()
    out = plain_run(self, output_names, input_feed, run_options)
    runs.append(
        {
            "phase": phase[0],
            "graph": str(self._model_path).rsplit("\\", 1)[-1],
            "new": new,
            "s": time.perf_counter() - start,
        }
    )
    return out


ort.InferenceSession.__init__ = counted_init
ort.InferenceSession.run = counted_run


def main(model: str, policy: str, *audio: str) -> None:
    engine = Engine(model, "dml", policy=policy)
    phase[0] = "files"
    texts = [engine.transcribe(path).text for path in audio]
    files = [r for r in runs if r["phase"] == "files"]
    report = {
        "provider": engine.provider,
        "device": engine.device,
        "policy": policy,
        "warnings": list(engine.warnings),
        "sessions_at_load": created["load"],
        "shapes_at_load": len(seen["load"]),
        "sessions_after_load": created["files"],
        "new_shapes_after_load": sum(r["new"] for r in files),
        "runs_after_load": [(r["graph"], round(r["s"], 4), r["new"]) for r in files],
        "texts": texts,
    }
    engine.close()
    print(json.dumps(report))  # ASCII: a piped Windows console writes cp1252


if __name__ == "__main__":
    main(*sys.argv[1:])
