"""`tingji export-model`: precisions, decoder quantizations, manifest, atomicity, safety."""

from __future__ import annotations

import ast
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from tests.support.cpu_paths import AVX2, NATIVE, PATHS, PathRun, run_graphs
from tests.support.int8_checks import (
    MAX_REL_ERROR,
    MIN_GREEDY_STEP_AGREEMENT,
    common_prefix,
    ctc_agreement,
    greedy_step_agreement,
    rel_error,
)
from tests.support.paths import ROOT
from tingji.engine.decoder import open_decoder
from tingji.engine.families.fun_asr_nano.prompt import build_prompt
from tingji.engine.frontend import features
from tingji.engine.generation import DecodeOptions
from tingji.engine.manifest import load_manifest, verify
from tingji.errors import ModelError
from tingji.export import export_model
from tingji.export.lint import lint_directml
from tingji.export.onnx_tools import INT8_WEIGHT_LIMIT, check_int8_weights


@pytest.fixture(scope="module")
def int8_model(tiny_checkpoint, tmp_path_factory):
    """Exported through the command line, as a user would."""
    out = tmp_path_factory.mktemp("int8") / "tiny-int8"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tingji",
            "export-model",
            "--source",
            str(tiny_checkpoint),
            "--out",
            str(out),
            "--precision",
            "int8",
            "--decoder-quant",
            "q8_0",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out)
    return out


