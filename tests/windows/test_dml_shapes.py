"""Proof 2: the shape policy, observed. After the warm-up, transcribing three files of different lengths
(3 s, 47 s, 150 s) on DirectML compiles nothing new; the same count sees compiles when shapes are not
warmed (the dynamic policy on DirectML).

How compiles are counted (tests/windows/probes/dml_shapes.py): a hook on onnxruntime.InferenceSession
counts sessions created (DirectML compiles a pinned-shape session when it is created) and runs of a
session on an input shape it has not run before (DirectML compiles again for each new shape of a
session whose shapes are not pinned). Timings on lavapipe are printed, never asserted.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from .conftest import PROBES


@pytest.fixture(scope="module")
def three_files(speech_en, tmp_path_factory) -> list[Path]:
    """3 s, 47 s and 150 s: speech, with quiet noise between repeats (the VAD cuts windows of <= 60 s)."""
    import soundfile as sf

    folder = tmp_path_factory.mktemp("lengths")
    rng = np.random.default_rng(3)
    files = []
    for seconds in (3, 47, 150):
        n = seconds * 16000
        audio = (rng.standard_normal(n) * 0.003).astype(np.float32)
        for at in range(0, max(1, n - len(speech_en)), len(speech_en) + 16000):
            piece = speech_en[: n - at]
            audio[at : at + len(piece)] += piece
        path = folder / f"{seconds} s.wav"
        sf.write(path, audio, 16000)
        files.append(path)
    return files


def _run(windows_python, model: Path, policy: str, files: list[Path]) -> tuple[dict, float]:
    start = time.perf_counter()
    proc = windows_python(PROBES / "dml_shapes.py", model, policy, *files)
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["provider"] == "dml" and not report["warnings"], report
    return report, seconds


# Fun-ASR-Nano's encoder and CTC head (one padded axis); Paraformer's encoder and its decoder, whose token
# slots are a second padded axis (a slot length per frame bucket, chosen from how many tokens fired).
MODELS = pytest.mark.parametrize("model", ["tiny_model", "pf_model"], ids=["fun-asr-nano", "paraformer"])


# Every window of the fixed policy is a padded 60 s run, 30-80 s each on lavapipe on a busy 2-core machine:
# the 150 s file alone is minutes, past the suite's 900 s per test.
@pytest.mark.timeout(2400)
@MODELS
def test_no_new_shape_after_the_warm_up(windows_python, model, request, three_files):
    report, seconds = _run(windows_python, request.getfixturevalue(model), "fixed", three_files)
    runs = report["runs_after_load"]
    encoder = [s for graph, s, _ in runs if graph.startswith("encoder")]
    by_graph: dict[str, list[float]] = {}
    for graph, s, _ in runs:
        by_graph.setdefault(graph, []).append(s)
    costs = "; ".join(
        f"{g}: first {t[0]:.2f} s, later {np.median(t[1:]):.2f} s" if len(t) > 1 else f"{g}: {t[0]:.2f} s"
        for g, t in by_graph.items()
    )
    print(
        f"fixed policy on DirectML ({report['device']}): {report['sessions_at_load']} sessions and"
        f" {report['shapes_at_load']} shapes at load; after it {report['sessions_after_load']} sessions,"
        f" {report['new_shapes_after_load']} new shapes in {len(runs)} runs; run times after load ({costs});"
        f" process {seconds:.1f} s"
    )
    assert len(encoder) >= 5  # 3 s, 47 s and 150 s: at least 1 + 1 + 3 windows
    assert report["sessions_after_load"] == 0
    assert report["new_shapes_after_load"] == 0


@MODELS
def test_the_count_sees_shapes_that_were_not_warmed(windows_python, model, request, three_files):
    """The 3 s file with the dynamic policy on DirectML: its length is a new shape for the encoder and the
    CTC head (Paraformer: the decoder). (Only that file: unpinned shapes are slow on lavapipe, 30-80 s a run
    for the longer ones.)"""
    report, seconds = _run(windows_python, request.getfixturevalue(model), "dynamic", three_files[:1])
    print(
        f"dynamic policy on DirectML: {report['sessions_after_load']} sessions and"
        f" {report['new_shapes_after_load']} new shapes after load; process {seconds:.1f} s"
    )
    assert report["new_shapes_after_load"] >= 2
