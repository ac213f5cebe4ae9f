"""Faults put into real model folders: a weight that is NaN, as a damaged download or a bad conversion leaves it."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np


def poison_punctuation(model: Path, dest: Path, word: str) -> Path:
    """A copy of the punctuation model `model` in `dest` whose token embedding row for `word` is NaN.

    Only that row changes (in the external weights file, in place), so text without `word` is marked as by
    the original, and text with it gives NaN scores inside the graph. The manifest's SHA-256 is brought up to
    date: the folder verifies like any installed model, the fault is in what the weights compute.
    """
    import onnx

    shutil.copytree(model, dest)
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    tokens = json.loads((dest / manifest["files"]["tokens"]["path"]).read_text(encoding="utf-8"))
    graph = dest / manifest["files"]["punc"]["path"]
    table = next(t for t in onnx.load(graph, load_external_data=False).graph.initializer if t.name == "embed.weight")
    where = {e.key: e.value for e in table.external_data}
    assert table.data_type == onnx.TensorProto.FLOAT and where, "the fp32 export keeps its token table outside"
    width = table.dims[1]
    row = np.full(width, np.nan, np.float32).tobytes()
    data = dest / where["location"]
    with data.open("r+b") as f:
        f.seek(int(where.get("offset", 0)) + tokens.index(word) * len(row))
        f.write(row)
    for entry in manifest["files"].values():
        path = dest / entry["path"]
        entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        entry["size"] = path.stat().st_size
    (dest / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2), encoding="utf-8")
    return dest
