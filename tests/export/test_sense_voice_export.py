"""SenseVoice-Small through `tingji export-model` and `tingji transcribe`: files, precisions, bad inputs.

Proof 4 of the issue lives here: a checkpoint folder with a missing
`am.mvn`, a wrong BPE file or a truncated `model.pt` gets one clear line
naming the file, and nothing is left behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from demo_model.text import edit_distance

from tests.support.audio import write_wav
from tests.support.broken_checkpoints import assert_cli_refuses_a_truncated_model_pt, assert_export_refused, tingji_cli
from tests.support.cpu_paths import NATIVE, PATHS, run_graphs
from tests.support.int8_checks import MAX_CTC_PATH_EDIT_RATE, ctc_agreement
from tests.support.paths import ROOT
from tingji.engine import Engine, TranscribeOptions
from tingji.engine.families.sense_voice_small.recognizer import load as load_sense_voice
from tingji.engine.families.sense_voice_small.rich import query_ids
from tingji.engine.frontend import features, load_cmvn
from tingji.engine.manifest import load_manifest, verify
from tingji.engine.options import LoadOptions
from tingji.export import detect_family, export_model
from tingji.export.lint import lint_directml
from tingji.export.onnx_tools import check_int8_weights

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "app"))


def _log_probs(model: Path, wav: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = load_manifest(model)
    feats = features(wav, m.frontend, load_cmvn(m.file("cmvn")))
    sess = ort.InferenceSession(str(m.file("encoder")), providers=["CPUExecutionProvider"])
    _, _, values, ids = sess.run(
        None,
        {
            "speech": feats[None],
            "mask": np.ones((1, len(feats)), np.float32),
            "query": query_ids(m.section.queries, None, True),
        },
    )
    return values[0], ids[0]


def test_manifest_lists_every_file(sv_checkpoint, sv_model):
    assert detect_family(sv_checkpoint) == "sense-voice-small"
    m = load_manifest(sv_model)
    verify(m)
    assert {e.path for e in m.files.values()} | {"manifest.json"} == {p.name for p in sv_model.iterdir()}
    assert m.family == "sense-voice-small" and m.window_seconds == 30 and m.window_frames == 500
    assert set(m.files) == {"encoder", "encoder_fixed", "encoder_data", "cmvn", "tokens"}
    assert m.frontend.dither == 0 and m.frontend.lfr_m == 7
    assert "30 s" in m.section.window_reason and m.section.ctc.blank_id == 0
    assert (sv_model / "am.mvn").read_bytes() == (sv_checkpoint / "am.mvn").read_bytes()
    print(f"files: {sorted(m.files)}; window {m.window_seconds} s = {m.window_frames} frames")


@pytest.fixture(scope="module")
def sv_int8(sv_checkpoint, tmp_path_factory) -> Path:
    """The int8 export, through the command line as a user would make it."""
    out = tmp_path_factory.mktemp("sv-int8") / "int8"
    r = tingji_cli("export-model", "--source", str(sv_checkpoint), "--out", str(out), "--precision", "int8")
    assert r.returncode == 0, r.stderr
    return out


def _feeds(model: Path, wav: np.ndarray) -> dict[str, np.ndarray]:
    m = load_manifest(model)
    feats = features(wav, m.frontend, load_cmvn(m.file("cmvn")))
    return {
        "speech": feats[None],
        "mask": np.ones((1, len(feats)), np.float32),
        "query": query_ids(m.section.queries, None, True),
    }


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_int8_export_matches_fp32_on_every_cpu_path(sv_model, sv_int8, speech_en, speech_zh, path):
    """The int8 graph on this CPU's own kernels and on AVX2 without VNNI (qemu, issue 18): the same
    bounds on both, down to the CTC path and the decoded text."""
    cases = [_feeds(sv_model, wav) for wav in (speech_en, speech_zh)]
    ref = run_graphs(NATIVE, [load_manifest(sv_model).file("encoder")], cases)
    run = run_graphs(path, [load_manifest(sv_int8).file("encoder")], cases)
    recognizer = load_sense_voice(load_manifest(sv_model), LoadOptions(provider="cpu", warm=False))
    for name, (got,), (want,) in zip(("en", "zh"), run.outputs, ref.outputs):
        err = float(np.abs(got["log_probs"][..., 0] - want["log_probs"][..., 0]).max())
        best8 = np.concatenate([got["query_ids"][0, :, 0], got["ids"][0, :, 0]])
        best32 = np.concatenate([want["query_ids"][0, :, 0], want["ids"][0, :, 0]])
        ctc = ctc_agreement(best8, best32, recognizer.blank)
        text8, text32 = recognizer.decode(best8).text, recognizer.decode(best32).text
        chars = edit_distance(list(text32), list(text8))
        print(
            f"{path.name} ({run.kernel}), {name}: {ctc}; text {chars}/{len(text32)} characters differ; "
            f"best log-prob max abs error {err:.3f}"
        )
        assert ctc.ok(), str(ctc)
        assert chars <= MAX_CTC_PATH_EDIT_RATE * len(text32)


def test_fp16_export_stays_close_to_fp32(sv_checkpoint, sv_model, sv_int8, speech_en, tmp_path):
    fp16 = export_model(sv_checkpoint, tmp_path / "fp16", precision="fp16")
    assert "encoder_fixed" not in load_manifest(export_model(sv_checkpoint, tmp_path / "nofixed", fixed=False)).files
    ref_values, ref_ids = _log_probs(sv_model, speech_en)
    values, ids = _log_probs(fp16, speech_en)
    agree = float((ids[:, 0] == ref_ids[:, 0]).mean())
    err = float(np.abs(values[:, 0] - ref_values[:, 0]).max())
    print(f"fp16 vs fp32: best CTC token agrees on {agree:.1%} of frames; best log-prob max abs error {err:.3f}")
    assert agree >= 0.99
    assert load_manifest(sv_int8).section.encoder.precision == "int8"
    # (tiny weights: the query table, FSMN kernels and 4 KiB alignment keep this above one half)
    assert (sv_int8 / "encoder.int8.data").stat().st_size < 0.6 * (sv_model / "encoder.fp32.data").stat().st_size
    for model in (sv_int8, fp16):
        m = load_manifest(model)
        for role, static in (("encoder", False), ("encoder_fixed", True)):
            assert lint_directml(m.file(role), require_static=static) == [], (model.name, role)
        if model is sv_int8:
            check_int8_weights(onnx.load(str(m.file("encoder"))))


def _other_vocabulary(tmp_path: Path, tags: bool) -> bytes:
    """A real SentencePiece model, but not this checkpoint's vocabulary."""
    import sentencepiece as spm
    from tiny_sense_voice import TAGS, corpus

    prefix = tmp_path / "other"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()),
        model_prefix=str(prefix),
        model_type="bpe",
        vocab_size=450,
        character_coverage=1.0,
        hard_vocab_limit=False,
        minloglevel=2,
        user_defined_symbols=TAGS if tags else [],
    )
    return prefix.with_suffix(".model").read_bytes()


