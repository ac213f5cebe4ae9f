"""Proof 3: where DirectML cannot start, the engine runs on the CPU with one warning line naming why, and
the transcript is the CPU's. Also what a Windows console user sees: a piped Windows Python writes the
ANSI code page (cp1252 under Wine, as on an English Windows), and the CLI neither dies on 听记 in its
help nor prints `\\uXXXX` escapes for a Chinese file name.

The model is the committed demo model (real words: tests/fixtures/models/demo) and the clip espeak's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import APP, ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"


def no_display() -> str:
    """An X display number nothing serves (DXGI then cannot create a factory)."""
    return next(f":{n}" for n in range(917, 999) if not Path(f"/tmp/.X11-unix/X{n}").exists())


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """espeak's clip as 16 kHz 16-bit PCM, so that both sides read the same samples. (Resampled on each
    side, espeak's 22.05 kHz file differs by ~1e-7 between Linux's and Windows' soxr, and the log-mel of
    its near-silent frames by up to 1.9: enough to change a word of the demo model.)"""
    import soundfile as sf

    from tests.support.audio import espeak

    folder = tmp_path_factory.mktemp("会议 clips")
    samples = espeak(folder / "espeak.wav", "hello world yes six go two nine")
    path = folder / "语音 clip.wav"
    sf.write(path, samples, 16000, subtype="PCM_16")
    return path


def transcribe_linux(clip: Path, out: Path) -> dict:
    out.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "tingji", "transcribe", str(clip), "--model", str(DEMO)]
        + ["--provider", "cpu", "--format", "json", "--out", str(out)],
        env=dict(os.environ, PYTHONPATH=str(APP)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / f"{clip.stem}.json").read_text("utf-8"))


def test_no_display_runs_on_the_cpu_with_one_warning(winenv, wine_env, clip, tmp_path):
    expected = transcribe_linux(clip, tmp_path / "linux")
    out = tmp_path / "windows"
    out.mkdir()
    start = time.perf_counter()
    proc = winenv.run(
        wine_env,
        ["python", "-m", "tingji", "transcribe", str(clip), "--model", str(DEMO)]
        + ["--provider", "dml", "--format", "json", "--out", str(out)],
        base_environ=dict(os.environ, DISPLAY=no_display()),
        timeout=300,
    )
    seconds = time.perf_counter() - start
    stderr = proc.stderr.decode("cp1252", "replace")
    assert proc.returncode == 0, stderr[-3000:]
    got = json.loads((out / f"{clip.stem}.json").read_text("utf-8"))
    warnings = [line for line in stderr.splitlines() if "warning" in line.lower()]
    print(f"no display: {warnings}; transcript {got['text']!r}; process {seconds:.1f} s")
    assert len(warnings) == 1, stderr
    assert "DML failed" in warnings[0] and "DXGI" in warnings[0] and "using CPU" in warnings[0]
    # Nothing else: no chatter from the DirectML build of ONNX Runtime, no traceback.
    assert "Failed to create DXGI factory" not in stderr and "Traceback" not in stderr, stderr
    assert "model demo on CPU" in stderr
    assert got["provider"] == "cpu" and got["device"] == ""
    assert got["text"] == expected["text"] and got["text"]
    assert got["segments"] == expected["segments"]
    assert any("DXGI" in w for w in got["warnings"])


def test_console_in_the_ansi_code_page(windows_python, clip, tmp_path):
    """`tingji --help | more`, and a progress line naming a Chinese file, through cp1252 pipes."""
    help_proc = windows_python("-m", "tingji", "--help")
    assert help_proc.returncode == 0, help_proc.stderr[-2000:]
    assert "usage: tingji" in help_proc.stdout and "UnicodeEncodeError" not in help_proc.stderr
    proc = windows_python("-m", "tingji", "transcribe", clip, "--model", DEMO, "--provider", "cpu", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    progress = [line for line in proc.stderr.splitlines() if line.startswith("[1/1]")]
    print(f"help: {len(help_proc.stdout)} characters; progress line as cp1252 shows it: {progress}")
    assert progress and "?? clip.wav" in progress[0], proc.stderr
    assert "\\u" not in proc.stderr
    assert (tmp_path / "语音 clip.txt").read_text("utf-8").strip()


def test_devices_lists_the_adapters_or_says_why_not(winenv, wine_env):
    """`tingji devices`: the adapters, high-performance first, the default marked; one coded line without DXGI."""
    listed = winenv.run(wine_env, ["python", "-m", "tingji", "devices"], timeout=120)
    lines = listed.stdout.decode("cp1252").splitlines()
    print(f"tingji devices: {lines}")
    assert listed.returncode == 0 and lines[0].startswith("0: ") and lines[0].endswith("(default)"), lines
    missing = winenv.run(
        wine_env,
        ["python", "-m", "tingji", "devices"],
        base_environ=dict(os.environ, DISPLAY=no_display()),
        timeout=120,
    )
    said = missing.stderr.decode("cp1252").strip().splitlines()
    assert missing.returncode != 0 and len(said) == 1, said
    assert said[0].startswith("tingji: no graphics adapter DirectML can use: DXGI cannot create a factory"), said
