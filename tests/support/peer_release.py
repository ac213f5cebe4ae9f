"""Peer-style releases (CapsWriter-Offline / Fun-ASR-GGUF layout), built from our own tiny export as peers ship
theirs."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import gguf
import onnx
from onnx import TensorProto, helper

ENCODER = "Fun-ASR-Nano-Encoder-Adaptor.{}.onnx"
CTC = "Fun-ASR-Nano-CTC.{}.onnx"
DECODER = "Fun-ASR-Nano-Decoder.{}.gguf"


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
    for node in reversed(
        [
            helper.make_node("Shape", ["enc_output"], ["peer_mask_shape"], start=0, end=2),
            helper.make_node("ConstantOfShape", ["peer_mask_shape"], ["mask"], value=ones),
        ]
    ):
        g.node.insert(0, node)
    return model


def narrow_adaptor(model: onnx.ModelProto, width: int) -> onnx.ModelProto:
    """adaptor_output cut to `width` columns: an encoder from some other model."""
    g = model.graph
    producer = next(n for n in g.node if "adaptor_output" in n.output)
    producer.output[list(producer.output).index("adaptor_output")] = "adaptor_full"
    consts = [helper.make_tensor(n, TensorProto.INT64, [1], [v]) for n, v in (("s0", 0), ("s1", width), ("s2", -1))]
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


def make_peer_folder(
    model: Path,
    dest: Path,
    *,
    encoder: str = "fp32",
    ctc: str | None = "fp32",
    decoder: str = "q5_k",
    fp16: bool = False,
    external: bool = False,
) -> Path:
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


def bf16_reference(tiny_model: Path, dest: Path) -> Path:
    """The tiny model, told to round its audio rows to bf16 as a peer model (official family) is."""
    shutil.copytree(tiny_model, dest)
    data = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    data["fun-asr-nano"]["decoder"]["input_dtype"] = "bf16"
    (dest / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    return dest
