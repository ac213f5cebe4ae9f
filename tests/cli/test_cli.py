"""`tingji transcribe` end to end, and every kind of bad input the issue lists."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.audio import damaged_at, ffmpeg, write_wav
from tests.support.paths import ROOT


def tingji(*args: str, cwd: Path | None = None, home: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    if home is not None:
        env["TINGJI_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "tingji", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900
    )


def test_cli_transcribes_to_every_format(tiny_model, speech_en, tmp_path):
    src = write_wav(tmp_path / "talk.wav", speech_en)
    out = tmp_path / "out"
    r = tingji("transcribe", str(src), "--model", str(tiny_model), "--out", str(out), "--format", "txt,srt,vtt,json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    data = json.loads((out / "talk.json").read_text(encoding="utf-8"))
    for key in ("text", "segments", "model", "provider", "timings", "duration"):
        assert key in data
    assert data["provider"] == "cpu" and data["model"] == "tiny" and data["text"]
    txt = (out / "talk.txt").read_text(encoding="utf-8")
    assert txt.splitlines() == [s["text"] for s in data["segments"]]
    srt = (out / "talk.srt").read_text(encoding="utf-8")
    assert srt.startswith("1\n00:00:0") and "-->" in srt
    vtt = (out / "talk.vtt").read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT\n\n") and vtt.count("-->") == len(data["segments"])


def test_cli_exact_mode_matches_reference_text(tiny_model, reference, speech_en, tmp_path):
    """The exporter's equivalence test, through the command line in --exact mode."""
    src = write_wav(tmp_path / "clip.wav", speech_en, subtype="FLOAT")
    r = tingji(
        "transcribe", str(src), "--model", str(tiny_model), "--out", str(tmp_path), "--format", "json", "--exact"
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "clip.json").read_text(encoding="utf-8"))
    assert data["text"] == reference.run(speech_en)["text"].strip()


def _bad_inputs(folder: Path, speech: np.ndarray) -> dict[str, Path]:
    """Files that must each fail with one clear line naming them."""
    bad = {}
    bad["missing"] = folder / "does-not-exist.wav"
    (folder / "a folder").mkdir()
    bad["directory"] = folder / "a folder"
    bad["empty"] = folder / "empty.wav"
    bad["empty"].write_bytes(b"")
    bad["text"] = folder / "notes.wav"
    bad["text"].write_text("these are meeting notes, not audio\n" * 20)
    bad["random"] = folder / "noise.mp3"
    bad["random"].write_bytes(np.random.default_rng(0).bytes(50_000))
    header = folder / "header-only.wav"
    write_wav(header, speech[:16000])
    header.write_bytes(header.read_bytes()[:44])  # header claims data that is not there
    bad["header-only"] = header
    bad["zero-samples"] = write_wav(folder / "zero.wav", np.zeros(0, np.float32))
    ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "color=c=blue:s=160x120:d=2",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        str(folder / "silent-video.mp4"),
    )
    bad["video-no-audio"] = folder / "silent-video.mp4"
    return bad


