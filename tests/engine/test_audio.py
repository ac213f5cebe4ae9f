"""Tests for tingji.engine.audio: every file type users bring, and every way it breaks.

All fixtures are generated here (numpy + soundfile, ffmpeg's lavfi sources),
so the suite needs no media in the repository.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.support.paths import APP
from tingji.engine import audio
from tingji.engine.audio import SAMPLE_RATE, AudioInfo
from tingji.errors import AudioError

APP_DIR = APP
needs_ffmpeg = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg CLI not installed")


# --------------------------------------------------------------------------
# helpers


def ffmpeg(*args: str | os.PathLike[str]) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


def sine(freq: float, rate: int, seconds: float, amp: float = 0.5) -> np.ndarray:
    t = np.arange(round(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def peak_hz(x: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """Frequency of the strongest FFT bin (Hann window), with parabolic refinement."""
    spec = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    k = int(np.argmax(spec[1:-1])) + 1
    a, b, c = np.log(spec[k - 1 : k + 2] + 1e-20)
    return (k + 0.5 * (a - c) / (a - 2 * b + c)) * rate / len(x)


def middle(x: np.ndarray, margin: int = 1600) -> np.ndarray:
    """Skip edges where codecs and resamplers ramp in and out."""
    return x[margin:-margin]


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def check_message(err: AudioError | str, path: Path, reason: str) -> None:
    """A user-facing message: one line, the file's name, a plain reason, no library noise."""
    msg = str(err)
    assert path.name in msg, msg
    assert reason in msg, msg
    assert "\n" not in msg
    for noise in ("Traceback", "Error opening", "Errno", "Format not recognised", "avformat", "libsndfile"):
        assert noise not in msg, msg


# --------------------------------------------------------------------------
# WAV: round trip, sample types, channels, rates


def test_round_trip_16k_mono_int16(tmp_path: Path) -> None:
    x = sine(440, SAMPLE_RATE, 1.5, amp=0.7)
    path = tmp_path / "mono16k.wav"
    sf.write(path, x, SAMPLE_RATE, subtype="PCM_16")
    y = audio.load(path)
    assert y.dtype == np.float32 and y.ndim == 1
    assert len(y) == len(x)
    np.testing.assert_allclose(y, x, atol=1.01 / 32768)  # int16 quantisation only

    info = audio.probe(path)
    assert isinstance(info, AudioInfo)
    assert (info.sample_rate, info.channels) == (SAMPLE_RATE, 1)
    assert info.duration_s == pytest.approx(1.5)
    assert info.path == str(path) and "WAV" in info.container and "16" in info.codec


@pytest.mark.parametrize("rate", [8000, 11025, 22050, 44100, 48000, 96000])
def test_resampling_keeps_length_frequency_and_amplitude(tmp_path: Path, rate: int) -> None:
    seconds, amp = 2.0, 0.5
    path = tmp_path / f"sine_{rate}.wav"
    sf.write(path, sine(1000, rate, seconds, amp), rate, subtype="FLOAT")
    y = audio.load(path)
    assert y.dtype == np.float32
    assert abs(len(y) - round(seconds * SAMPLE_RATE)) <= 3  # resampler delay is flushed, not lost
    assert peak_hz(middle(y)) == pytest.approx(1000, abs=1.0)
    assert rms(middle(y)) * np.sqrt(2) == pytest.approx(amp, rel=0.01)
    # small blocks cut across the resampler's internal chunks: same result
    np.testing.assert_allclose(np.concatenate(list(audio.stream(path, block_seconds=0.1))), y, atol=1e-6)


def test_six_channel_downmix_is_channel_mean(tmp_path: Path) -> None:
    freqs = [200, 300, 500, 700, 1100, 1300]
    x = np.stack([sine(f, SAMPLE_RATE, 1.0, amp=0.1 * (i + 1)) for i, f in enumerate(freqs)], axis=1)
    x[:, 3] += 0.25  # one channel with a DC offset shows up as mean/6
    path = tmp_path / "six.wav"
    sf.write(path, x, SAMPLE_RATE, subtype="FLOAT")
    assert audio.probe(path).channels == 6
    y = audio.load(path)
    np.testing.assert_allclose(y, x.mean(axis=1), atol=1e-6)
    assert float(y.mean()) == pytest.approx(0.25 / 6, abs=1e-3)


