"""ONNX Runtime's CPU LayerNormalization and the rewrite that replaces it (engine/ort_compat.py), under this runtime.

usage: python layernorm.py LAYERNORM.onnx ROWS.npy MODEL_FOLDER CLIP.wav CACHE_FOLDER
Runs the one-node LayerNormalization graph on the rows as the file is and as `ort_compat` rewrites it
for the CPU, then transcribes the clip with the model on the CPU provider twice: the first load builds
the optimised-graph cache, the second is served from it. Prints one JSON line.
"""

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

from tingji.engine import Engine, ort_compat


def layernorm_rows(graph: Path, rows: np.ndarray) -> dict:
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    plain = ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"])
    source = ort_compat.model_source(graph, "cpu")
    rewritten = source.session(ort.SessionOptions(), ["CPUExecutionProvider"])
    before = plain.run(None, {"x": rows})[0]
    after = rewritten.run(None, {"x": rows})[0]
    return {
        "rewrites": list(source.rewrites),
        "nan_rows_before": int(np.isnan(before).any(-1).sum()),
        "nan_rows_after": int(np.isnan(after).any(-1).sum()),
        "after": after.tolist(),
    }


def main(graph: str, rows: str, model: str, clip: str, cache: str) -> None:
    report = {"onnxruntime": ort.__version__, **layernorm_rows(Path(graph), np.load(rows))}
    texts = []
    for _ in range(2):  # builds the cache, then loads from it
        engine = Engine(model, provider="cpu", threads=2, graph_cache=cache)
        texts.append(engine.transcribe(clip).text)
        report["provider"] = engine.provider
        engine.close()
    report["texts"] = texts
    print(json.dumps(report))


if __name__ == "__main__":
    main(*sys.argv[1:])