def _good_inputs(folder: Path, speech: np.ndarray) -> dict[str, Path]:
    """Odd but valid files that must transcribe."""
    good = {}
    for rate in (8000, 44100, 48000, 96000):
        x = np.interp(np.arange(int(len(speech) * rate / 16000)) * 16000 / rate, np.arange(len(speech)), speech)
        good[f"{rate} Hz"] = write_wav(folder / f"rate {rate}.wav", x.astype(np.float32), rate)
    six = np.stack([speech * (0.5 + 0.1 * c) for c in range(6)], axis=1)
    good["6 channels"] = write_wav(folder / "six.wav", six, 16000)
    good["24-bit"] = write_wav(folder / "pcm24.wav", speech, 16000, subtype="PCM_24")
    good["float64"] = write_wav(folder / "double.wav", speech.astype(np.float64), 16000, subtype="DOUBLE")
    nan = speech.copy()
    nan[100:110] = np.nan
    nan[5000] = np.inf
    good["nan-inf"] = write_wav(folder / "nan.wav", nan, 16000, subtype="FLOAT")
    good["one sample"] = write_wav(folder / "one.wav", speech[:1], 16000)
    mp3 = folder / "full.mp3"
    write_wav(folder / "tmp.wav", speech)
    ffmpeg("-i", str(folder / "tmp.wav"), "-b:a", "64k", str(mp3))
    data = mp3.read_bytes()
    (folder / "truncated.mp3").write_bytes(data[: len(data) // 2])
    good["truncated mp3"] = folder / "truncated.mp3"
    good["non-ascii"] = write_wav(folder / "会议 录音 café 01.wav", speech)
    return good


def test_cli_bad_inputs_fail_alone_and_clearly(tiny_model, speech_en, tmp_path):
    bad = _bad_inputs(tmp_path, speech_en)
    good = _good_inputs(tmp_path, speech_en)
    files = [str(p) for pair in zip(list(bad.values()), list(good.values())) for p in pair]
    files += [str(p) for p in list(good.values())[len(bad) :]]
    out = tmp_path / "out"
    r = tingji("transcribe", *files, "--model", str(tiny_model), "--out", str(out), "--format", "txt,json")
    print(r.stderr)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    error_lines = [
        line
        for line in r.stderr.splitlines()
        if line.startswith("tingji: ") and "warning" not in line and "transcribed" not in line and "model " not in line
    ]
    assert len(error_lines) == len(bad)
    for name, path in bad.items():
        hits = [line for line in error_lines if str(path) in line]
        assert len(hits) == 1, f"{name}: {error_lines}"
        assert len(hits[0]) < 300
    for name, path in good.items():
        produced = out / (path.stem + ".json")
        assert produced.is_file(), f"{name} was not transcribed"
        data = json.loads(produced.read_text(encoding="utf-8"))
        if name == "one sample":
            assert data["text"] == "" and any("too short" in w for w in data["warnings"])
        elif name == "truncated mp3":  # kept, but never passed off as whole
            assert 0.3 * len(speech_en) / 16000 < data["duration"] < 0.8 * len(speech_en) / 16000
            assert data["complete"] is False and any("could be decoded" in w for w in data["warnings"])
            assert sum(str(path) in line and "could be decoded" in line for line in r.stderr.splitlines()) == 1
        else:
            assert abs(data["duration"] - len(speech_en) / 16000) < 0.1, name
        if name != "truncated mp3":
            assert data["complete"] is True, name
    assert f"{len(good)} of {len(files)} file(s) transcribed (1 only partly" in r.stderr


def test_cli_damaged_media_keeps_the_partial_transcript_and_says_so(tiny_model, speech_en, tmp_path):
    """150 s files damaged about 50 s in: transcript kept, a warning saying where and why, exit status 1."""
    speech = np.concatenate([speech_en, np.zeros(8000, np.float32)])
    long = np.resize(speech, 150 * 16000)
    write_wav(tmp_path / "long.wav", long)
    ffmpeg("-i", str(tmp_path / "long.wav"), str(tmp_path / "talk.flac"))
    ffmpeg("-i", str(tmp_path / "long.wav"), "-b:a", "64k", str(tmp_path / "talk.mp3"))
    flac, mp3 = damaged_at(tmp_path / "talk.flac", 1 / 3), damaged_at(tmp_path / "talk.mp3", 1 / 3)
    whole = write_wav(tmp_path / "whole.wav", speech_en)
    out = tmp_path / "out"
    r = tingji(
        "transcribe", str(flac), str(mp3), str(whole), "--model", str(tiny_model), "--out", str(out), "--format", "json"
    )
    print(r.stderr)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    flac_json = json.loads((out / "damaged talk.json").read_text(encoding="utf-8"))
    assert flac_json["complete"] is False and 30 < flac_json["duration"] < 55 and flac_json["segments"]
    assert any(
        w.startswith("decoding stopped at ") and "of 150.0 s (the data is damaged)" in w for w in flac_json["warnings"]
    )
    # Beside the English, the JSON gives each warning's code and fields (the reason is a coded one too).
    (stopped,) = [w for w in flac_json["warning_codes"] if w["code"] == "audio.stopped_at"]
    assert stopped["fields"]["total"] == 150.0 and stopped["fields"]["reason"]["code"] == "audio.reason_damaged"
    assert len(flac_json["warning_codes"]) == len(flac_json["warnings"])
    mp3_json = json.loads((out / "damaged talk (2).json").read_text(encoding="utf-8"))
    assert mp3_json["complete"] is False and mp3_json["segments"]
    assert any("damaged packet" in w and "the first at 4" in w or "at 5" in w for w in mp3_json["warnings"])
    assert json.loads((out / "whole.json").read_text(encoding="utf-8"))["complete"] is True
    for damaged in (flac, mp3):  # one warning line each, naming the file
        lines = [
            line for line in r.stderr.splitlines() if line.startswith("tingji: warning: ") and str(damaged) in line
        ]
        assert len(lines) == 1, lines
    assert "3 of 3 file(s) transcribed (2 only partly" in r.stderr


def test_cli_transcripts_reach_the_disk_before_they_are_published(tiny_model, speech_en, tmp_path):
    """strace on the real CLI: each transcript's data is fsynced before its rename, the folder after (issue 17)."""
    from tests.support.durability import published_durably, traced

    src = write_wav(tmp_path / "talk.wav", speech_en)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    r = traced(
        [
            sys.executable,
            "-m",
            "tingji",
            "transcribe",
            str(src),
            "--model",
            str(tiny_model),
            "--out",
            str(out),
            "--format",
            "txt,json",
        ],
        env,
        tmp_path / "trace.log",
    )
    assert r.returncode == 0, r.stderr
    for name in ("talk.txt", "talk.json"):
        problems = published_durably(tmp_path / "trace.log", out / name)
        print(f"{name}: {problems or 'fsynced, renamed, folder fsynced'}")
        assert problems == []


def test_cli_output_folder_not_writable(tiny_model, speech_en, tmp_path):
    src = write_wav(tmp_path / "talk.wav", speech_en)
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    mounted = False
    if os.geteuid() != 0:
        blocked.chmod(0o555)
    else:  # permissions do not bind root: a read-only mount does, where the container allows it
        mounted = (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(blocked)], capture_output=True
            ).returncode
            == 0
        )
    try:
        if os.geteuid() == 0 and not mounted:
            blocked = tmp_path / "talk.wav" / "sub"  # a folder that cannot exist: its parent is a file
        r = tingji("transcribe", str(src), "--model", str(tiny_model), "--out", str(blocked))
    finally:
        if mounted:
            subprocess.run(["umount", str(tmp_path / "blocked")], check=True)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(blocked) in lines[0] and ("writable" in lines[0] or "cannot create" in lines[0])