BPE = "chn_jpn_yue_eng_ko_spectok.bpe.model"


@pytest.mark.parametrize(
    "case, name, expected",
    [
        ("missing am.mvn", "am.mvn", "am.mvn missing"),
        ("am.mvn without numbers", "am.mvn", "not a CMVN file"),
        ("BPE file is a tiktoken vocabulary", BPE, "not a SentencePiece model"),
        ("BPE file of another vocabulary size", BPE, "not this model's vocabulary"),
        ("BPE file without SenseVoice's tags", BPE, "not SenseVoice's vocabulary"),
        ("truncated model.pt", "model.pt", "damaged or truncated checkpoint"),
    ],
)
def test_bad_checkpoints_are_one_clear_line(sv_checkpoint, tmp_path, case, name, expected):
    content = {
        "missing am.mvn": None,
        "am.mvn without numbers": b"<Nnet>\n<AddShift> 560 560\n</Nnet>\n",
        "BPE file is a tiktoken vocabulary": b"IQ== 0\nIg== 1\nIw== 2\n",
        "BPE file of another vocabulary size": _other_vocabulary(tmp_path, tags=True),
        "BPE file without SenseVoice's tags": _other_vocabulary(tmp_path, tags=False),
        "truncated model.pt": (sv_checkpoint / "model.pt").read_bytes()[:200_000],
    }[case]
    assert_export_refused(sv_checkpoint, tmp_path, case, name, content, expected)


def test_bad_checkpoint_through_the_cli(sv_checkpoint, tmp_path):
    assert_cli_refuses_a_truncated_model_pt(sv_checkpoint, tmp_path)


def test_transcribe_cli_reports_tags_and_warns_about_hotwords(sv_model, speech_en, tmp_path):
    clip = write_wav(tmp_path / "clip.wav", speech_en)
    r = tingji_cli(
        "transcribe",
        str(clip),
        "--model",
        str(sv_model),
        "--format",
        "json,srt",
        "--out",
        str(tmp_path),
        "--hotwords",
        "Tingji",
        "--no-itn",
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "clip.json").read_text(encoding="utf-8"))
    expected = Engine(sv_model, "cpu").transcribe(clip, TranscribeOptions(itn=False))
    print(f"window_info {data['window_info']}; {len(data['segments'])} segments; stderr {r.stderr.strip()!r}")
    assert data["family"] == "sense-voice-small" and data["text"] == expected.text
    assert [w["index"] for w in data["window_info"]] == [w.index for w in expected.window_info]
    assert all("language" in w for w in data["window_info"])
    assert "no hotword support" in r.stderr
    assert data["segments"] and all(s["end"] >= s["start"] for s in data["segments"])


def test_running_needs_neither_torch_nor_sentencepiece(sv_model, tmp_path):
    """The engine loads and runs the model with NumPy and ONNX Runtime only (the piece table replaces sentencepiece)."""
    code = (
        "import json, sys, numpy as np; from tingji.engine import Engine; "
        f"Engine({str(sv_model)!r}, 'cpu').transcribe(np.zeros(16000, np.float32)); "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'sentencepiece', 'funasr', 'PySide6') or m.startswith('tingji.export'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, check=True)
    print(f"modules a SenseVoice run loads beyond the engine's: {out.stdout.strip()}")
    assert json.loads(out.stdout) == []
