"""Issue 44 proof 1: converting without torch gives the torch exporter's files, byte for byte.

For each family, variant, precision and decoder quantisation, the tiny random checkpoint is
converted twice: with torch while recording graph templates (`export.templates.recording`),
and again in a process where `import torch` fails, from those templates. The two model
folders must have equal manifests but for the exporter field - the manifest holds every
file's SHA-256, so every graph, weight file, GGUF and token list is identical - and the
model must transcribe the family's test clip to the same text from both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tingji.engine.manifest import load_manifest
from tingji.export import export_model, templates

ROOT = Path(__file__).resolve().parents[2]

# The conversion without torch: `import torch` raises ImportError for the whole process.
CONVERT = """
import json, sys
sys.modules["torch"] = None
from tingji.export import export_model
export_model(sys.argv[1], sys.argv[2], precision=sys.argv[3], decoder_quant=sys.argv[4])
loaded = sorted(m for m, v in sys.modules.items() if (m == "torch" or m.startswith("torch.")) and v is not None)
print(json.dumps({"torch_modules": loaded}))
"""

# family case -> (checkpoint fixture, [(precision, decoder quantisation), ...]): every precision and
# every quantisation the catalog offers appears at least once (a family without an LLM ignores the
# quantisation).
CASES = {
    "fun-asr-nano": ("tiny_checkpoint", [("fp32", "f32"), ("fp16", "f16"), ("int8", "q8_0"), ("int8", "q5_k")]),
    "fun-asr-nano-no-ctc": ("tiny_checkpoint_no_ctc", [("fp32", "f16")]),
    "sense-voice-small": ("sv_checkpoint", [("fp32", "f16"), ("fp16", "f16"), ("int8", "f16")]),
    "qwen3-asr": ("q3_checkpoint", [("fp32", "f32"), ("fp16", "f16"), ("int8", "q8_0"), ("int8", "q5_k")]),
    "paraformer-bicif": ("pf_checkpoint", [("fp32", "f16"), ("fp16", "f16"), ("int8", "f16")]),
    "paraformer-plain": ("pf_plain_checkpoint", [("fp32", "f16"), ("int8", "f16")]),
    "ct-punc": ("punc_checkpoint", [("fp32", "f16"), ("int8", "f16")]),
    "campplus": ("speaker_checkpoint", [("fp32", "f16"), ("int8", "f16")]),
}


def convert_without_torch(checkpoint: Path, out: Path, precision: str, quant: str, template_dir: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "app"),
        templates.ENV_FOLDERS: str(template_dir),
        templates.ENV_SOURCE: "templates",
    }
    done = subprocess.run(
        [sys.executable, "-c", CONVERT, str(checkpoint), str(out), precision, quant],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["torch_modules"] == [], f"torch was imported: {report['torch_modules'][:5]}"


def comparable(folder: Path) -> dict:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("exporter", None)
    manifest.get("extra", {}).pop("exporter", None)
    return manifest


@pytest.fixture(scope="session")
def tiny_checkpoint_no_ctc(tiny_checkpoint: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny Nano checkpoint as Hugging Face ships Fun-ASR-Nano: no CTC tensors in model.pt."""
    import shutil

    import torch

    folder = tmp_path_factory.mktemp("nano-no-ctc") / "Fun-ASR-Nano-tiny"
    shutil.copytree(tiny_checkpoint, folder)
    state = torch.load(folder / "model.pt", weights_only=True)
    state = {k: v for k, v in state.items() if not k.startswith(("ctc.", "ctc_decoder."))}
    torch.save(state, folder / "model.pt")
    return folder


def _groups() -> list[tuple[str, str]]:
    """(case, "fp16" or "fp32") for each case: the fp16 conversions apart from the others, which share
    their fp32 graphs (int8 is quantised from them), so xdist's workers can take the two at once."""
    out = []
    for case, (_, choices) in sorted(CASES.items()):
        out += [(case, made) for made in ("fp32", "fp16") if any((p == "fp16") == (made == "fp16") for p, _ in choices)]
    return out


@pytest.mark.timeout(1800)  # a busy 2-core machine: up to 9 tiny torch exports and 3 conversions
@pytest.mark.parametrize(("case", "made"), _groups(), ids=[f"{c}-{m}" for c, m in _groups()])
def test_conversion_without_torch_gives_the_torch_exporters_files(
    case: str, made: str, request: pytest.FixtureRequest, tmp_path: Path, speech_en: np.ndarray
) -> None:
    fixture, all_choices = CASES[case]
    choices = [(p, q) for p, q in all_choices if (p == "fp16") == (made == "fp16")]
    checkpoint: Path = request.getfixturevalue(fixture)
    template_dir = tmp_path / "templates"
    identical = 0
    with templates.recording(template_dir):  # one recording: the int8 conversions reuse the checked fp32 graphs
        for precision, quant in choices:
            with_torch, without = tmp_path / f"torch-{precision}-{quant}", tmp_path / f"numpy-{precision}-{quant}"
            export_model(checkpoint, with_torch, precision=precision, decoder_quant=quant)
            convert_without_torch(checkpoint, without, precision, quant, template_dir)
            a, b = comparable(with_torch), comparable(without)
            assert a == b
            identical += len(a["files"])
    manifest = load_manifest(with_torch)
    print(f"\n{case} ({made}): {len(choices)} conversions, {identical} files, all byte-identical without torch")
    assert identical >= 3 * len(choices)
    assert manifest.family == json.loads((without / "manifest.json").read_text())["family"]
    _same_transcript(with_torch, without, speech_en)


def _same_transcript(a: Path, b: Path, clip: np.ndarray) -> None:
    """What the model does - a transcript, punctuated text or a voice print - is the same from both."""
    family = load_manifest(a).family
    if family == "ct-punc":
        from tingji.engine.punctuation import Punctuator

        outs = []
        for folder in (a, b):
            punctuator = Punctuator(folder)
            outs.append(punctuator.punctuate("今天天气很好我们一起去学校吧你说好不好"))
        assert outs[0] == outs[1]
        return
    if family == "campplus":
        from tingji.engine.speakers.model import SpeakerModel

        prints = [SpeakerModel(folder, provider="cpu").embed([clip[: 16000 * 3 // 2]]) for folder in (a, b)]
        assert np.array_equal(prints[0], prints[1])
        return
    from tingji.engine import Engine

    texts = []
    for folder in (a, b):
        engine = Engine(folder, "cpu")
        try:
            texts.append(engine.transcribe(clip).text)
        finally:
            engine.close()
    assert texts[0] == texts[1]
