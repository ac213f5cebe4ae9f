"""Proof 1: every graph DirectML runs, for every family, on DirectML with CPU fallback disabled.

For each family (`tingji.engine.families.FAMILIES`) its tiny model runs under Wine
(tests/windows/probes/dml_graphs.py, one process per family: each DirectML session keeps ~0.5 GB
until its process ends). The graphs are found from what the family loads, not listed here. Each
session must list DirectML first; its outputs must be within 1e-4 of the Linux CPU provider on the
same graph file and the same feeds; its valid rows must not depend on the padding (1e-5); and the
CLI's transcript on DirectML must be the Linux CPU transcript, word for word.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from tests.support.paths import APP
from tingji.engine.families import FAMILIES
from tingji.engine.families.kit import KITS, SPEECH

from .conftest import PROBES

# family -> the conftest fixture that builds its tiny model, from the family's declaration.
TINY_MODELS = {f.name: f.tiny.model_fixture for f in KITS}
# Not walked: ct-punc is a punctuation model, not a speech model (its `load()` refuses to be a recogniser); its
# one graph runs on DirectML in test_dml_punctuation.py, and here inside the transcript test, punctuating
# Paraformer's text.
NOT_SPEECH = {"ct-punc"}
# campplus, a speaker model, has its graphs walked (the probe loads it as engine.speakers does) but writes no
# transcript of its own.
GRAPH_FAMILIES = sorted(set(FAMILIES) - NOT_SPEECH)
SPEECH_FAMILIES = sorted(set(GRAPH_FAMILIES) & {f.name for f in KITS if f.kind == SPEECH})


def tiny_model_of(family: str, request: pytest.FixtureRequest) -> Path:
    if family not in TINY_MODELS:
        pytest.fail(f"family {family!r} has no tiny model for the DirectML proof: add its fixture to TINY_MODELS")
    return request.getfixturevalue(TINY_MODELS[family])


def linux_path(windows: str) -> str:
    assert windows[:2].upper() == "Z:", windows
    return windows[2:].replace("\\", "/")


# A family's DirectML sessions at the 60 s window, its warm-up and one run each on lavapipe take minutes on a
# busy 2-core machine, on top of the tiny model's export (a fixture, counted in the suite's 900 s per test).
@pytest.mark.timeout(2400)
@pytest.mark.parametrize("family", GRAPH_FAMILIES)
def test_every_graph_runs_on_directml_as_on_the_linux_cpu(family, request, windows_python, tmp_path):
    import onnxruntime as ort

    model = tiny_model_of(family, request)
    start = time.perf_counter()
    proc = windows_python(PROBES / "dml_graphs.py", model, tmp_path / "dml.npz")
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["family"] == family and report["cases"]
    roles = sorted({c["role"] for c in report["cases"]})
    worst_cpu = worst_pad = 0.0
    figures = []  # per session: its error against the Linux CPU, and its padding invariance
    with np.load(tmp_path / "dml.npz") as saved:
        for n, case in enumerate(report["cases"]):
            where = f"{family} {case['role']} bucket {case['bucket']}"
            assert case["providers"][0] == "DmlExecutionProvider", (where, case["providers"])
            feeds = {k: saved[f"{n}/in/{k}"] for k in case["inputs"]}
            dml = [saved[f"{n}/out/{i}"] for i in range(case["outputs"])]
            cpu = ort.InferenceSession(linux_path(case["graph"]), providers=["CPUExecutionProvider"]).run(None, feeds)
            session_cpu = 0.0
            for d, c in zip(dml, cpu, strict=True):
                assert d.shape == c.shape and d.dtype == c.dtype, where
                if c.dtype.kind in "iu":  # token ids (Paraformer's decoder): the same, exactly
                    assert np.array_equal(d, c), (where, int((d != c).sum()))
                    continue
                err = float(np.abs(d.astype(np.float64) - c).max()) if c.size else 0.0
                session_cpu = max(session_cpu, err)
                assert err <= 1e-4, (where, err)
            worst_cpu = max(worst_cpu, session_cpu)
            pad = "-" if case["invariance"] is None else f"{case['invariance']:.1e}"
            figures.append(f"{case['role']} {case['bucket']}: {session_cpu:.1e}/{pad}")
            if case["invariance"] is not None:
                worst_pad = max(worst_pad, case["invariance"])
                assert case["invariance"] <= 1e-5, (where, case["invariance"])
    print(
        f"{family} on DirectML ({report['device']}): {len(report['cases'])} sessions of {roles}"
        f" (vs Linux CPU/padding invariance: {'; '.join(figures)}),"
        f" max abs error vs Linux CPU {worst_cpu:.2e}, padding invariance {worst_pad:.2e}; process {seconds:.1f} s"
    )
    assert any(c["invariance"] is not None or c["padded_by_family"] for c in report["cases"])


class BothRuns(NamedTuple):
    linux_out: Path
    windows_out: Path
    windows_stderr: str
    seconds: float  # the Windows process's


def cli_on_cpu_and_directml(windows_python, args: list, linux_out: Path, windows_out: Path) -> BothRuns:
    """`python -m tingji ARGS` on the Linux CPU into `linux_out`, then under Windows on DirectML into
    `windows_out` (both created here); each must succeed."""
    linux_out.mkdir()
    windows_out.mkdir()
    linux = subprocess.run(
        [sys.executable, "-m", "tingji", *map(str, args), "--provider", "cpu", "--out", str(linux_out)],
        env=dict(os.environ, PYTHONPATH=str(APP)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert linux.returncode == 0, linux.stderr[-3000:]
    start = time.perf_counter()
    win = windows_python("-m", "tingji", *args, "--provider", "dml", "--device", "0", "--out", windows_out)
    seconds = time.perf_counter() - start
    assert win.returncode == 0, win.stderr[-3000:]
    return BothRuns(linux_out, windows_out, win.stderr, seconds)


@pytest.fixture(scope="module")
def speech_file(speech_en, tmp_path_factory) -> Path:
    import soundfile as sf

    folder = tmp_path_factory.mktemp("语音 clips")
    path = folder / "hello 你好.wav"
    sf.write(path, speech_en, 16000)
    return path


@pytest.mark.timeout(2400)
@pytest.mark.parametrize("family", SPEECH_FAMILIES)
def test_directml_transcript_is_the_linux_cpu_transcript(family, request, windows_python, speech_file, tmp_path):
    """The CLI on DirectML (fixed, padded shapes) writes the Linux CPU (real length) transcript's text.

    Both runs name the tiny punctuation model, as a user has ct-punc installed: a model that writes no
    punctuation (Paraformer) has its text punctuated on the engine's provider (DirectML here), the others ignore it;
    without one the CLI warns that none is installed."""
    model = tiny_model_of(family, request)
    punctuation = request.getfixturevalue("punc_model")
    common = ["transcribe", speech_file, "--model", model, "--format", "json", "--punctuation-model", punctuation]
    runs = cli_on_cpu_and_directml(windows_python, common, tmp_path / "linux", tmp_path / "windows 输出")
    expected = json.loads((runs.linux_out / "hello 你好.json").read_text("utf-8"))
    got = json.loads((runs.windows_out / "hello 你好.json").read_text("utf-8"))
    print(f"{family}: DirectML transcript {got['text']!r} ({got['device']}); process {runs.seconds:.1f} s")
    assert "warning" not in runs.windows_stderr, runs.windows_stderr
    assert got["provider"] == "dml" and got["device"]
    assert expected["provider"] == "cpu" and expected["device"] == ""
    assert got["text"] == expected["text"]
    assert [s["text"] for s in got["segments"]] == [s["text"] for s in expected["segments"]]


@pytest.mark.timeout(2400)
def test_directml_cli_labels_speakers(windows_python, two_voices, tmp_path):
    """Speaker labels under Windows: the trained demo speaker model's CAM++ graph on DirectML beside the demo
    model, the NumPy clustering in the Windows Python (numpy 1.26), each speaker's part of a window recognised
    alone. The clip is eight turns of two voices, one after the other: both runs must find the two voices
    and give the turns, in order, alternating speakers. The text is printed, not asserted: DirectML's text
    equal to the CPU's is proof 1's (test_directml_transcript_is_the_linux_cpu_transcript)."""
    root = APP.parent / "tests" / "fixtures" / "models"
    common = ["transcribe", two_voices, "--model", root / "demo", "--format", "json,vtt", "--speakers", "2"]
    common += ["--speaker-model", root / "speaker-demo", "--no-voice-library"]
    runs = cli_on_cpu_and_directml(windows_python, common, tmp_path / "linux", tmp_path / "windows")
    expected = json.loads((runs.linux_out / "two-voices.json").read_text("utf-8"))
    got = json.loads((runs.windows_out / "two-voices.json").read_text("utf-8"))

    def turns(data: dict) -> list[str]:  # who speaks, one entry per run of segments of one speaker
        who = [s["speaker"] for s in data["segments"] if s["text"].strip()]
        return [w for i, w in enumerate(who) if i == 0 or w != who[i - 1]]

    print(
        f"speakers on DirectML ({got['device']}): {got['speakers']}, turns {turns(got)}; Linux CPU "
        f"{turns(expected)}; text {'equal to' if got['text'] == expected['text'] else 'differs from'} the Linux "
        f"CPU's; process {runs.seconds:.1f} s"
    )
    assert got["provider"] == "dml" and got["text"] and len(got["segments"]) >= 1
    alternating = ["Speaker 1", "Speaker 2"] * 4
    assert turns(expected) == alternating and turns(got) == alternating
    assert got["speakers"] == ["Speaker 1", "Speaker 2"] and all(
        s["speaker"] in got["speakers"] for s in got["segments"]
    )
    vtt = (runs.windows_out / "two-voices.vtt").read_text("utf-8")
    assert vtt.count("<v Speaker ") == len(got["segments"])
