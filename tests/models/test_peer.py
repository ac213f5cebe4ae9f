"""Peer releases (CapsWriter-Offline / Fun-ASR-GGUF layout) adopted as Tingji models.

The peer-style folders are made from our own tiny export the way peers ship
theirs: single-file ONNX graphs under the peer names, a CTC head without a mask
input (graph surgery), optionally fp16 inputs/outputs and external weights, the
GGUF renamed, and a tokens.txt whose non-speech ids carry their tag text.
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import onnx
import pytest

from tests.support.audio import write_wav
from tests.support.peer_release import (
    CTC,
    DECODER,
    ENCODER,
    bf16_reference,
    make_peer_folder,
    narrow_adaptor,
    rename_input,
    rewrite_gguf_header,
)
from tingji.engine import Engine
from tingji.engine import manifest as mf
from tingji.engine.families.fun_asr_nano.prompt import PromptPieces
from tingji.engine.families.fun_asr_nano.section import NanoDecoderInfo
from tingji.engine.frontend import FrontendConfig
from tingji.errors import Cancelled, ModelError
from tingji.models import peer, store
from tingji.models.installed import list_models, verify
from tingji.models.peer_graph import read_graph_io
from tingji.paths import models_dir


@pytest.fixture(scope="module")
def peer_dir(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_peer_folder(tiny_model, tmp_path_factory.mktemp("peer") / "Fun-ASR-Nano-GGUF")


# ---------------------------------------------------------------- the manifest


def test_peer_release_becomes_a_model_that_transcribes(peer_dir, tiny_model, speech_en, tmp_path):
    out = peer.manifest_for_peer_release(peer_dir, tmp_path / "model")
    m = mf.load_manifest(out)
    mf.verify(m)
    assert {r: e.path for r, e in m.files.items()} == {
        "encoder": ENCODER.format("fp32"),
        "ctc": CTC.format("fp32"),
        "decoder": DECODER.format("q5_k"),
        "tokens": "tokens.txt",
    }
    ours = mf.load_manifest(tiny_model)
    assert (m.window_seconds, m.window_frames) == (60, 1000)
    assert m.frontend == FrontendConfig() == ours.frontend
    # The same writer as our exporter's: the same prompt (the reference's), tokens and encoder description.
    assert (
        m.section.prompt == ours.section.prompt
        and replace(m.section.prompt, default_before="", default_after="") == PromptPieces()
    )
    assert m.section.special_tokens == ours.section.special_tokens  # read from the GGUF vocabulary
    assert m.section.encoder == replace(ours.section.encoder, precision="fp32")
    assert m.section.decoder == NanoDecoderInfo(quant="q5_k", n_embd=64, n_layer=2, input_dtype="bf16")
    ctc = m.section.ctc
    assert (ctc.vocab_size, ctc.blank_id, ctc.top_k, ctc.mask) == (2635, 2634, 8, False)
    assert ctc.text_tokens == ours.section.ctc.text_tokens and ctc.frame_seconds == 0.06
    assert m.source["kind"] == "peer-release" and m.source["folder"] == "Fun-ASR-Nano-GGUF"
    # The tags of non-speech ids are dropped: the same vocabulary file as our exporter writes.
    assert (out / "tokens.txt").read_bytes() == (tiny_model / "tokens.txt").read_bytes()

    wav = write_wav(tmp_path / "a.wav", speech_en)
    engine = Engine(out)
    assert engine.recognizer.encoder.has_ctc
    got = engine.transcribe(wav)
    engine.close()
    expected = Engine(bf16_reference(tiny_model, tmp_path / "ref")).transcribe(wav)
    assert got.text == expected.text and got.text
    assert [(s.start, s.end) for s in got.segments] == [(s.start, s.end) for s in expected.segments]
    # The DirectML shape policy (fixed buckets, dims pinned by name) also runs a peer model,
    # its mask-less CTC head at the real length.
    fixed = Engine(out, policy="fixed")
    assert fixed.transcribe(wav).text == got.text
    roles = {(role, shape[1]) for role, shape in fixed.recognizer.encoder.graphs.shapes_seen}
    assert ("encoder", 167) in roles and all(n == 167 for r, n in roles if r == "encoder")
    assert any(r == "ctc" and n < 167 for r, n in roles)


def test_fp16_graphs_external_weights_and_variant_choice(tiny_model, speech_en, tmp_path):
    src = make_peer_folder(
        tiny_model, tmp_path / "rel", encoder="fp16", ctc="fp16", decoder="fp16", fp16=True, external=True
    )
    # Less faithful variants next to them are ignored.
    shutil.copyfile(src / ENCODER.format("fp16"), src / ENCODER.format("int4"))
    shutil.copyfile(src / DECODER.format("fp16"), src / DECODER.format("q5_k"))
    out = peer.manifest_for_peer_release(src, tmp_path / "model")
    m = mf.load_manifest(out)
    mf.verify(m)
    assert m.files["encoder"].path == ENCODER.format("fp16") and m.files["decoder"].path == DECODER.format("fp16")
    assert m.files["encoder_data"].path == ENCODER.format("fp16") + ".data"
    assert m.section.encoder.input_dtype == "fp16" and m.section.ctc.input_dtype == "fp16"
    assert not (out / ENCODER.format("int4")).exists()
    engine = Engine(out)
    text = engine.transcribe(write_wav(tmp_path / "a.wav", speech_en)).text
    engine.close()
    assert isinstance(text, str) and text


def test_without_onnx_the_runtime_reads_the_graphs(peer_dir, tiny_model, tmp_path):
    """A runtime-only install (no `onnx` package) reads graph inputs/outputs with ONNX Runtime: the same answer."""
    ext = make_peer_folder(tiny_model, tmp_path / "ext", ctc=None, external=True)
    graphs = [peer_dir / ENCODER.format("fp32"), peer_dir / CTC.format("fp32"), ext / ENCODER.format("fp32")]
    for graph in graphs:
        assert read_graph_io(graph, None) == read_graph_io(graph, onnx)
    assert read_graph_io(graphs[2], None).external == (ENCODER.format("fp32") + ".data",)
    m = mf.load_manifest(peer.manifest_for_peer_release(ext, tmp_path / "c"))
    assert m.files["encoder_data"].path == ENCODER.format("fp32") + ".data" and "ctc" not in m.files
    print(f"onnx and ONNX Runtime read the same inputs, outputs and weights files of {len(graphs)} graphs")


# ---------------------------------------------------------------- refusals


def _break(kind: str, src: Path, model: Path) -> str:
    """Spoil a peer folder in one way; returns what the error message must say."""
    enc_path = src / ENCODER.format("fp32")
    if kind == "raw-audio encoder":
        onnx.save(rename_input(onnx.load(str(enc_path)), "lfr_feat", "audio"), str(enc_path))
        return "does not take LFR features"
    if kind == "other model's adaptor":
        onnx.save(narrow_adaptor(onnx.load(str(enc_path)), 32), str(enc_path))
        return "decoder width 64 does not match the adaptor output width 32"
    if kind == "not qwen3":
        dec = src / DECODER.format("q5_k")
        rewrite_gguf_header(model / "decoder.f32.gguf", dec, arch="llama")
        return "decoder architecture is llama, Tingji needs qwen3"
    if kind == "no im_start":
        rewrite_gguf_header(
            model / "decoder.f32.gguf", src / DECODER.format("q5_k"), tokens={"<|im_start|>": "<|im_begin|>"}
        )
        return "has no <|im_start|> token"
    if kind == "not gguf":
        (src / DECODER.format("q5_k")).write_bytes(b"GGUF" + os.urandom(2000))
        return "llama.cpp cannot read it"
    if kind == "ctc one output":
        path = src / CTC.format("fp32")
        head = onnx.load(str(path))
        head.graph.output.pop()
        onnx.save(head, str(path))
        return "outputs are not (top-k log-probs, top-k ids)"
    if kind == "no tokens":
        (src / "tokens.txt").unlink()
        return "needs tokens.txt, which is missing"
    if kind == "tokens with a gap":
        lines = (src / "tokens.txt").read_text().splitlines()
        (src / "tokens.txt").write_text("\n".join(lines[:5] + lines[6:]) + "\n")
        return "token ids are not 0..2634 without gaps"
    if kind == "no encoder":
        enc_path.unlink()
        return "nor a Fun-ASR-Nano release (no Fun-ASR-Nano-Encoder-Adaptor.*.onnx)"
    if kind == "broken onnx":
        enc_path.write_bytes(os.urandom(5000))
        return "not a readable ONNX model"
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind",
    [
        "raw-audio encoder",
        "other model's adaptor",
        "not qwen3",
        "no im_start",
        "not gguf",
        "ctc one output",
        "no tokens",
        "tokens with a gap",
        "no encoder",
        "broken onnx",
    ],
)
def test_mismatches_are_refused_with_what_differs(kind, tiny_model, tmp_path):
    src = make_peer_folder(tiny_model, tmp_path / "rel")
    expected = _break(kind, src, tiny_model)
    with pytest.raises(ModelError) as info:
        peer.manifest_for_peer_release(src, tmp_path / "model")
    assert expected in str(info.value)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "model").exists()


# ---------------------------------------------------------------- through the store


def test_store_import_copies_checks_and_cancels(peer_dir, home):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        store.import_folder(peer_dir, "peer-tiny", cancel=cancel)
    assert list_models() == [] and [p.name for p in models_dir().iterdir()] == []

    stages: list[str] = []
    result = store.import_folder(peer_dir, "peer-tiny", progress=lambda s, d, t, b: stages.append(s))
    assert "copying" in stages and "verifying" in stages
    m = verify("peer-tiny")
    assert m.source["kind"] == "peer-release"
    # Copies, not hard links (same file system or not): the user's folder and the model share nothing.
    for entry in m.files.values():
        if (peer_dir / entry.path).exists():
            assert not os.path.samefile(result.path / entry.path, peer_dir / entry.path), entry.path
            assert (peer_dir / entry.path).stat().st_nlink == 1
    decoder = peer_dir / DECODER.format("q5_k")
    original = decoder.read_bytes()
    decoder.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))  # the user edits their file in place
    try:
        verify("peer-tiny")  # the installed model is untouched
    finally:
        decoder.write_bytes(original)
    print(f"the import copied {len(m.files)} files; editing the source afterwards left the model intact")
    assert (
        list_models()[0].size == sum(e.size for e in m.files.values()) + (result.path / "manifest.json").stat().st_size
    )