def test_opposite_channels_cancel_after_resampling(tmp_path: Path) -> None:
    x = sine(1000, 44100, 1.0)
    path = tmp_path / "antiphase.wav"
    sf.write(path, np.stack([x, -x, x, -x, x, -x, x, -x], axis=1), 44100, subtype="PCM_24")  # 8 channels
    y = audio.load(path)
    assert abs(len(y) - SAMPLE_RATE) <= 3
    assert np.max(np.abs(y)) < 1e-6


@pytest.mark.parametrize(
    ("subtype", "tol"),
    [
        ("PCM_U8", 1 / 128),
        ("PCM_16", 1 / 32768),
        ("PCM_24", 2.0**-23),
        ("PCM_32", 2.0**-24),
        ("FLOAT", 1e-7),
        ("DOUBLE", 1e-7),
    ],
)
def test_sample_types(tmp_path: Path, subtype: str, tol: float) -> None:
    x = sine(523.25, SAMPLE_RATE, 0.5, amp=0.9).astype(np.float64)
    path = tmp_path / f"{subtype}.wav"
    sf.write(path, x, SAMPLE_RATE, subtype=subtype)
    y = audio.load(path)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, x, atol=tol * 1.01 + 1e-7)


def test_integer_full_scale_maps_to_minus_one_up_to_below_one(tmp_path: Path) -> None:
    x = np.array([-32768, 32767, 0, 16384], dtype=np.int16)
    path = tmp_path / "fullscale.wav"
    sf.write(path, x, SAMPLE_RATE, subtype="PCM_16")
    y = audio.load(path)
    assert y[0] == -1.0 and 0.9999 < y[1] < 1.0 and y[2] == 0.0 and y[3] == 0.5


# --------------------------------------------------------------------------
# compressed audio and video containers (ffmpeg-made)

VIDEO = ["-f", "lavfi", "-i", "color=c=blue:s=160x120:r=25:d=3"]
FORMATS = {
    # name: (file name, sample rate, extra ffmpeg input args, codec args)
    "mp3": ("sine.mp3", 44100, [], ["-af", "pan=stereo|c0=c0|c1=c0", "-c:a", "libmp3lame", "-b:a", "96k"]),
    "m4a": ("sine.m4a", 48000, [], ["-c:a", "aac", "-b:a", "96k"]),
    "opus": ("sine.opus", 48000, [], ["-c:a", "libopus", "-b:a", "48k"]),
    "ogg": ("sine.ogg", 44100, [], ["-c:a", "libvorbis"]),
    "flac": ("sine.flac", 22050, [], ["-af", "pan=stereo|c0=c0|c1=c0", "-c:a", "flac"]),
    "mp4": ("sine.mp4", 44100, VIDEO, ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]),
    "mkv": (
        "sine.mkv",
        48000,
        VIDEO,
        ["-c:v", "libx264", "-preset", "ultrafast", "-af", "pan=stereo|c0=c0|c1=c0", "-c:a", "libvorbis"],
    ),
    "mov": ("sine.mov", 48000, VIDEO, ["-c:v", "mpeg4", "-af", "pan=stereo|c0=c0|c1=c0", "-c:a", "pcm_s16le"]),
    "webm": ("sine.webm", 48000, VIDEO, ["-c:v", "libvpx", "-deadline", "realtime", "-c:a", "libopus"]),
}


@needs_ffmpeg
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_compressed_and_video_formats(tmp_path: Path, fmt: str) -> None:
    name, rate, extra_in, codec = FORMATS[fmt]
    path = tmp_path / name
    ffmpeg("-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={rate}:duration=3", *extra_in, *codec, path)

    info = audio.probe(path)
    assert info.sample_rate > 0 and info.channels >= 1 and info.codec
    assert info.duration_s is not None and info.duration_s == pytest.approx(3.0, abs=0.1)

    blocks = audio.stream(path)
    y = np.concatenate(list(blocks))
    assert blocks.complete, blocks.problems  # a whole file is never called damaged
    assert y.dtype == np.float32 and np.all(np.isfinite(y))
    assert abs(len(y) / SAMPLE_RATE - 3.0) <= 0.05, len(y) / SAMPLE_RATE
    assert peak_hz(middle(y)) == pytest.approx(440, abs=2.0)
    assert rms(middle(y)) * np.sqrt(2) == pytest.approx(1 / 8, rel=0.15)  # lavfi sine amplitude


