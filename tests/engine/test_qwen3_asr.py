"""Qwen3-ASR: the exported model computes what transformers' native `qwen3_asr` computes.

1. the NumPy log-mel front-end vs the reference feature extractor; 2. the
ONNX audio tower vs the reference at the lengths where chunk, window and
padding mistakes show, and padding invariance of the fixed 60 s graph; 3. end
to end greedy tokens identical to the reference (speech in two languages and
noise; detected language, a forced one, a context string); 4. bad
checkpoints are one-line errors that install nothing. Plus the engine-side
parts the reference cannot judge: answer parsing, language codes, segment
timing on speech spans, lint, quantised exports. Each test prints its figure.
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
import onnxruntime as ort
import pytest

from tests.support.paths import ROOT
from tingji.engine.families.qwen3_asr.encoder import num_tower_rows
from tingji.engine.manifest import load_manifest
from tingji.engine.mel import log_mel, num_frames
from tingji.engine.options import TranscribeOptions
from tingji.errors import ModelError


@pytest.fixture(scope="module")
def q3_reference(q3_checkpoint: Path):
    from tests.support.reference_qwen3 import Qwen3Reference

    return Qwen3Reference(q3_checkpoint)


@pytest.fixture(scope="module")
def q3_engine(q3_model: Path):
    from tingji.engine.transcribe import Engine

    engine = Engine(q3_model, exact=True)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def long_speech(speech_en: np.ndarray, speech_zh: np.ndarray) -> np.ndarray:
    """A minute of real speech (both languages, tiled) to cut clips of any length from."""
    both = np.concatenate([speech_en, np.zeros(4000, np.float32), speech_zh])
    return np.tile(both, -(-60 * 16000 // len(both)) + 1)


def _session(path: Path, exact: bool = True) -> ort.InferenceSession:
    from tingji.engine.sessions import session_options

    return ort.InferenceSession(
        str(path), sess_options=session_options("cpu", None, exact=exact), providers=["CPUExecutionProvider"]
    )


def _rows(session: ort.InferenceSession, mel: np.ndarray) -> np.ndarray:
    (rows,) = session.run(None, {"mel": mel[None], "mask": np.ones((1, len(mel)), np.float32)})
    return rows[0, : num_tower_rows(len(mel))]


# -- 1. front-end ----------------------------------------------------------------------------


@pytest.mark.parametrize("clip", ["speech_en", "speech_zh", "silence", "0.3 s", "odd 12345", "odd 16001", "odd 273234"])
def test_log_mel_matches_the_reference_feature_extractor(q3_reference, long_speech, clip, request):
    wav = {
        "silence": np.zeros(16000, np.float32),
        "0.3 s": long_speech[:4800],
        "odd 12345": long_speech[:12345],
        "odd 16001": long_speech[5000:21001],
        "odd 273234": long_speech[:273234],
    }.get(clip)
    if wav is None:
        wav = request.getfixturevalue(clip)
    ref, mask = q3_reference.features(wav)
    ours = log_mel(wav)
    valid = int(mask.sum())
    err = float(np.abs(ref[:, :valid].T - ours).max())
    print(
        f"{clip}: {len(wav)} samples -> {len(ours)} frames (reference {valid}, padded to {ref.shape[1]}), "
        f"max abs error {err:.2e}"
    )
    assert len(ours) == valid == num_frames(len(wav))
    assert np.all(ref[:, valid:] == 0)  # the reference pads the mel with zeros, as the encoder graph does
    assert err <= 1e-4


# -- 2. encoder ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [0.3, 1, 7, 9, 17, 60])
def test_encoder_matches_the_reference(q3_model, q3_reference, long_speech, seconds):
    wav = long_speech[: int(seconds * 16000)]
    ref = q3_reference.encode(wav)
    m = load_manifest(q3_model)
    mel = log_mel(wav)
    ours = _rows(_session(m.file("encoder")), mel)
    fast = _rows(_session(m.file("encoder"), exact=False), mel)
    scale = float(np.abs(ref).max())
    err, err_fast = float(np.abs(ours - ref).max()) / scale, float(np.abs(fast - ref).max()) / scale
    print(
        f"{seconds:5} s: {len(mel)} frames -> {len(ref)} audio rows; relative error {err:.2e} "
        f"(all ORT fusions: {err_fast:.2e})"
    )
    assert ours.shape == ref.shape
    assert err <= 1e-4 and err_fast <= 1e-3


@pytest.mark.parametrize("seconds", [0.3, 1, 7, 17, 59.99])
def test_fixed_graph_is_padding_invariant(q3_model, long_speech, seconds):
    m = load_manifest(q3_model)
    mel = log_mel(long_speech[: int(seconds * 16000)])
    t, window = len(mel), m.window_frames
    dyn = _session(m.file("encoder"))
    (real,) = dyn.run(None, {"mel": mel[None], "mask": np.ones((1, t), np.float32)})
    padded = np.full((1, window, mel.shape[1]), 3.0, np.float32)  # garbage in the padding on purpose
    padded[0, :t] = mel
    mask = np.zeros((1, window), np.float32)
    mask[0, :t] = 1
    n = num_tower_rows(t)
    worst = 0.0
    for name, session in (("dynamic", dyn), ("fixed", _session(m.file("encoder_fixed")))):
        (rows,) = session.run(None, {"mel": padded, "mask": mask})
        err = float(np.abs(rows[0, :n] - real[0, :n]).max())
        print(f"{seconds} s padded to {window} frames ({name} graph): {n} rows, max abs error {err:.2e}")
        worst = max(worst, err)
        assert np.all(rows[0, n:] == 0), "rows past the valid ones must be zero"
    assert worst <= 1e-5


def test_fixed_policy_gives_the_dynamic_tokens_on_warmed_shapes_only(q3_model, q3_engine, long_speech):
    """The DirectML policy, run on the CPU provider: only the 10 s and 60 s buckets, the same tokens."""
    from tingji.engine.transcribe import Engine

    fixed = Engine(q3_model, exact=True, policy="fixed")
    try:
        graphs = fixed.recognizer.encoder.graphs
        for seconds in (3, 42):
            wav = long_speech[: seconds * 16000]
            ours = fixed.transcribe(wav, TranscribeOptions(max_tokens=24)).window_tokens[0]
            assert ours == q3_engine.transcribe(wav, TranscribeOptions(max_tokens=24)).window_tokens[0], seconds
        shapes = sorted({shape[:2] for _, shape in graphs.shapes_seen})
    finally:
        fixed.close()
    print(f"buckets {graphs.buckets}; shapes run {shapes}; tokens equal to the real-length graph's")
    assert shapes == [(1, 1000), (1, 6000)] and graphs.buckets == (1000, 6000)


def test_graphs_pass_directml_lint(q3_model):
    from tingji.export.lint import lint_directml

    m = load_manifest(q3_model)
    for role, static in (("encoder", False), ("encoder_fixed", True)):
        problems = lint_directml(m.file(role), require_static=static)
        print(f"{role}: {len(problems)} DirectML problems")
        assert problems == [], [str(p) for p in problems]


# -- 3. end to end ---------------------------------------------------------------------------------

CASES = [
    ("speech_en", None, None),
    ("speech_en", "en", None),
    ("speech_en", None, "Tingji, 听记, CapsWriter"),
    ("speech_zh", None, None),
    ("speech_zh", "zh", "会议记录"),
    ("noise", None, None),
    ("noise", "ja", None),
]


@pytest.mark.parametrize("clip,language,context", CASES)
def test_end_to_end_tokens_match_the_reference(q3_engine, q3_reference, clip, language, context, request):
    """NumPy mel + ONNX tower + llama.cpp greedy from the audio rows == transformers' generate()."""
    wav = request.getfixturevalue(clip)
    ref = q3_reference.run(wav, language=language, context=context, max_new_tokens=96)
    hotwords = [w.strip() for w in context.split(",")] if context else ()
    choices = TranscribeOptions(language=language, hotwords=hotwords, max_tokens=96)
    transcript = q3_engine.transcribe(wav, choices)
    ours = transcript.window_tokens[0]
    options, _ = q3_engine._options(choices)
    before, after = q3_engine.recognizer._prompt(options)
    same_prompt = ref["prompt"][: len(before)] == before and ref["prompt"][-len(after) :] == after
    n_same = next((i for i, (a, b) in enumerate(zip(ours, ref["ids"])) if a != b), min(len(ours), len(ref["ids"])))
    print(
        f"{clip} language={language} context={context!r}: prompt identical={same_prompt}, reference "
        f"{len(ref['ids'])} tokens, ours {len(ours)}, identical prefix {n_same}; window language "
        f"{transcript.window_info[0].language}"
    )
    assert same_prompt
    assert ours == ref["ids"]
    if language is not None:
        assert transcript.window_info[0].language == language