def test_cli_unknown_model_and_format_are_one_line_errors(tiny_model, speech_en, tmp_path):
    src = write_wav(tmp_path / "talk.wav", speech_en)
    cases = {
        "no such folder": (["--model", str(tmp_path / "no-model")], "no-model"),
        "no such name": (["--model", "no-such-model"], "no model named no-such-model"),
        "not a model folder": (["--model", str(tmp_path)], "not a Tingji model folder"),
        "unknown format": (["--model", str(tiny_model), "--format", "docx"], "docx"),
    }
    for case, (args, expected) in cases.items():
        r = tingji("transcribe", str(src), *args, "--out", str(tmp_path / "out"))
        assert r.returncode == 1 and "Traceback" not in r.stderr, case
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tingji: ") and expected in lines[0], (case, lines)
        assert not (tmp_path / "out").exists(), case  # nothing created for a command that cannot run


def test_cli_model_by_installed_name(tiny_model, speech_en, tmp_path):
    """`--model NAME` is resolved by the CLI (the engine takes folders only) to the same model."""
    home = tmp_path / "home"
    shutil.copytree(tiny_model, home / "models" / "tiny-installed")
    src = write_wav(tmp_path / "talk.wav", speech_en)
    by_name = tingji(
        "transcribe", str(src), "--model", "tiny-installed", "--out", str(tmp_path / "a"), "--format", "json", home=home
    )
    by_folder = tingji(
        "transcribe", str(src), "--model", str(tiny_model), "--out", str(tmp_path / "b"), "--format", "json", home=home
    )
    assert by_name.returncode == 0 and by_folder.returncode == 0, by_name.stderr + by_folder.stderr
    a = json.loads((tmp_path / "a" / "talk.json").read_text(encoding="utf-8"))
    b = json.loads((tmp_path / "b" / "talk.json").read_text(encoding="utf-8"))
    assert a["model"] == "tiny-installed" and a["text"] and a["segments"] == b["segments"]
    assert "model tiny-installed on CPU" in by_name.stderr