# --------------------------------------------------------------------------
# bad input


def _make_bad_inputs(d: Path) -> dict[str, tuple[Path, str]]:
    rng = np.random.default_rng(7)
    cases: dict[str, tuple[Path, str]] = {}
    cases["missing"] = (d / "nothing here.wav", "file not found")
    (d / "a folder.wav").mkdir()
    cases["directory"] = (d / "a folder.wav", "is a folder, not a file")
    (d / "empty.wav").write_bytes(b"")
    cases["empty"] = (d / "empty.wav", "file is empty")
    (d / "notes.wav").write_text("Meeting notes\nnot audio at all\n" * 50)
    cases["text_as_wav"] = (d / "notes.wav", "not an audio or video file Tingji can read")
    (d / "noise.mp3").write_bytes(rng.bytes(200_000))
    cases["random_mp3"] = (d / "noise.mp3", "not an audio or video file Tingji can read")
    sf.write(d / "header_only.wav", np.zeros(0, np.float32), SAMPLE_RATE, subtype="PCM_16")
    cases["header_only_wav"] = (d / "header_only.wav", "contains no audio samples")
    if shutil.which("ffmpeg"):
        ffmpeg("-f", "lavfi", "-i", "color=c=red:s=64x48:r=10:d=1", "-an", "-c:v", "libx264", d / "silent film.mp4")
        cases["video_only"] = (d / "silent film.mp4", "has no audio track")
        ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=2", d / "flac.flac")
        raw = bytearray((d / "flac.flac").read_bytes())
        raw[200:] = rng.bytes(len(raw) - 200)  # header intact, every frame destroyed
        (d / "corrupt.flac").write_bytes(bytes(raw))
        cases["corrupt_flac"] = (d / "corrupt.flac", "decoding failed at 0.0 s")
    return cases


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    return _make_bad_inputs(tmp_path_factory.mktemp("bad"))


BAD_CASES = [
    "missing",
    "directory",
    "empty",
    "text_as_wav",
    "random_mp3",
    "header_only_wav",
    "video_only",
    "corrupt_flac",
]
CALLS = {
    "probe": audio.probe,
    "stream": lambda p: list(audio.stream(p)),
    "load": audio.load,
}


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_input_gives_one_plain_line(bad_inputs: dict, case: str, call: str) -> None:
    if case not in bad_inputs:
        pytest.skip("needs the ffmpeg CLI to build this fixture")
    path, reason = bad_inputs[case]
    with pytest.raises(AudioError) as err:
        CALLS[call](path)
    check_message(err.value, path, reason)


def test_stream_rejects_bad_file_at_call_not_first_next(bad_inputs: dict) -> None:
    path, reason = bad_inputs["missing"]
    with pytest.raises(AudioError, match=reason):
        audio.stream(path)  # no iteration needed


def test_unreadable_file_chmod_000(tmp_path: Path) -> None:
    """A file the user may not read."""
    if os.geteuid() != 0:
        path = tmp_path / "locked.wav"
        sf.write(path, sine(440, SAMPLE_RATE, 0.2), SAMPLE_RATE)
        path.chmod(0)
        try:
            with pytest.raises(AudioError) as err:
                audio.load(path)
            check_message(err.value, path, "permission denied")
        finally:
            path.chmod(0o644)
        return
    # Root reads anything: a forked child that has become `nobody` tries instead (the
    # interpreter under /root would not be reachable for a freshly started one).
    import pwd
    import tempfile

    nobody = pwd.getpwnam("nobody")
    folder = Path(tempfile.mkdtemp(prefix="tingji-locked-"))  # pytest's own tmp folders are root-only
    try:
        folder.chmod(0o755)
        path = folder / "locked.wav"
        sf.write(path, sine(440, SAMPLE_RATE, 0.2), SAMPLE_RATE)
        path.chmod(0)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: never returns into pytest
            try:
                os.close(read_end)
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
                try:
                    audio.load(path)
                    message = "READ"
                except AudioError as e:
                    message = str(e)
                os.write(write_end, message.encode("utf-8"))
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            message = pipe.read().decode("utf-8")
        os.waitpid(pid, 0)
        check_message(message, path, "permission denied")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_permission_error_is_translated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Works as root too: the module's open() is made to refuse like the OS would."""
    path = tmp_path / "locked.wav"
    sf.write(path, sine(440, SAMPLE_RATE, 0.2), SAMPLE_RATE)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(audio, "open", refuse, raising=False)
    with pytest.raises(AudioError) as err:
        audio.probe(path)
    check_message(err.value, path, "permission denied")


