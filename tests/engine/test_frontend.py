"""The NumPy front-end against the code it replaces.

References: kaldi-native-fbank configured as funasr's ``utils/fbank.py``
configures it for ``WavFrontend`` (the backend funasr uses without torchaudio),
and funasr's own ``WavFrontend`` with Fun-ASR-Nano's settings, fed the way
``extract_fbank`` feeds it. Run with ``-s`` to see the measured errors.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import time

import numpy as np
import pytest
import soundfile as sf

from tingji.engine import frontend as fe
from tingji.engine.families.fun_asr_nano.encoder import num_adaptor_rows

SR = 16000
# Measured: <= 3e-4 worst case (mean ~2e-6), all of it knf's float32 FFT
# rounding in mel bands ~10 nats below the loudest band of their frame.
MAX_ABS_TOL = 5e-4
MEAN_ABS_TOL = 1e-5
ODD_LENGTHS = (257, 320, 399, 400, 401, 559, 12345, 16001)


# --------------------------------------------------------------------------
# References


def knf_fbank(samples: np.ndarray) -> np.ndarray:
    """kaldi-native-fbank with the options funasr's WavFrontend ends up passing."""
    import kaldi_native_fbank as knf

    n = len(samples)
    opts = knf.FbankOptions()
    fo = opts.frame_opts
    fo.samp_freq = float(SR)
    fo.frame_length_ms = float(min(25, n / SR * 1000))  # WavFrontend's min() rule
    fo.frame_shift_ms = 10.0
    fo.dither = 0.0
    fo.snip_edges = True
    fo.window_type = "hamming"
    fo.preemph_coeff = 0.97
    fo.remove_dc_offset = True
    fo.round_to_power_of_two = True
    opts.mel_opts.num_bins = 80
    opts.mel_opts.low_freq = 20.0
    opts.mel_opts.high_freq = 0.0
    opts.energy_floor = 0.0
    opts.raw_energy = True
    opts.use_energy = False
    opts.use_log_fbank = True
    opts.use_power = True
    opts.htk_compat = False
    fb = knf.OnlineFbank(opts)
    # WavFrontend multiplies the float32 tensor by 1 << 15.
    fb.accept_waveform(SR, (samples.astype(np.float32) * np.float32(32768)).tolist())
    fb.input_finished()
    if fb.num_frames_ready == 0:
        return np.zeros((0, 80), np.float32)
    return np.stack([fb.get_frame(i) for i in range(fb.num_frames_ready)])


@pytest.fixture(scope="module")
def wav_frontend():
    from funasr.frontends.wav_frontend import WavFrontend

    return WavFrontend(
        fs=16000,
        window="hamming",
        n_mels=80,
        frame_length=25,
        frame_shift=10,
        lfr_m=7,
        lfr_n=6,
        dither=0.0,
    )


def funasr_features(frontend, samples: np.ndarray) -> np.ndarray:
    """As funasr's extract_fbank calls the frontend for one numpy clip."""
    import torch

    data = torch.from_numpy(samples.astype(np.float32))[None, :]
    feats, lens = frontend(data, [data.shape[1]])
    assert int(lens[0]) == feats.shape[1]
    return feats[0].numpy()


# --------------------------------------------------------------------------
# Clips