def test_cli_bug_is_one_line_asking_for_a_report(tmp_path, monkeypatch, capsys, caplog):
    """An exception no code meant for the user: one line, no traceback; -v logs the traceback."""
    import tingji.export
    from tingji.cli import main

    def broken(source, out, **options):
        raise RuntimeError("index out of range\n  while reading layer 3")

    monkeypatch.setattr(tingji.export, "export_model", broken)
    argv = ["export-model", "--source", str(tmp_path), "--out", str(tmp_path / "o")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "tingji: internal error (RuntimeError: index out of range while reading layer 3); "
        "please report it (run it again with -v for the details)"
    ]
    assert "Traceback" not in err and not caplog.records
    assert main(["-v", *argv]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "tingji: internal error (RuntimeError: index out of range while reading layer 3); please report it"
    ]
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [RuntimeError]


PEAK_SCRIPT = """
import sys, runpy
sys.argv = ["tingji"] + sys.argv[1:]
from tingji.cli import main
code = main(sys.argv[1:])
for line in open("/proc/self/status"):
    if line.startswith("VmHWM"):
        print("PEAK_KB", line.split()[1], file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.slow
def test_three_hour_file_memory_is_bounded(tiny_model, speech_en, tmp_path):
    """Peak memory for a 3-hour file stays within a small margin of a 5-minute file's.

    Speech recurs every 5 minutes (decoding every window of a 3-hour file with
    the tiny model would only make CI slower, not the measurement better): the
    whole file is still read, resampled and run through the VAD.
    """
    block = np.zeros(16000 * 300, np.float32)
    block[16000 : 16000 + len(speech_en)] = speech_en
    write_wav(tmp_path / "block.wav", block)
    lengths = {"five": 5, "three-hours": 180}
    for name, minutes in lengths.items():
        ffmpeg(
            "-stream_loop",
            str(minutes // 5 - 1),
            "-i",
            str(tmp_path / "block.wav"),
            "-ac",
            "1",
            "-ar",
            "16000",
            "-b:a",
            "24k",
            str(tmp_path / f"{name}.mp3"),
        )
    peaks = {}
    for name in ("five", "three-hours"):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                PEAK_SCRIPT,
                "transcribe",
                str(tmp_path / f"{name}.mp3"),
                "--model",
                str(tiny_model),
                "--out",
                str(tmp_path),
                "--format",
                "json",
                "--max-tokens",
                "64",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=1500,
        )
        assert r.returncode == 0, r.stderr
        peaks[name] = int(next(ln.split()[1] for ln in r.stderr.splitlines() if ln.startswith("PEAK_KB"))) / 1024
        data = json.loads((tmp_path / f"{name}.json").read_text())
        assert data["duration"] == pytest.approx(lengths[name] * 60, abs=1.0)
        print(
            f"{name}: peak RSS {peaks[name]:.0f} MB, {data['windows']} windows, {data['timings']['total']:.0f} s wall"
        )
    assert peaks["three-hours"] - peaks["five"] < 100
