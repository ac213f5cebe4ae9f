"""Qwen3-ASR's converter: DirectML-clean graphs, quantised exports, bad checkpoints as one line.

Moved from tests/engine/test_qwen3_asr.py (which proves the exported model computes what transformers'
`qwen3_asr` computes): 1. both encoder graphs pass the DirectML lint; 2. fp16 and int8 encoders with
quantised decoders stay within one bound of the reference's rows; 3. a damaged checkpoint is one line
that installs nothing, in `export_model` and in `tingji export-model`. Each test prints its figure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

from tests.support.paths import ROOT
from tests.support.reference_qwen3 import minute_of_speech, tower_rows, tower_session
from tingji.engine.families.qwen3_asr.encoder import num_tower_rows
from tingji.engine.manifest import load_manifest
from tingji.engine.mel import log_mel
from tingji.errors import ModelError


@pytest.fixture(scope="module")
def long_speech(speech_en: np.ndarray, speech_zh: np.ndarray) -> np.ndarray:
    return minute_of_speech(speech_en, speech_zh)


# -- 1. DirectML ------------------------------------------------------------------------------------


def test_graphs_pass_directml_lint(q3_model):
    from tingji.export.lint import lint_directml

    m = load_manifest(q3_model)
    for role, static in (("encoder", False), ("encoder_fixed", True)):
        problems = lint_directml(m.file(role), require_static=static)
        print(f"{role}: {len(problems)} DirectML problems")
        assert problems == [], [str(p) for p in problems]


# -- 2. precisions ----------------------------------------------------------------------------------


def test_int8_and_fp16_encoders_with_quantised_decoders(q3_checkpoint, q3_reference, long_speech, tmp_path):
    """fp16 and int8 encoders against the reference's rows; the int8 one on this CPU's own kernels
    and on AVX2 without VNNI (qemu, issue 18), to one bound."""
    from tests.support.cpu_paths import PATHS, run_graphs
    from tests.support.int8_checks import MAX_REL_ERROR, rel_error
    from tingji.engine.decoder import open_decoder
    from tingji.export import export_model
    from tingji.export.onnx_tools import check_int8_weights

    wav = long_speech[: 9 * 16000]
    ref = q3_reference.encode(wav)
    mel = log_mel(wav)
    for precision, quant, bound in (("int8", "q5_k", MAX_REL_ERROR), ("fp16", "q8_0", 0.01)):
        model = export_model(q3_checkpoint, tmp_path / precision, precision=precision, decoder_quant=quant, fixed=False)
        m = load_manifest(model)
        errors = {"this process": rel_error(tower_rows(tower_session(m.file("encoder"), exact=False), mel), ref)}
        if precision == "int8":
            graph = onnx.load(str(m.file("encoder")))
            check_int8_weights(graph)
            # the two big convolutions run as u8 x s8 products (export/qwen3_asr/int8_conv.py)
            assert {n.input[1] for n in graph.graph.node if n.op_type == "Conv"} == {"conv2d1.weight"}
            assert {"conv2d2.int8.weight", "conv2d3.int8.weight"} <= {t.name for t in graph.graph.initializer}
            feeds = {"mel": mel[None], "mask": np.ones((1, len(mel)), np.float32)}
            for path in PATHS:
                run = run_graphs(path, [m.file("encoder")], [feeds])
                rows = run.outputs[0][0]["audio_rows"][0, : num_tower_rows(len(mel))]
                errors[f"{path.name} ({run.kernel})"] = rel_error(rows, ref)
        dec = open_decoder(m.file("decoder"), eos_ids=[], n_ctx=256)
        print(
            f"{precision} encoder rows vs the reference, relative error: "
            + ", ".join(f"{k} {v:.3f}" for k, v in errors.items())
            + f"; {quant} decoder loads ({dec.n_vocab} tokens), files {sorted(m.files)}"
        )
        assert m.section.encoder.precision == precision and m.section.decoder.quant == quant
        assert max(errors.values()) <= bound
        assert "encoder_fixed" not in m.files


# -- 3. bad inputs ---------------------------------------------------------------------------------


def _broken(checkpoint: Path, tmp_path: Path, how: str) -> Path:
    bad = tmp_path / f"ckpt-{how}"
    shutil.copytree(checkpoint, bad)
    if how == "missing-weights":
        (bad / "model.safetensors").unlink()
    elif how == "missing-vocab":
        (bad / "vocab.json").unlink()
    elif how == "other-model":
        config = json.loads((bad / "config.json").read_text())
        config["model_type"] = "whisper"
        (bad / "config.json").write_text(json.dumps(config))
    elif how == "truncated":
        data = (bad / "model.safetensors").read_bytes()
        (bad / "model.safetensors").write_bytes(data[: len(data) * 2 // 3])
    return bad


@pytest.mark.parametrize(
    "how,expected",
    [
        ("missing-weights", "model.safetensors missing"),
        ("missing-vocab", "vocab.json"),
        ("other-model", "model_type 'whisper', expected qwen3_asr"),
        ("truncated", "model.safetensors: truncated"),
    ],
)
def test_bad_checkpoints_are_one_line_errors_and_install_nothing(q3_checkpoint, tmp_path, how, expected):
    from tingji.export import export_model

    bad = _broken(q3_checkpoint, tmp_path, how)
    out = tmp_path / "models" / "out"
    with pytest.raises(ModelError) as info:
        export_model(bad, out, family="qwen3-asr")
    message = str(info.value)
    left = sorted(p.name for p in out.parent.iterdir()) if out.parent.exists() else []
    print(f"{how}: {message!r}; left in the models folder: {left}")
    assert expected in message and "\n" not in message
    assert left == []


def test_export_model_cli_detects_the_family_and_reports_bad_input_in_one_line(q3_checkpoint, tmp_path):
    bad = _broken(q3_checkpoint, tmp_path, "other-model")
    cmd = [sys.executable, "-m", "tingji", "export-model", "--source", str(bad), "--out", str(tmp_path / "m")]
    run = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "app")))
    errors = [line for line in run.stderr.splitlines() if line.startswith("tingji:")]
    print(f"exit {run.returncode}: {errors}")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert len(errors) == 1 and "not a checkpoint Tingji can convert" in errors[0]
    assert not (tmp_path / "m").exists()
