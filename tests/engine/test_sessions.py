"""ONNX Runtime's arena between runs (engine/sessions.py): short runs keep their blocks, long ones give them back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.support.paths import APP, ROOT
from tingji.engine.heap import map_large_blocks
from tingji.engine.manifest import FileEntry, Manifest
from tingji.engine.options import LoadOptions
from tingji.engine.sessions import KEEP_BLOCKS_SHARE, GraphSpec, OnnxGraphs

WINDOW_FRAMES = 4000
WIDTH = 2048  # each frame's intermediate row: 8 KB in float32


def _wide_graph(path: Path) -> None:
    """feats [1, T, 16], mask [1, T] -> sum over a [1, T, 2048] intermediate: T * 8 KB of arena per run."""
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((16, WIDTH)).astype(np.float32), "w")
    axes = numpy_helper.from_array(np.array([2], np.int64), "axes")
    nodes = [
        helper.make_node("MatMul", ["feats", "w"], ["wide"]),
        helper.make_node("Relu", ["wide"], ["act"]),
        helper.make_node("ReduceSum", ["act", "axes"], ["summed"], keepdims=0),
        helper.make_node("Mul", ["summed", "mask"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes,
        "wide",
        [
            helper.make_tensor_value_info("feats", TensorProto.FLOAT, [1, "frames", 16]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, [1, "frames"]),
        ],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, "frames"])],
        [w, axes],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


def _graphs(folder: Path) -> OnnxGraphs:
    _wide_graph(folder / "wide.onnx")
    manifest = Manifest(
        folder=folder,
        family="test",
        files={"encoder": FileEntry(path="wide.onnx", sha256="", size=0)},
        window_seconds=60.0,
        window_frames=WINDOW_FRAMES,
        frontend={},
    )
    return OnnxGraphs(
        manifest, [GraphSpec("encoder")], LoadOptions(provider="cpu", threads=1), window_frames=WINDOW_FRAMES
    )


def _faults_of_run(graphs: OnnxGraphs, frames: int) -> int:
    import resource  # POSIX only: the test that counts runs on Linux

    feats = np.random.default_rng(frames).standard_normal((frames, 16)).astype(np.float32)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    graphs.run("encoder", {"feats": feats}, frames)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def faults_of_short_and_long_runs(folder: Path) -> dict[str, int]:
    """Page faults of short runs before and after a long one; run in a fresh process (see the test)."""
    map_large_blocks()  # as a loaded Engine has it: blocks of 4 MB and more are mapped on their own
    graphs = _graphs(folder)
    _faults_of_run(graphs, 100)  # the warm-up at load: the arena's first region is small
    short = WINDOW_FRAMES // KEEP_BLOCKS_SHARE  # the longest run that keeps its blocks: 8 MB of intermediate
    first = _faults_of_run(graphs, short)
    again = _faults_of_run(graphs, short)
    _faults_of_run(graphs, WINDOW_FRAMES)  # a long run: its blocks (and the short run's) go back
    return {"frames": short, "first": first, "again": again, "after_long": _faults_of_run(graphs, short)}


_CHILD = """
import json, sys
from pathlib import Path
from tests.engine.test_sessions import faults_of_short_and_long_runs
print(json.dumps(faults_of_short_and_long_runs(Path(sys.argv[1]))))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts page faults under glibc's allocator")
def test_short_runs_reuse_their_pages_and_a_long_run_gives_them_back(tmp_path: Path) -> None:
    # A fresh process: in one that ran other tests, glibc's heaps hand some of those pages round again.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), str(APP), os.environ.get("PYTHONPATH")])),
    }
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    faults = json.loads(out.stdout.strip().splitlines()[-1])
    pages = faults["frames"] * WIDTH * 4 // 4096
    print(
        f"\npage faults of a {faults['frames']}-frame run ({pages} pages of intermediate): first {faults['first']}, "
        f"again {faults['again']}, after a {WINDOW_FRAMES}-frame run {faults['after_long']}"
    )
    # Kept: the second short run touches no fresh pages (a dictation take's ~6000 faults cost 25-35 ms);
    # with the arena shrunk after every run, each one faulted its ~2000 pages in again.
    assert faults["first"] > pages // 2 and faults["again"] < pages // 10
    # Given back: after the long run, the short one starts on fresh pages again.
    assert faults["after_long"] > pages // 2
