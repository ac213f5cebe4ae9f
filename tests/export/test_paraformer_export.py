"""Paraformer through `tingji export-model` and `tingji transcribe`: files, int8, bad inputs.

Proof 5 of the issue lives here: a truncated `model.pt`, a missing `am.mvn`
or `tokens.json`, a config naming an unknown predictor (and the other
ways a folder can be the wrong thing) get one clear line naming the file,
and nothing is left behind.
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
import yaml

from tests.support.audio import write_wav
from tests.support.broken_checkpoints import assert_cli_refuses_a_truncated_model_pt, assert_export_refused, tingji_cli
from tests.support.cpu_paths import NATIVE, PATHS, run_graphs
from tests.support.int8_checks import MAX_REL_ERROR, rel_error
from tests.support.paths import ROOT
from tingji.engine import Engine
from tingji.engine.families.paraformer import cif
from tingji.engine.frontend import features, load_cmvn
from tingji.engine.manifest import load_manifest, verify
from tingji.errors import ModelError
from tingji.export import detect_family
from tingji.export.lint import lint_directml
from tingji.export.onnx_tools import check_int8_weights

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
# The int8 decoder's best token per slot, against fp32's (teacher-forced: the same fp32 CIF embeddings).
MIN_TOKEN_AGREEMENT = 0.9


def test_manifest_lists_every_file(pf_checkpoint, pf_model, pf_plain_checkpoint, pf_plain_model):
    assert detect_family(pf_checkpoint) == detect_family(pf_plain_checkpoint) == "paraformer"
    m = load_manifest(pf_model)
    verify(m)
    assert {e.path for e in m.files.values()} | {"manifest.json"} == {p.name for p in pf_model.iterdir()}
    assert m.family == "paraformer" and m.window_seconds == 60 and m.window_frames == 1000
    assert set(m.files) == {
        "encoder",
        "encoder_fixed",
        "encoder_data",
        "decoder",
        "decoder_fixed",
        "decoder_data",
        "timestamp",
        "timestamp_data",
        "cmvn",
        "tokens",
    }
    assert m.frontend.dither == 0 and m.frontend.lfr_m == 7
    assert m.section.variant == "bicif" and m.section.cif.tail_threshold == 0.45
    assert (pf_model / "am.mvn").read_bytes() == (pf_checkpoint / "am.mvn").read_bytes()
    assert json.loads((pf_model / "tokens.json").read_text()) == json.loads((pf_checkpoint / "tokens.json").read_text())
    plain = load_manifest(pf_plain_model)
    assert plain.section.variant == "plain" and plain.section.cif.upsample_times == 1
    assert set(plain.files) == {"encoder", "encoder_data", "decoder", "decoder_data", "cmvn", "tokens"}
    print(f"files: {sorted(m.files)}; window {m.window_seconds} s = {m.window_frames} frames")


@pytest.fixture(scope="module")
def pf_int8(pf_checkpoint, tmp_path_factory) -> Path:
    """The int8 export (dynamic graphs), through the command line as a user would make it."""
    out = tmp_path_factory.mktemp("pf-int8") / "int8"
    r = tingji_cli(
        "export-model", "--source", str(pf_checkpoint), "--out", str(out), "--precision", "int8", "--no-fixed"
    )
    assert r.returncode == 0, r.stderr
    return out


def _cases(model: Path, clips: list[np.ndarray]) -> list[dict[str, np.ndarray]]:
    """Per clip, the feeds of both graphs: features, and the fp32 encoder's states and CIF embeddings."""
    m = load_manifest(model)
    encoder = ort.InferenceSession(str(m.file("encoder")), providers=["CPUExecutionProvider"])
    out = []
    for wav in clips:
        feats = features(wav, m.frontend, load_cmvn(m.file("cmvn")))
        ones = np.ones((1, len(feats)), np.float32)
        enc, alphas = encoder.run(None, {"speech": feats[None], "mask": ones})
        fired = cif.fire_loop(alphas[0], enc[0], m.section.cif.tail_threshold)
        out.append(
            {
                "speech": feats[None],
                "mask": ones,
                "acoustic": fired.embeddings[None],
                "slot_mask": np.ones((1, fired.token_count), np.float32),
            }
        )
    return out


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_int8_export_matches_fp32_on_every_cpu_path(pf_model, pf_int8, speech_en, speech_zh, path):
    """The int8 graphs on this CPU's own kernels and on AVX2 without VNNI (qemu): the same bounds on
    both - encoder states and CIF weights close to fp32's, the decoder's best tokens mostly fp32's."""
    cases = _cases(pf_model, [speech_en, speech_zh])
    fp32 = load_manifest(pf_model)
    int8 = load_manifest(pf_int8)
    ref = run_graphs(NATIVE, [fp32.file("encoder"), fp32.file("decoder")], cases)
    run = run_graphs(path, [int8.file("encoder"), int8.file("decoder")], cases)
    for name, (enc8, dec8), (enc32, dec32) in zip(("en", "zh"), run.outputs, ref.outputs):
        enc_err = rel_error(enc8["enc"], enc32["enc"])
        alpha_err = float(np.abs(enc8["alphas"] - enc32["alphas"]).max())
        agree = float((dec8["ids"] == dec32["ids"]).mean())
        print(
            f"{path.name} ({run.kernel}), {name}: encoder relative error {enc_err:.3f}, CIF weights "
            f"{alpha_err:.3f}; best token agrees on {agree:.1%} of {dec32['ids'].size} slots"
        )
        assert enc_err <= MAX_REL_ERROR and alpha_err <= 0.05
        assert agree >= MIN_TOKEN_AGREEMENT
    for role in ("encoder", "decoder"):
        assert lint_directml(int8.file(role)) == [], role
        check_int8_weights(onnx.load(str(int8.file(role))))
    assert int8.section.encoder.precision == "int8" and int8.file("timestamp").name == "timestamp.int8.onnx"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_int8_timestamp_head_moves_the_times_less_than_the_int8_encoder(pf_model, pf_int8, speech_en, speech_zh, path):
    """The int8 export's timestamp head (int8 LSTM weights) on this CPU's kernels and on AVX2 without
    VNNI: on the fp32 encoder's states its weights stay closer to the fp32 head's than the fp32 head's
    own weights on the int8 encoder's states, and it gives the fp32 head's token times within one
    timing frame (20 ms)."""
    cases = _cases(pf_model, [speech_en, speech_zh])
    fp32, int8 = load_manifest(pf_model), load_manifest(pf_int8)
    graph = onnx.load(str(int8.file("timestamp")))
    assert [n.op_type for n in graph.graph.node if "LSTM" in n.op_type] == ["DynamicQuantizeLSTM"]
    check_int8_weights(graph)
    ref = run_graphs(NATIVE, [fp32.file("encoder"), fp32.file("timestamp")], cases)
    # The int8 head reads exactly the states the fp32 head read (no second fp32 encoder run).
    head8 = run_graphs(path, [int8.file("timestamp")], [{"enc": enc["enc"]} for enc, _ in ref.outputs])
    enc8 = run_graphs(path, [int8.file("encoder"), fp32.file("timestamp")], cases)
    c = fp32.section.cif
    frame_ms = 1000 * c.frame_seconds / c.upsample_times

    def times(weights: np.ndarray, tokens: int) -> np.ndarray:
        return np.array(cif.head_token_times(weights, tokens, ["x"] * tokens, c.frame_seconds, c.upsample_times))

    for name, (enc, ts32), (ts_head8,), (_, ts_enc8) in zip(("en", "zh"), ref.outputs, head8.outputs, enc8.outputs):
        w32 = ts32["weights"][0]
        head_err = float(np.abs(ts_head8["weights"][0] - w32).max())
        enc_err = float(np.abs(ts_enc8["weights"][0] - w32).max())
        tokens = cif.fire_loop(enc["alphas"][0], enc["enc"][0], c.tail_threshold).token_count
        t32, t8 = times(w32, tokens), times(ts_head8["weights"][0], tokens)
        moved = int(np.abs(t8 - t32).max(initial=0)) if t8.shape == t32.shape else None
        print(
            f"{path.name} ({head8.kernel}), {name}: timestamp weights moved {head_err:.2e} by the int8 head, "
            f"{enc_err:.2e} by the int8 encoder; {len(t32)} token times, the largest move {moved} ms"
        )
        assert head_err < enc_err
        assert len(t32) > 0 and moved is not None and moved <= frame_ms


