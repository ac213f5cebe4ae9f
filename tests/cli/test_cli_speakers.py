"""`tingji transcribe --speakers off|auto|N [--speaker-model DIR]`: two espeak-ng voices through the tiny model.

The speaker model has random weights (tools/tiny_campplus.py) and separates
nobody, so these tests check the plumbing: every exported segment carries a
speaker, each format writes it its own way, N is never exceeded, and bad input
is one line. The demo ASR model makes the words.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cli import tingji
from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"


def demo_transcribe(audio: Path, out: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """`tingji transcribe AUDIO --model DEMO --provider cpu ARGS --out OUT`, HOME the user's data folder."""
    return tingji(
        "transcribe", str(audio), "--model", str(DEMO), "--provider", "cpu", *args, "--out", str(out), home=home
    )


@pytest.mark.parametrize("speakers", ["2", "auto"])
def test_cli_labels_every_segment_in_every_format(speaker_model, two_voices, tmp_path, speakers):
    out = tmp_path / "out"
    args = ["--threads", "2", "--speakers", speakers, "--speaker-model", str(speaker_model)]
    r = demo_transcribe(two_voices, out, tmp_path / "home", *args, "--format", "txt,srt,vtt,json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    data = json.loads((out / "two-voices.json").read_text(encoding="utf-8"))
    names = data["speakers"]
    print(f"--speakers {speakers}: {len(data['segments'])} segments, speakers {names}")
    assert names and names == [f"Speaker {i}" for i in range(1, len(names) + 1)]
    if speakers != "auto":
        assert len(names) <= int(speakers)
    said = [(s["speaker"], s["text"].strip()) for s in data["segments"] if s["text"].strip()]
    assert said and all(who in names for who, _ in said)
    txt = (out / "two-voices.txt").read_text(encoding="utf-8").splitlines()
    assert txt == [f"{who}: {text}" for who, text in said]
    srt = (out / "two-voices.srt").read_text(encoding="utf-8").split("\n\n")
    assert [cue.splitlines()[2] for cue in srt] == [f"{who}: {text}" for who, text in said]
    vtt = (out / "two-voices.vtt").read_text(encoding="utf-8").split("\n\n")[1:]
    assert [cue.splitlines()[1] for cue in vtt] == [f"<v {who}>{text}" for who, text in said]


def test_cli_speakers_off_writes_no_names(speaker_model, two_voices, tmp_path):
    r = demo_transcribe(
        two_voices, tmp_path, tmp_path / "home", "--speaker-model", str(speaker_model), "--format", "txt,json"
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "two-voices.json").read_text(encoding="utf-8"))
    assert "speakers" not in data and data["text"]
    assert not re.search(r"^Speaker \d+: ", (tmp_path / "two-voices.txt").read_text(encoding="utf-8"), re.M)


def test_cli_uses_the_installed_speaker_model(speaker_model, two_voices, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(speaker_model, home / "models" / "campplus-tiny")
    r = demo_transcribe(two_voices, tmp_path, home, "--speakers", "1", "--format", "json")
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "two-voices.json").read_text(encoding="utf-8"))
    assert data["speakers"] == ["Speaker 1"] and {s["speaker"] for s in data["segments"]} == {"Speaker 1"}


@pytest.mark.parametrize(
    "args, code_text",
    [
        (["--speakers", "9"], "speakers must be off, auto or a number of speakers from 1 to 8, not '9'"),
        (["--speakers", "two"], "speakers must be off, auto or a number of speakers from 1 to 8, not 'two'"),
        (["--speakers", "auto"], "--speakers auto needs a speaker model: none is installed"),
    ],
)
def test_cli_bad_speakers_is_one_line_and_writes_nothing(two_voices, tmp_path, args, code_text):
    out = tmp_path / "out"
    r = tingji("transcribe", str(two_voices), "--model", str(DEMO), *args, "--out", str(out), home=tmp_path / "home")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert lines[0].startswith("tingji: ") and code_text in lines[0]
    assert not out.exists() or not any(out.iterdir())