@needs_ffmpeg
def test_truncated_mp3_yields_first_half(tmp_path: Path) -> None:
    full = tmp_path / "full.mp3"
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=10", "-c:a", "libmp3lame", full)
    data = full.read_bytes()
    cut = tmp_path / "cut.mp3"
    cut.write_bytes(data[: len(data) // 2])
    blocks = audio.stream(cut)
    y = np.concatenate(list(blocks))  # no error: the first half is kept
    assert 4.5 <= len(y) / SAMPLE_RATE <= 5.5
    assert peak_hz(middle(y)) == pytest.approx(440, abs=2.0)
    print(f"truncated mp3: {blocks.problems}")
    (problem,) = blocks.problems
    assert not blocks.complete and "only 5.0 s of 10.0 s could be decoded" in problem.text
    assert problem.code == "audio.ends_early" and problem.fields["total"] == 10.0


@needs_ffmpeg
def test_damaged_middle_of_mp3_is_skipped_with_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    full = tmp_path / "full.mp3"
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=10", "-c:a", "libmp3lame", full)
    raw = bytearray(full.read_bytes())
    mid = len(raw) // 2
    raw[mid : mid + 3000] = np.random.default_rng(1).bytes(3000)
    bad = tmp_path / "damaged.mp3"
    bad.write_bytes(bytes(raw))
    with caplog.at_level(logging.INFO, logger="tingji.engine.audio"):
        blocks = audio.stream(bad)
        y = np.concatenate(list(blocks))
    assert len(y) / SAMPLE_RATE > 9.0  # the audio after the damage is kept
    assert any("damaged" in r.getMessage() and "damaged.mp3" in r.getMessage() for r in caplog.records)
    print(f"damaged mp3: {blocks.problems}")
    (problem,) = blocks.problems
    assert not blocks.complete and "damaged packet" in problem.text and " at 5." in problem.text
    assert problem.code == "audio.damaged_packets" and problem.fields["count"] >= 1


@needs_ffmpeg
def test_truncated_flac_keeps_decoded_part_and_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    full = tmp_path / "full.flac"
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=10", full)
    data = full.read_bytes()
    cut = tmp_path / "cut.flac"
    cut.write_bytes(data[: len(data) // 2])
    with caplog.at_level(logging.INFO, logger="tingji.engine.audio"):
        blocks = audio.stream(cut)
        y = np.concatenate(list(blocks))
    assert 3.0 <= len(y) / SAMPLE_RATE <= 5.5
    assert any("cut.flac" in r.getMessage() for r in caplog.records)
    print(f"truncated flac: {blocks.problems}")
    (problem,) = blocks.problems
    assert not blocks.complete and problem.text.startswith("decoding stopped at ") and "of 10.0 s" in problem.text
    assert problem.code == "audio.stopped_at" and problem.fields["reason"].code == "audio.reason_damaged"


# --------------------------------------------------------------------------
# edge samples


def test_one_sample_wav(tmp_path: Path) -> None:
    path = tmp_path / "one.wav"
    sf.write(path, np.array([0.25], np.float32), SAMPLE_RATE, subtype="FLOAT")
    y = audio.load(path)
    assert y.dtype == np.float32 and len(y) == 1 and y[0] == pytest.approx(0.25)
    assert audio.probe(path).duration_s == pytest.approx(1 / SAMPLE_RATE)
    # at 44.1 kHz one sample is 0.36 output samples: allowed to round to 0 or 1, never an error
    path44 = tmp_path / "one44.wav"
    sf.write(path44, np.array([0.25], np.float32), 44100, subtype="FLOAT")
    assert len(audio.load(path44)) <= 1


def test_nan_and_inf_become_silence_with_one_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    x = sine(300, SAMPLE_RATE, 1.0)
    bad_at = [100, 5000, 9000, 15000]
    x[bad_at] = [np.nan, np.inf, -np.inf, np.nan]
    path = tmp_path / "nan.wav"
    sf.write(path, x, SAMPLE_RATE, subtype="FLOAT")
    with caplog.at_level(logging.WARNING, logger="tingji.engine.audio"):
        y = audio.load(path)
    assert np.all(np.isfinite(y))
    assert np.all(y[bad_at] == 0)
    good = np.ones(len(x), bool)
    good[bad_at] = False
    np.testing.assert_array_equal(y[good], x[good])
    warnings = [r for r in caplog.records if "NaN" in r.getMessage()]
    assert len(warnings) == 1 and "nan.wav" in warnings[0].getMessage()


def test_nan_does_not_smear_through_resampler(tmp_path: Path) -> None:
    x = sine(300, 48000, 1.0)
    x[24000] = np.nan
    path = tmp_path / "nan48.wav"
    sf.write(path, x, 48000, subtype="FLOAT")
    y = audio.load(path)
    assert np.all(np.isfinite(y))
    assert peak_hz(middle(y)) == pytest.approx(300, abs=1.0)


def test_decode_array_matches_file_decoding(tmp_path: Path) -> None:
    x = np.stack([sine(440, 44100, 1.0), sine(660, 44100, 1.0, amp=0.2)], axis=1)
    path = tmp_path / "stereo44.wav"
    sf.write(path, x, 44100, subtype="FLOAT")
    y = audio.decode_array(x, 44100)
    assert y.dtype == np.float32 and y.ndim == 1
    np.testing.assert_allclose(y, audio.load(path), atol=1e-5)


def test_decode_array_ints_mono_and_nonfinite() -> None:
    ints = np.array([-32768, 0, 16384, 32767], np.int16)
    np.testing.assert_allclose(audio.decode_array(ints, SAMPLE_RATE), [-1.0, 0.0, 0.5, 32767 / 32768])
    i32 = np.array([[-(2**31), 2**30]], np.int32)  # (frames=1, channels=2)
    assert audio.decode_array(i32, SAMPLE_RATE)[0] == pytest.approx(-0.25)
    f = np.array([0.5, np.nan, np.inf, -0.5], np.float64)
    np.testing.assert_array_equal(audio.decode_array(f, SAMPLE_RATE), np.array([0.5, 0, 0, -0.5], np.float32))
    y8 = audio.decode_array(sine(1000, 8000, 1.0).astype(np.float64), 8000)
    assert y8.dtype == np.float32 and abs(len(y8) - SAMPLE_RATE) <= 3
    with pytest.raises(ValueError):
        audio.decode_array(np.zeros((2, 2, 2)), SAMPLE_RATE)


# --------------------------------------------------------------------------
# names, streaming


def test_non_ascii_names_with_spaces(tmp_path: Path) -> None:
    wav = tmp_path / "会议 录音 01.wav"
    sf.write(wav, sine(440, 22050, 1.0), 22050)
    assert abs(len(audio.load(wav)) - SAMPLE_RATE) <= 3
    assert audio.probe(wav).path == str(wav)
    with pytest.raises(AudioError) as err:
        audio.load(tmp_path / "缺失 文件.wav")
    check_message(err.value, tmp_path / "缺失 文件.wav", "file not found")
    if shutil.which("ffmpeg"):
        mp3 = tmp_path / "café ü.mp3"
        ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", mp3)
        y = audio.load(mp3)
        assert abs(len(y) / SAMPLE_RATE - 1.0) <= 0.05
        assert peak_hz(middle(y)) == pytest.approx(440, abs=2.0)


def test_stream_blocks_have_requested_size(tmp_path: Path) -> None:
    path = tmp_path / "long16k.wav"
    sf.write(path, sine(440, SAMPLE_RATE, 5.5), SAMPLE_RATE)
    sizes = [len(b) for b in audio.stream(path, block_seconds=1.0)]
    assert sizes == [16000] * 5 + [8000]

    path44 = tmp_path / "long44.wav"
    sf.write(path44, sine(440, 44100, 7.3), 44100, subtype="PCM_24")
    blocks = list(audio.stream(path44, block_seconds=2.0))
    assert [len(b) for b in blocks[:-1]] == [32000] * 3 and 0 < len(blocks[-1]) <= 32000
    assert all(b.dtype == np.float32 and b.ndim == 1 for b in blocks)
    np.testing.assert_array_equal(np.concatenate(blocks), audio.load(path44))
    with pytest.raises(ValueError):
        audio.stream(path44, block_seconds=0)


@needs_ffmpeg
def test_stream_of_video_container_equals_load(tmp_path: Path) -> None:
    path = tmp_path / "clip.mkv"
    ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:sample_rate=48000:duration=4",
        *VIDEO,
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "libopus",
        path,
    )
    blocks = list(audio.stream(path, block_seconds=0.5))
    assert all(len(b) == 8000 for b in blocks[:-1])
    np.testing.assert_array_equal(np.concatenate(blocks), audio.load(path))


def test_closing_stream_early_releases_file(tmp_path: Path) -> None:
    path = tmp_path / "early.wav"
    sf.write(path, sine(440, SAMPLE_RATE, 3.0), SAMPLE_RATE)
    gen = audio.stream(path, block_seconds=1.0)
    assert len(next(gen)) == 16000
    gen.close()  # must not raise; the finally in the generator closes the decoder
    path.unlink()


# --------------------------------------------------------------------------
# bounded memory on three-hour files

_MEASURE = textwrap.dedent(
    """
    import json, sys, time
    from tingji.engine import audio

    def status(key):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024

    try:  # reset the high-water mark so import-time peaks don't count
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    before = status("VmRSS:")
    t0 = time.perf_counter()
    probe_s = audio.probe(sys.argv[1]).duration_s
    samples = blocks = 0
    for block in audio.stream(sys.argv[1]):
        samples += len(block)
        blocks += 1
    seconds = time.perf_counter() - t0
    print(json.dumps({"growth": status("VmHWM:") - before, "seconds": seconds,
                      "samples": samples, "blocks": blocks, "probe_s": probe_s}))
    """
)


def _stream_in_fresh_process(path: Path) -> dict:
    """Measure in a child so earlier tests' allocations don't hide (or fake) growth."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(APP_DIR), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc for RSS")
@needs_ffmpeg
def test_three_hour_mp3_streams_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "three hours.mp3"
    t0 = time.perf_counter()
    ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:sample_rate=16000:duration=10800",
        "-c:a",
        "libmp3lame",
        "-b:a",
        "8k",
        path,
    )
    made = time.perf_counter() - t0
    r = _stream_in_fresh_process(path)
    print(
        f"\n3 h mp3 ({path.stat().st_size / 1e6:.0f} MB, made in {made:.1f} s): peak RSS growth "
        f"{r['growth'] / 2**20:.1f} MiB, decoded in {r['seconds']:.1f} s ({10800 / r['seconds']:.0f}x real time)"
    )
    assert r["probe_s"] == pytest.approx(10800, abs=1.0)
    assert abs(r["samples"] - 10800 * SAMPLE_RATE) <= SAMPLE_RATE * 0.05
    assert r["blocks"] == 360
    assert r["growth"] < 150 * 2**20


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc for RSS")
def test_three_hour_48k_stereo_wav_streams_in_bounded_memory(tmp_path: Path) -> None:
    hours, rate = 3, 48000
    path = tmp_path / "three hours.wav"
    t0 = time.perf_counter()
    # 10 s of a 1 kHz tone (a whole number of periods, so blocks join seamlessly)
    block = (sine(1000, rate, 10.0, amp=0.3) * 32767).astype(np.int16)
    block = np.stack([block, block // 2], axis=1)
    try:
        with sf.SoundFile(path, "w", rate, 2, subtype="PCM_16", format="WAV") as f:
            for _ in range(hours * 360):
                f.write(block)
        made = time.perf_counter() - t0
        r = _stream_in_fresh_process(path)
        print(
            f"\n{hours} h 48 kHz stereo WAV ({path.stat().st_size / 1e9:.2f} GB, written in {made:.1f} s): "
            f"peak RSS growth {r['growth'] / 2**20:.1f} MiB, decoded in {r['seconds']:.1f} s "
            f"({hours * 3600 / r['seconds']:.0f}x real time)"
        )
        assert abs(r["samples"] - hours * 3600 * SAMPLE_RATE) <= 3
        assert r["growth"] < 150 * 2**20
    finally:
        path.unlink(missing_ok=True)