def _resample_to_16k(src, dst) -> None:
    if shutil.which("sox"):
        cmd = ["sox", str(src), "-r", str(SR), "-c", "1", "-b", "16", str(dst)]
    elif shutil.which("ffmpeg"):
        cmd = ["ffmpeg", "-v", "error", "-y", "-i", str(src), "-ar", str(SR), "-ac", "1", str(dst)]
    else:
        raise AssertionError("need sox or ffmpeg to resample the espeak clip")
    subprocess.run(cmd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def speech(tmp_path_factory) -> np.ndarray:
    assert shutil.which("espeak-ng"), "espeak-ng is required for the speech clip"
    d = tmp_path_factory.mktemp("espeak")
    raw, wav = d / "raw.wav", d / "speech16k.wav"
    subprocess.run(
        ["espeak-ng", "-w", str(raw), "The quick brown fox jumps over the lazy dog. Tingji writes down what you say."],
        check=True,
        capture_output=True,
    )
    _resample_to_16k(raw, wav)
    audio, sr = sf.read(str(wav), dtype="float32", always_2d=False)
    assert sr == SR and audio.ndim == 1 and len(audio) > SR
    return audio


@pytest.fixture(scope="module")
def clips(speech) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    out = {
        "speech": speech,
        "silence": np.zeros(SR, np.float32),
        "white_noise": rng.uniform(-0.5, 0.5, 3 * SR).astype(np.float32),
        "quiet_noise": (rng.standard_normal(SR) * 1e-4).astype(np.float32),
    }
    start = len(speech) // 3  # inside the utterance, not leading silence
    for n in ODD_LENGTHS:
        out[f"speech_{n}"] = speech[start : start + n]
    return out


# --------------------------------------------------------------------------
# 1. fbank vs kaldi-native-fbank


def test_fbank_matches_kaldi_native_fbank(clips):
    worst = 0.0
    for name, x in clips.items():
        ref = knf_fbank(x)
        got = fe.fbank(x)
        assert got.dtype == np.float32
        assert got.shape == ref.shape, name
        assert ref.shape[0] == fe.num_fbank_frames(len(x)), name
        err = np.abs(got.astype(np.float64) - ref)
        print(f"fbank {name:>14} {str(got.shape):>10}: max abs {err.max():.2e}, mean {err.mean():.2e}")
        assert err.max() <= MAX_ABS_TOL, name
        assert err.mean() <= MEAN_ABS_TOL, name
        worst = max(worst, float(err.max()))
    print(f"fbank worst max abs error: {worst:.2e}")
    # Digital silence is exact: every band is log(float32 eps).
    assert np.all(fe.fbank(clips["silence"]) == np.float32(np.log(np.finfo(np.float32).eps)))


def test_sub_frame_clip_uses_a_shorter_frame(speech):
    """20 ms: shorter than a 25 ms frame, yet one (20 ms) frame, as in WavFrontend."""
    x = speech[len(speech) // 3 :][: SR // 50]
    assert len(x) == 320
    ref, got = knf_fbank(x), fe.fbank(x)
    assert got.shape == ref.shape == (1, 80)
    err = np.abs(got - ref).max()
    print(f"20 ms clip: max abs {err:.2e}")
    assert err <= MAX_ABS_TOL
    # ...and it is a different frame from the first 25 ms one of a longer clip.
    assert np.abs(fe.fbank(speech[len(speech) // 3 :][:400])[0] - got[0]).max() > 0.1


def test_ten_ms_clip_is_empty_where_the_reference_raises(speech, wav_frontend):
    """10 ms (160 samples): knf's 256-point FFT leaves mel filters empty and it
    raises; we document and return zero frames instead."""
    x = speech[len(speech) // 3 :][: SR // 100]
    with pytest.raises(ValueError, match="num_mel_bins"):
        knf_fbank(x)
    with pytest.raises(ValueError):
        funasr_features(wav_frontend, x)
    assert fe.fbank(x).shape == (0, 80)
    assert fe.features(x).shape == (0, 560)
    assert fe.num_fbank_frames(len(x)) == 0 == fe.num_lfr_frames(len(x))


def test_threshold_between_no_frame_and_one_frame():
    rng = np.random.default_rng(7)
    for n in (255, 256):
        x = rng.uniform(-0.3, 0.3, n).astype(np.float32)
        with pytest.raises(ValueError):
            knf_fbank(x)
        assert fe.fbank(x).shape == (0, 80)
    x = rng.uniform(-0.3, 0.3, 257).astype(np.float32)
    assert fe.fbank(x).shape == knf_fbank(x).shape == (1, 80)


# --------------------------------------------------------------------------
# 2. features vs funasr's WavFrontend


def test_features_match_funasr_wav_frontend(clips, wav_frontend):
    for name, x in clips.items():
        ref = funasr_features(wav_frontend, x)
        got = fe.features(x)
        assert got.dtype == np.float32
        assert got.shape == ref.shape, name
        assert got.shape == (fe.num_lfr_frames(len(x)), 560), name
        err = np.abs(got.astype(np.float64) - ref)
        print(f"features {name:>14} {str(got.shape):>11}: max abs {err.max():.2e}, mean {err.mean():.2e}")
        assert err.max() <= MAX_ABS_TOL, name
        assert err.mean() <= MEAN_ABS_TOL, name


def test_apply_lfr_matches_funasr_exactly():
    import torch
    from funasr.frontends.wav_frontend import apply_lfr as ref_lfr

    rng = np.random.default_rng(3)
    for t in itertools.chain(range(1, 80), (100, 599, 600, 601, 5998)):
        feats = rng.standard_normal((t, 80)).astype(np.float32)
        for m, n in ((7, 6), (1, 1), (5, 3)):
            ref = ref_lfr(torch.from_numpy(feats), m, n).numpy()
            got = fe.apply_lfr(feats, m, n)
            assert got.shape == ref.shape == (-(-t // n), 80 * m), (t, m, n)
            assert np.array_equal(got, ref), (t, m, n)
    assert fe.apply_lfr(np.zeros((0, 80), np.float32), 7, 6).shape == (0, 560)


# --------------------------------------------------------------------------
# 3. frame and token arithmetic


def _prime_steps():
    return itertools.cycle(
        [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]
    )


def test_frame_counts_match_arrays_and_reference():
    rng = np.random.default_rng(11)
    signal = rng.uniform(-0.5, 0.5, 40001).astype(np.float32)
    checked, n, steps = 0, 0, _prime_steps()
    while n <= 40000:
        x = signal[:n]
        f = fe.fbank(x)
        assert f.shape == (fe.num_fbank_frames(n), 80), n
        assert fe.features(x).shape == (fe.num_lfr_frames(n), 560), n
        assert fe.num_lfr_frames(n) == -(-f.shape[0] // 6), n
        if n % 7 == 0 or n < 1000:  # knf agrees on the count (or raises) too
            if n < 257:
                assert f.shape[0] == 0
            else:
                assert knf_fbank(x).shape[0] == f.shape[0], n
        checked += 1
        n += next(steps)
    print(f"checked frame counts for {checked} lengths")
    assert checked > 900
    # 60 s window: 5998 fbank frames -> 1000 LFR frames -> 125 audio tokens.
    assert fe.num_fbank_frames(960000) == 5998
    assert fe.num_lfr_frames(960000) == 1000
    assert num_adaptor_rows(1000) == 125


def test_num_adaptor_rows_is_funasr_formula():
    def reference(t: int) -> int:  # funasr/models/fun_asr_nano/model.py, verbatim
        olens = 1 + (t - 3 + 2 * 1) // 2
        olens = 1 + (olens - 3 + 2 * 1) // 2
        fake_token_len_i = (olens - 1) // 2 + 1
        return fake_token_len_i

    for t in range(1, 3001):
        assert num_adaptor_rows(t) == reference(t), t
        assert num_adaptor_rows(t) == -(-t // 8), t  # it boils down to ceil(T / 8)
    assert [num_adaptor_rows(t) for t in (1, 8, 9, 16, 17)] == [1, 1, 2, 2, 3]
    assert num_adaptor_rows(0) == reference(0) == 0
    with pytest.raises(ValueError):
        num_adaptor_rows(-1)


# --------------------------------------------------------------------------
# 4. empty and one-sample input, config round trip, speed


def test_empty_and_one_sample():
    for n in (0, 1):
        x = np.zeros(n, np.float32)
        assert fe.fbank(x).shape == (0, 80)
        assert fe.fbank(x).dtype == np.float32
        assert fe.features(x).shape == (0, 560)
        assert fe.features(x).dtype == np.float32
        assert fe.num_fbank_frames(n) == fe.num_lfr_frames(n) == 0
        assert num_adaptor_rows(fe.num_lfr_frames(n)) == 0
    with pytest.raises(ValueError, match="1-D"):
        fe.fbank(np.zeros((2, 16000), np.float32))
    with pytest.raises(ValueError, match="float"):
        fe.fbank(np.zeros(16000, np.int16))


def test_config_round_trip_and_validation(tmp_path):
    import json
    from dataclasses import asdict

    from tingji.engine.schema import parse
    from tingji.errors import ModelError

    cfg = fe.FrontendConfig()
    assert (cfg.sample_rate, cfg.n_mels, cfg.lfr_m, cfg.lfr_n, cfg.feature_dim) == (16000, 80, 7, 6, 560)
    data = json.loads(json.dumps(asdict(cfg)))
    where = tmp_path / "manifest.json"
    assert parse(fe.FrontendConfig, data, path=where, key="frontend") == cfg
    assert hash(parse(fe.FrontendConfig, data, path=where, key="frontend")) == hash(cfg)
    assert parse(fe.FrontendConfig, {}, path=where, key="frontend") == cfg  # missing keys: Nano's settings
    with pytest.raises(ModelError, match="unknown key frontend.cmvn_file"):
        parse(fe.FrontendConfig, {**data, "cmvn_file": "am.mvn"}, path=where, key="frontend")
    with pytest.raises(ValueError):
        fe.FrontendConfig(dither=1.0)
    with pytest.raises(ValueError):
        fe.FrontendConfig(window="blackmanharris")
    with pytest.raises(ValueError, match="n_mels"):
        fe.FrontendConfig(n_mels=400)  # filters cannot all get an FFT bin


@pytest.mark.load_sensitive
def test_sixty_second_window_is_vectorised(speech):
    """A 60 s window's features in whole-array NumPy calls, not a Python loop over its 6000 frames.

    Counted in Python-level calls, which a busy machine does not change (a time limit here once
    stood for the same thing and depended on what else the cores were doing).
    """
    import sys

    x = np.resize(speech, 960000)
    fe.features(x)
    calls = 0

    def count(frame, event: str, arg) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        out = fe.features(x)
    finally:
        sys.setprofile(None)
    t0 = time.perf_counter()
    fe.features(x)
    print(f"features(60 s): {calls} Python calls, {(time.perf_counter() - t0) * 1000:.1f} ms")
    assert out.shape == (1000, 560)
    frames = len(x) // 160  # a 10 ms hop: a per-frame loop makes at least this many calls
    assert calls < frames // 10, calls