def test_decoder_tokenizes_like_the_reference(q3_model, q3_reference):
    """llama.cpp's tokenizer from the GGUF == the release's HF tokenizer, `<asr_text>` kept as text."""
    from tingji.engine.decoder import open_decoder

    dec = open_decoder(load_manifest(q3_model).file("decoder"), eos_ids=[], n_ctx=256)
    tok = q3_reference.tokenizer
    samples = [
        "<|im_start|>system\nTingji, 听记<|im_end|>\n<|im_start|>user\n<|audio_start|>",
        "<|audio_end|><|im_end|>\n<|im_start|>assistant\nlanguage Cantonese<asr_text>",
        "language English<asr_text>Hello  world, 123.45!",
        "混合 text 和 English。\n\n tabs\t",
    ]
    for text in samples:
        ids = tok.encode(text)
        assert dec.tokenize(text) == ids, text
        assert dec.detokenize(ids) == tok.decode(ids, skip_special_tokens=True), text
    print(f"{len(samples)} prompts tokenized identically; '<asr_text>' survives detokenizing")


# -- the engine's side: answers, languages, timing ---------------------------------------------------


def test_answers_are_parsed_as_the_reference_parses_them():
    from tingji.engine.families.qwen3_asr.prompt import collapse_repeats, parse_answer

    cases = {
        "language English<asr_text>Hello there.": ("English", "Hello there."),
        "language None<asr_text>": (None, ""),
        "  language Chinese\n<asr_text> 你好 ": ("Chinese", "你好"),
        "no marker at all": (None, "no marker at all"),
    }
    for text, expected in cases.items():
        assert parse_answer(text) == expected, text
    assert parse_answer("language English<asr_text>x", forced=True) == (None, "language English<asr_text>x")
    assert collapse_repeats("ha" * 30 + "!") == "ha!" and collapse_repeats("a" * 19) == "a" * 19
    print(f"{len(cases) + 1} answers parsed; repeated runs collapsed at 20")


