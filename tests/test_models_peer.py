"""Peer releases (CapsWriter-Offline / Fun-ASR-GGUF layout) adopted as Tingji models.

The peer-style folders are made from our own tiny export the way peers ship
theirs: single-file ONNX graphs under the peer names, a CTC head without a mask
input (graph surgery), optionally fp16 inputs/outputs and external weights, the
GGUF renamed, and a tokens.txt whose non-speech ids carry their tag text.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import threading
from pathlib import Path

import gguf
import onnx
import pytest
from onnx import TensorProto, helper

from audio_fixtures import write_wav
from tingji.engine import Engine
from tingji.engine import manifest as mf
from tingji.engine.errors import Cancelled, ModelError
from tingji.engine.frontend import FrontendConfig
from tingji.engine.families.fun_asr_nano.prompt import DEFAULT_PIECES
from tingji.models import peer, store
from tingji.models.installed import list_models, verify
from tingji.models.peer_graph import read_graph_io
from tingji.paths import models_dir

ENCODER = "Fun-ASR-Nano-Encoder-Adaptor.{}.onnx"
CTC = "Fun-ASR-Nano-CTC.{}.onnx"
DECODER = "Fun-ASR-Nano-Decoder.{}.gguf"


# ---------------------------------------------------------------- building peer-style folders


def _replace_input(graph: onnx.GraphProto, old: str, new: str) -> None:
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name == old:
                node.input[i] = new


def fp16_io(model: onnx.ModelProto) -> onnx.ModelProto:
    """Make every float graph input and output float16, with Casts at the edges (as peers' fp16 files are)."""
    g = model.graph
    casts_in, casts_out = [], []
    for value in g.input:
        t = value.type.tensor_type
        if t.elem_type == TensorProto.FLOAT:
            inner = value.name + "__f32"
            _replace_input(g, value.name, inner)
            casts_in.append(helper.make_node("Cast", [value.name], [inner], to=TensorProto.FLOAT))
            t.elem_type = TensorProto.FLOAT16
    for value in g.output:
        t = value.type.tensor_type
        if t.elem_type == TensorProto.FLOAT:
            inner = value.name + "__f32"
            for node in g.node:
                for i, name in enumerate(node.output):
                    if name == value.name:
                        node.output[i] = inner
            _replace_input(g, value.name, inner)
            casts_out.append(helper.make_node("Cast", [inner], [value.name], to=TensorProto.FLOAT16))
            t.elem_type = TensorProto.FLOAT16
    for node in reversed(casts_in):
        g.node.insert(0, node)
    g.node.extend(casts_out)
    return model


def drop_mask(model: onnx.ModelProto) -> onnx.ModelProto:
    """The CTC head without its `mask` input: an all-ones mask is made inside from enc_output's shape."""
    g = model.graph
    g.input.remove(next(v for v in g.input if v.name == "mask"))
    ones = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    for node in reversed([helper.make_node("Shape", ["enc_output"], ["peer_mask_shape"], start=0, end=2),
                          helper.make_node("ConstantOfShape", ["peer_mask_shape"], ["mask"], value=ones)]):
        g.node.insert(0, node)
    return model


def narrow_adaptor(model: onnx.ModelProto, width: int) -> onnx.ModelProto:
    """adaptor_output cut to `width` columns: an encoder from some other model."""
    g = model.graph
    producer = next(n for n in g.node if "adaptor_output" in n.output)
    producer.output[list(producer.output).index("adaptor_output")] = "adaptor_full"
    consts = [helper.make_tensor(n, TensorProto.INT64, [1], [v]) for n, v in
              (("s0", 0), ("s1", width), ("s2", -1))]
    g.initializer.extend(consts)
    g.node.append(helper.make_node("Slice", ["adaptor_full", "s0", "s1", "s2"], ["adaptor_output"]))
    out = next(v for v in g.output if v.name == "adaptor_output")
    out.type.tensor_type.shape.dim[2].dim_value = width
    return model


def rename_input(model: onnx.ModelProto, old: str, new: str) -> onnx.ModelProto:
    value = next(v for v in model.graph.input if v.name == old)
    value.name = new
    _replace_input(model.graph, old, new)
    return model


def rewrite_gguf_header(src: Path, dst: Path, arch: str = "qwen3", tokens: dict[str, str] | None = None) -> Path:
    """A metadata-only copy of a GGUF with another architecture name or renamed tokens."""
    reader = gguf.GGUFReader(src)
    writer = gguf.GGUFWriter(str(dst), arch)
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        value = field.contents()
        if name == "tokenizer.ggml.tokens":
            value = [(tokens or {}).get(t, t) for t in value]
        sub = field.types[1] if len(field.types) > 1 else None
        writer.add_key_value(name.replace("qwen3.", arch + ".", 1), value, field.types[0], sub_type=sub)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return dst


def peer_tokens(model: Path, dst: Path) -> Path:
    """Our tokens.txt the peer way: the non-speech ids carry tags, the last one is <blk>."""
    lines = (model / "tokens.txt").read_text(encoding="ascii").split("\n")
    lines = [line for line in lines if line.strip()]
    out = []
    for i, line in enumerate(lines):
        parts = line.split()
        if len(parts) == 1:  # an id without text in our file
            tag = "<blk>" if i == len(lines) - 1 else f"<|SPECIAL_TOKEN_{i}|>"
            line = f"{base64.b64encode(tag.encode()).decode()} {i}"
        out.append(line)
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")
    return dst


def make_peer_folder(model: Path, dest: Path, *, encoder: str = "fp32", ctc: str | None = "fp32",
                     decoder: str = "q5_k", fp16: bool = False, external: bool = False) -> Path:
    """A CapsWriter-style release folder holding the tiny model's graphs and decoder."""
    dest.mkdir(parents=True)
    enc = onnx.load(str(model / "encoder.fp32.onnx"))
    if fp16:
        enc = fp16_io(enc)
    enc_name = ENCODER.format(encoder)
    if external:
        onnx.save(enc, str(dest / enc_name), save_as_external_data=True, location=enc_name + ".data")
    else:
        onnx.save(enc, str(dest / enc_name))
    if ctc is not None:
        head = drop_mask(onnx.load(str(model / "ctc.fp32.onnx")))
        onnx.checker.check_model(head)
        onnx.save(fp16_io(head) if fp16 else head, str(dest / CTC.format(ctc)))
        peer_tokens(model, dest / "tokens.txt")
    shutil.copyfile(model / "decoder.f32.gguf", dest / DECODER.format(decoder))
    return dest


@pytest.fixture(scope="module")
def peer_dir(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_peer_folder(tiny_model, tmp_path_factory.mktemp("peer") / "Fun-ASR-Nano-GGUF")


def bf16_reference(tiny_model: Path, dest: Path) -> Path:
    """The tiny model, told to round its audio rows to bf16 as a peer model (official family) is."""
    shutil.copytree(tiny_model, dest)
    data = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    data["fun-asr-nano"]["decoder"]["input_dtype"] = "bf16"
    (dest / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    return dest


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("TINGJI_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


# ---------------------------------------------------------------- the manifest


def test_peer_release_becomes_a_model_that_transcribes(peer_dir, tiny_model, speech_en, tmp_path):
    out = peer.manifest_for_peer_release(peer_dir, tmp_path / "model")
    m = mf.load_manifest(out)
    mf.verify(m)
    assert {r: e.path for r, e in m.files.items()} == {
        "encoder": ENCODER.format("fp32"), "ctc": CTC.format("fp32"), "decoder": DECODER.format("q5_k"),
        "tokens": "tokens.txt"}
    ours = mf.load_manifest(tiny_model)
    assert (m.window_seconds, m.window_frames) == (60, 1000)
    assert m.frontend == FrontendConfig().to_dict() == ours.frontend
    assert m.section["prompt"] == ours.section["prompt"] and all(m.section["prompt"][k] == v for k, v in DEFAULT_PIECES.items())
    assert m.section["special_tokens"] == ours.section["special_tokens"]  # read from the GGUF vocabulary
    assert m.section["encoder"] == {**ours.section["encoder"], "input_dtype": "fp32", "dim_names": ["batch", "frames"]}
    assert m.section["decoder"] == {"quant": "q5_k", "n_embd": 64, "n_layer": 2, "input_dtype": "bf16"}
    ctc = m.section["ctc"]
    assert (ctc["vocab_size"], ctc["blank_id"], ctc["top_k"], ctc["mask"]) == (2635, 2634, 8, False)
    assert ctc["text_tokens"] == ours.section["ctc"]["text_tokens"] and ctc["frame_seconds"] == 0.06
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
    src = make_peer_folder(tiny_model, tmp_path / "rel", encoder="fp16", ctc="fp16", decoder="fp16",
                           fp16=True, external=True)
    # Less faithful variants next to them are ignored.
    shutil.copyfile(src / ENCODER.format("fp16"), src / ENCODER.format("int4"))
    shutil.copyfile(src / DECODER.format("fp16"), src / DECODER.format("q5_k"))
    out = peer.manifest_for_peer_release(src, tmp_path / "model")
    m = mf.load_manifest(out)
    mf.verify(m)
    assert m.files["encoder"].path == ENCODER.format("fp16") and m.files["decoder"].path == DECODER.format("fp16")
    assert m.files["encoder_data"].path == ENCODER.format("fp16") + ".data"
    assert m.section["encoder"]["input_dtype"] == "fp16" and m.section["ctc"]["input_dtype"] == "fp16"
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
        rewrite_gguf_header(model / "decoder.f32.gguf", src / DECODER.format("q5_k"),
                            tokens={"<|im_start|>": "<|im_begin|>"})
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


@pytest.mark.parametrize("kind", ["raw-audio encoder", "other model's adaptor", "not qwen3", "no im_start",
                                  "not gguf", "ctc one output", "no tokens", "tokens with a gap", "no encoder",
                                  "broken onnx"])
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
    assert list_models()[0].size == sum(e.size for e in m.files.values()) + \
        (result.path / "manifest.json").stat().st_size