def _config(checkpoint: Path, **changes) -> bytes:
    config = yaml.safe_load((checkpoint / "config.yaml").read_text(encoding="utf-8"))
    for key, value in changes.items():
        section, _, field = key.partition(".")
        if field:
            config[section][field] = value
        else:
            config[key] = value
    return yaml.safe_dump(config).encode()


@pytest.mark.parametrize(
    "case, name, expected",
    [
        ("truncated model.pt", "model.pt", "damaged or truncated checkpoint"),
        ("missing am.mvn", "am.mvn", "am.mvn missing"),
        ("missing tokens.json", "tokens.json", "tokens.json missing"),
        ("config naming an unknown predictor", "config.yaml", "predictor 'CifPredictorV9' is not supported"),
        ("SeACo-Paraformer", "config.yaml", "model 'SeacoParaformer' is not supported"),
        ("BiCIF head without the BLSTM", "config.yaml", "upsample_type 'cnn' is not supported"),
        ("config with a size that is not a number", "config.yaml", "encoder_conf.output_size is 'big'"),
        ("tokens.json of another vocabulary", "tokens.json", "but model.pt's decoder has"),
        ("tokens.json not a list", "tokens.json", "not a token list"),
        ("am.mvn without numbers", "am.mvn", "not a CMVN file"),
    ],
)
def test_bad_checkpoints_are_one_clear_line(pf_checkpoint, tmp_path, case, name, expected):
    tokens = json.loads((pf_checkpoint / "tokens.json").read_text(encoding="utf-8"))
    content = {
        "truncated model.pt": (pf_checkpoint / "model.pt").read_bytes()[:200_000],
        "missing am.mvn": None,
        "missing tokens.json": None,
        "config naming an unknown predictor": _config(pf_checkpoint, predictor="CifPredictorV9"),
        "SeACo-Paraformer": _config(pf_checkpoint, model="SeacoParaformer"),
        "BiCIF head without the BLSTM": _config(pf_checkpoint, **{"predictor_conf.upsample_type": "cnn"}),
        "config with a size that is not a number": _config(pf_checkpoint, **{"encoder_conf.output_size": "big"}),
        "tokens.json of another vocabulary": json.dumps(tokens[:-5]).encode(),
        "tokens.json not a list": b'{"<blank>": 0}',
        "am.mvn without numbers": b"<Nnet>\n<AddShift> 560 560\n</Nnet>\n",
    }[case]
    assert_export_refused(pf_checkpoint, tmp_path, case, name, content, expected)