def _encode(model: Path, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sess = ort.InferenceSession(str(load_manifest(model).file("encoder")), providers=["CPUExecutionProvider"])
    return sess.run(None, {"lfr_feat": feats[None], "mask": np.ones((1, len(feats)), np.float32)})


def test_manifest_lists_every_file_with_its_hash(tiny_model):
    m = load_manifest(tiny_model)
    verify(m)  # sizes and SHA-256 of every listed file
    listed = {e.path for e in m.files.values()} | {"manifest.json"}
    assert listed == {p.name for p in tiny_model.iterdir()}, "unlisted or missing files"
    assert m.family == "fun-asr-nano" and m.window_seconds == 60 and m.window_frames == 1000
    assert {"encoder", "encoder_fixed", "ctc", "decoder", "tokens"} <= set(m.files)
    assert m.frontend.lfr_m == 7 and m.frontend.lfr_n == 6 and m.frontend.dither == 0
    assert m.section.special_tokens.eos_ids == (m.section.special_tokens.im_end,)
    assert m.section.prompt.default_before.startswith("<|im_start|>system\nYou are a helpful assistant.")
    assert len(m.source["model_pt_sha256"]) == 64


def test_int8_and_q8_0_export_files_and_decoder(tiny_model, int8_model):
    m = load_manifest(int8_model)
    assert m.section.encoder.precision == "int8" and m.section.decoder.quant == "q8_0"
    assert m.extra["exporter"]["int8_weight_limit"] == INT8_WEIGHT_LIMIT  # benchmarks rebuild exports without it
    assert (int8_model / "encoder.int8.data").stat().st_size < 0.5 * (tiny_model / "encoder.fp32.data").stat().st_size
    for role, static in (("encoder", False), ("encoder_fixed", True), ("ctc", False)):
        assert lint_directml(m.file(role), require_static=static) == []
        check_int8_weights(onnx.load(str(m.file(role))))  # 7-bit weights: no CPU's int8 kernel overflows
    # The q8_0 decoder agrees with the f32 one on most greedy steps.
    p = build_prompt(m.section.prompt)
    rows = np.random.default_rng(2).standard_normal((20, m.section.decoder.n_embd)).astype(np.float32)
    f32 = open_decoder(load_manifest(tiny_model).file("decoder"), eos_ids=[], exact=True)
    q8 = open_decoder(m.file("decoder"), eos_ids=[], exact=True)
    ids = f32.tokenize(p.before), f32.tokenize(p.after)
    a = f32.forward_logits(ids[0], rows, ids[1], [])[0]
    b = q8.forward_logits(ids[0], rows, ids[1], [])[0]
    print(f"q8_0 first-step logits vs f32: max abs {np.abs(a - b).max():.3f} of range {np.abs(a).max():.1f}")
    assert np.argmax(a) == np.argmax(b)
    assert np.abs(a - b).max() < 0.05 * np.abs(a).max()


@pytest.fixture(scope="module")
def speech_feeds(speech_en, speech_zh) -> dict[str, dict[str, np.ndarray]]:
    feeds = {}
    for name, wav in (("en", speech_en), ("zh", speech_zh)):
        feats = features(wav)
        feeds[name] = {"lfr_feat": feats[None], "mask": np.ones((1, len(feats)), np.float32)}
    return feeds


@pytest.fixture(scope="module")
def fp32_audio(tiny_model, speech_feeds) -> PathRun:
    """The fp32 encoder and CTC head on this CPU (fp32 does not depend on the int8 kernel path)."""
    m = load_manifest(tiny_model)
    return run_graphs(NATIVE, [m.file("encoder"), m.file("ctc")], list(speech_feeds.values()))


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_int8_encoder_ctc_and_llm_tokens_match_fp32_on_every_cpu_path(
    tiny_model, int8_model, speech_feeds, fp32_audio, path
):
    """The int8 encoder + CTC on this CPU's own kernels and on AVX2 without VNNI (qemu): the same
    bounds on both, checked on speech through to the CTC path and the LLM's greedy tokens (issue 18)."""
    run = run_graphs(path, [load_manifest(int8_model).file(r) for r in ("encoder", "ctc")], list(speech_feeds.values()))
    ref_model = load_manifest(tiny_model)
    blank = ref_model.section.ctc.blank_id
    dec = open_decoder(ref_model.file("decoder"), eos_ids=[], exact=True)  # one decoder: only the encoder differs
    p = build_prompt(ref_model.section.prompt)
    before, after = dec.tokenize(p.before), dec.tokenize(p.after)
    greedy = DecodeOptions(max_tokens=24, ignore_eos=True, guard=False)
    for name, (enc8, ctc8), (enc32, ctc32) in zip(speech_feeds, run.outputs, fp32_audio.outputs):
        err = rel_error(enc8["adaptor_output"], enc32["adaptor_output"])
        enc_err = rel_error(enc8["enc_output"], enc32["enc_output"])
        ctc = ctc_agreement(ctc8["topk_indices"][0, :, 0], ctc32["topk_indices"][0, :, 0], blank)
        rows8, rows32 = enc8["adaptor_output"][0], enc32["adaptor_output"][0]
        tokens = dec.generate(before, rows32, after, greedy).tokens
        steps = greedy_step_agreement(dec.forward_logits(before, rows8, after, tokens[:-1]), tokens)
        same = common_prefix(dec.generate(before, rows8, after, greedy).tokens, tokens)
        print(
            f"{path.name} ({run.kernel}), {name}: int8 adaptor error {err:.3f}, encoder {enc_err:.3f}; {ctc}; "
            f"LLM greedy steps agree {steps:.0%} (free-running: first {same}/{len(tokens)} tokens equal)"
        )
        assert err < MAX_REL_ERROR and enc_err < MAX_REL_ERROR
        assert ctc.ok(), str(ctc)
        assert steps >= MIN_GREEDY_STEP_AGREEMENT


def test_full_range_int8_weights_overflow_on_the_avx2_path_and_are_refused(
    tiny_model, speech_feeds, fp32_audio, tmp_path
):
    """What issue 18 saw: full-range int8 weights are fine on VNNI but saturate on AVX2. The emulated
    path reproduces it (so the test above can fail), and the exporter's own check refuses such weights."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src = load_manifest(tiny_model).file("encoder")
    full_range = tmp_path / "full-range.onnx"
    quantize_dynamic(
        str(src),
        str(full_range),
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul"],
        extra_options={"MatMulConstBOnly": True},
        use_external_data_format=True,
    )
    run = run_graphs(AVX2, [full_range], [speech_feeds["en"]])
    err = rel_error(run.outputs[0][0]["adaptor_output"], fp32_audio.outputs[0][0]["adaptor_output"])
    print(f"full-range int8 weights on {run.kernel}: adaptor error {err:.3f} (bound {MAX_REL_ERROR})")
    assert err > MAX_REL_ERROR
    with pytest.raises(ModelError, match="CPUs without VNNI would saturate"):
        check_int8_weights(onnx.load(str(full_range)))


def test_fp16_encoder_and_q5_k_decoder(tiny_checkpoint, tiny_model, speech_en, tmp_path):
    out = export_model(tiny_checkpoint, tmp_path / "fp16", precision="fp16", decoder_quant="q5_k", fixed=False)
    m = load_manifest(out)
    assert "encoder_fixed" not in m.files and m.file("decoder").name == "decoder.q5_k.gguf"
    feats = features(speech_en)
    _, ada32 = _encode(tiny_model, feats)
    _, ada16 = _encode(out, feats)
    rel = float(np.abs(ada16 - ada32).max() / np.abs(ada32).max())
    print(f"fp16 adaptor output vs fp32: max relative error {rel:.4f}")
    assert rel < 0.02
    dec = open_decoder(m.file("decoder"), eos_ids=[])
    p = build_prompt(m.section.prompt)
    r = dec.generate(dec.tokenize(p.before), ada16[0, :10], dec.tokenize(p.after), DecodeOptions(max_tokens=8))
    assert len(r.tokens) > 0


def test_export_refuses_a_non_empty_target_and_leaves_nothing_on_failure(tiny_checkpoint, tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    with pytest.raises(ModelError, match="not empty"):
        export_model(tiny_checkpoint, target)
    assert [p.name for p in target.iterdir()] == ["keep.txt"]
    broken = tmp_path / "broken-ckpt"
    broken.mkdir()
    for item in tiny_checkpoint.iterdir():
        if item.name != "model.pt":
            os.symlink(item, broken / item.name)
    (broken / "model.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ModelError, match="model.pt"):
        export_model(broken, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.partial")]


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/tingji-pwned",))


def test_checkpoint_loading_never_runs_pickled_code(tiny_checkpoint, tmp_path):
    """model.pt is read with weights_only=True: a pickle with a code payload is refused, not executed."""
    evil = tmp_path / "evil"
    evil.mkdir()
    for item in tiny_checkpoint.iterdir():
        if item.name != "model.pt":
            os.symlink(item, evil / item.name)
    with open(evil / "model.pt", "wb") as fh:
        pickle.dump({"audio_encoder.x": _Evil()}, fh)
    marker = Path("/tmp/tingji-pwned")
    marker.unlink(missing_ok=True)
    with pytest.raises(ModelError):
        export_model(evil, tmp_path / "out")
    assert not marker.exists()


def test_export_model_cli_errors_are_one_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tingji",
            "export-model",
            "--source",
            str(tmp_path / "nothing"),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("tingji:")]
    assert len(errors) == 1 and "checkpoint folder not found" in errors[0] and "nothing" in errors[0]


# Python's own answer to `import torch` when torch is not installed, for every module of
# the export extra would be the same: ModuleNotFoundError naming the module.
WITHOUT_TORCH = """
import sys

class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoTorch())
from tingji.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_export_model_cli_without_torch_names_what_no_template_covers(tiny_checkpoint, tmp_path):
    """Without torch, a checkpoint of a configuration the app ships no template for (the tiny one) is one
    coded line naming the settings that differ from the nearest template (issue 44), and leaves nothing."""
    out = tmp_path / "models" / "tiny"
    out.parent.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    r = subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH, "export-model", "--source", str(tiny_checkpoint), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("tingji:")]
    assert len(errors) == 1 and r.stderr.rstrip().endswith(errors[0])
    assert errors[0].startswith("tingji: no graph template for this fun-asr-nano checkpoint's encoder")
    assert "encoder_dim 64 (the app's template has 512)" in errors[0]
    assert not out.exists() and list(out.parent.iterdir()) == []  # no model folder, no partial one
    print(errors[0])