def test_languages_come_from_the_release_and_map_to_codes(q3_engine, q3_checkpoint):
    config = json.loads((q3_checkpoint / "config.json").read_text())
    caps = q3_engine.capabilities
    names = q3_engine.recognizer.language_names
    print(f"{len(caps.languages)} languages: {', '.join(caps.languages)}")
    assert [names[c] for c in caps.languages] == config["support_languages"]
    assert caps.detects_language and caps.hotwords and not caps.itn and not caps.open_languages
    assert q3_engine.recognizer.language_code("cantonese") == "yue"
    transcript = q3_engine.transcribe(
        np.zeros(8000, np.float32), TranscribeOptions(language="xx", itn=False, max_tokens=4)
    )
    assert any("'xx'" in w.text for w in transcript.warnings)
    assert any(w.code == "engine.itn_always_on" and "normalisation" in w.text for w in transcript.warnings)


def test_segments_sit_on_speech_spans_and_last_at_most_15_s(q3_model, long_speech):
    """No CTC head: sentences are placed on the VAD's speech spans, none longer than 15 s."""
    from tingji.engine.align import MAX_SEGMENT_S
    from tingji.engine.transcribe import Engine

    gap = np.zeros(3 * 16000, np.float32)
    wav = np.concatenate([long_speech[: 12 * 16000], gap, long_speech[20 * 16000 : 40 * 16000]])
    engine = Engine(q3_model)
    try:
        transcript = engine.transcribe(wav, TranscribeOptions(max_tokens=160))
    finally:
        engine.close()
    segs = transcript.segments
    longest = max(s.end - s.start for s in segs)
    in_gap = [s for s in segs if s.start >= 12.3 and s.end <= 14.7]
    print(f"{len(segs)} segments, longest {longest:.1f} s, {len(in_gap)} inside the 3 s pause")
    assert segs and longest <= MAX_SEGMENT_S + 1e-6
    assert not in_gap
    assert all(a.start <= b.start for a, b in zip(segs, segs[1:]))


# -- precisions ------------------------------------------------------------------------------------


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
        errors = {"this process": rel_error(_rows(_session(m.file("encoder"), exact=False), mel), ref)}
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


# -- 4. bad inputs -----------------------------------------------------------------------------------


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