def test_bad_checkpoint_through_the_cli(pf_checkpoint, tmp_path):
    assert_cli_refuses_a_truncated_model_pt(pf_checkpoint, tmp_path)


def test_a_damaged_model_folder_is_one_clear_line(pf_model, tmp_path):
    """A manifest section with a misspelled key, or an unreadable tokens.json, refuses to load in one line."""
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(pf_model, copy)
    data = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    data["paraformer"]["cif"]["tail_treshold"] = data["paraformer"]["cif"].pop("tail_threshold")
    (copy / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError) as info:
        Engine(copy, "cpu", warm=False)
    print(info.value)
    assert "paraformer.cif.tail_treshold" in str(info.value) and info.value.code == "manifest.unknown_key"


def test_transcribe_cli_times_segments_and_warns(pf_model, speech_zh, tmp_path):
    """The CLI's JSON and SRT carry timed segments; --hotwords and --language en each get a warning."""
    audio = np.concatenate([speech_zh, np.zeros(16000, np.float32), speech_zh])
    clip = write_wav(tmp_path / "clip.wav", audio)
    r = tingji_cli(
        "transcribe",
        str(clip),
        "--model",
        str(pf_model),
        "--format",
        "json,srt",
        "--out",
        str(tmp_path),
        "--hotwords",
        "听记",
        "--language",
        "en",
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "clip.json").read_text(encoding="utf-8"))
    expected = Engine(pf_model, "cpu").transcribe(clip)
    print(f"{len(data['segments'])} segments {[(s['start'], s['end']) for s in data['segments']]}; stderr {r.stderr!r}")
    assert data["family"] == "paraformer" and data["text"] == expected.text
    assert "no hotword support" in r.stderr and "cannot be told the language 'en'" in r.stderr
    seconds = len(audio) / 16000
    assert data["segments"] and all(0 <= s["start"] <= s["end"] <= seconds + 0.01 for s in data["segments"])
    assert (tmp_path / "clip.srt").read_text(encoding="utf-8").startswith("1\n")


def test_running_needs_neither_torch_nor_funasr(pf_model):
    """The engine loads and runs the model with NumPy and ONNX Runtime only."""
    code = (
        "import json, sys, numpy as np; from tingji.engine import Engine; "
        f"Engine({str(pf_model)!r}, 'cpu').transcribe(np.zeros(16000, np.float32)); "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'funasr', 'PySide6') or m.startswith('tingji.export'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, check=True)
    print(f"modules a Paraformer run loads beyond the engine's: {out.stdout.strip()}")
    assert json.loads(out.stdout) == []