def test_missing_extra_check_counts_only_the_extras_modules():
    from tingji.export import messages
    from tingji.export.extra import needs_export_extra

    with pytest.raises(
        ModelError,
        match=r"^converting the official checkpoint needs the export extra "
        r"\(onnxscript is missing\): pip install",
    ) as error:
        with needs_export_extra(messages.EXTRA_FOR_CONVERSION):
            raise ModuleNotFoundError("No module named 'onnxscript.optimizer'", name="onnxscript.optimizer")
    assert error.value.code == "export.extra_missing_conversion" and error.value.fields["module"] == "onnxscript"
    # a broken install or a bug (onnx, gguf and yaml are the app's own dependencies): not the extra's to fix
    for other in ("numpy", "onnx", "gguf", "tingji.export.gone", None):
        with pytest.raises(ModuleNotFoundError) as info:
            with needs_export_extra(messages.EXTRA_FOR_EXPORT):
                raise ModuleNotFoundError("No module", name=other)
        assert info.value.name == other


def _dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_export_extra_modules_match_pyproject():
    """EXTRA_MODULES names exactly the [export] extra's packages, and the exporter imports
    nothing third-party that is in neither that extra nor the base dependencies."""
    import importlib.metadata

    import tomllib

    from tingji.export.extra import EXTRA_MODULES

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirement = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
    extra = {_dist(requirement.match(r).group(1)) for r in project["optional-dependencies"]["export"]}
    base = {_dist(requirement.match(r).group(1)) for r in project["dependencies"]}
    providers = {
        module: {_dist(d) for d in dists} for module, dists in importlib.metadata.packages_distributions().items()
    }
    for module in EXTRA_MODULES:
        assert providers.get(module, set()) & extra, f"{module} is not installed by the export extra"
    for dist in extra:
        assert any(dist in providers.get(m, set()) for m in EXTRA_MODULES), f"no module of {dist} in EXTRA_MODULES"
    imported = set()
    for path in (ROOT / "app" / "tingji" / "export").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = sorted(m for m in imported if m not in sys.stdlib_module_names and m != "tingji")
    for module in third_party:
        assert module in EXTRA_MODULES or providers.get(module, set()) & base, (
            f"tingji.export imports {module}, which neither the export extra nor the dependencies install"
        )
    print(f"export extra {sorted(EXTRA_MODULES)}; the exporter imports {third_party}")


def test_export_model_cli_recognises_the_family_or_takes_it(tiny_checkpoint, tiny_model, tmp_path, capsys):
    """Without --family the checkpoint's config decides; with it the same model comes out; a wrong one is one line.

    The model made without --family is the session's `tiny_model` (export_model with family=None, which is all the
    command passes on without the option; the SenseVoice and Paraformer export tests run the command so), made with
    the options given here: one export in this test, not two.
    """
    from tingji.cli import main

    base = ["export-model", "--source", str(tiny_checkpoint), "--decoder-quant", "f32"]
    assert main([*base, "--out", str(tmp_path / "told"), "--family", "fun-asr-nano"]) == 0
    auto, told = load_manifest(tiny_model), load_manifest(tmp_path / "told")
    assert auto.family == told.family == "fun-asr-nano"
    assert {r: e.sha256 for r, e in auto.files.items()} == {r: e.sha256 for r, e in told.files.items()}
    capsys.readouterr()
    assert main([*base, "--out", str(tmp_path / "wrong"), "--family", "whisper-large"]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    print(f"recognised {auto.family}; a wrong --family: {errors}")
    assert len(errors) == 1 and "unknown model family 'whisper-large'" in errors[0]
    assert not (tmp_path / "wrong").exists()


def test_tiny_checkpoint_is_deterministic(tmp_path):
    from make_tiny_checkpoint import make_checkpoint

    a = make_checkpoint(tmp_path / "a", seed=3)
    b = make_checkpoint(tmp_path / "b", seed=3)
    c = make_checkpoint(tmp_path / "c", seed=4)
    for name in ("model.pt", "config.yaml", "multilingual.tiktoken", "Qwen3-0.6B/tokenizer.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "model.pt").read_bytes() != (c / "model.pt").read_bytes()
    cfg = json.loads((a / "Qwen3-0.6B" / "config.json").read_text())
    assert cfg["model_type"] == "qwen3" and cfg["tie_word_embeddings"] is True
