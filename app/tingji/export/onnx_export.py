"""Encoder + adaptor and CTC head to ONNX, in fp32, fp16 or int8.

Two encoder graphs come out of one export: `encoder` with symbolic batch and
frame dimensions (CPU and CUDA run it at the audio's real length) and
`encoder_fixed`, fully static at one 60 s window, for DirectML, which
specialises its kernels to the first shape it sees. Both graphs hold the same
weights, so their large tensors are written once to a shared external-data
file instead of doubling the model's size on disk.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
import warnings
from pathlib import Path
from typing import Callable

import onnx
import torch
from onnx import numpy_helper

from ..engine.errors import ModelError
from .modules import AudioDims, CtcGraph, EncoderGraph, HalfPrecision, split_state

log = logging.getLogger(__name__)

OPSET = 18
ENCODER_INPUTS = ["lfr_feat", "mask"]
ENCODER_OUTPUTS = ["enc_output", "adaptor_output"]
CTC_INPUTS = ["enc_output", "mask"]
CTC_OUTPUTS = ["topk_log_probs", "topk_indices"]
PRECISIONS = ("fp32", "fp16", "int8")
# Tensors below this size stay inside the .onnx file; above it they go to the
# shared data file, each aligned so ONNX Runtime can memory-map it.
EXTERNAL_MIN_BYTES = 1024
ALIGN = 4096


def build_encoder(dims: AudioDims, state: dict[str, torch.Tensor]) -> EncoderGraph:
    model = EncoderGraph(dims)
    weights = {k: v.float() for k, v in split_state(state, ("audio_encoder", "audio_adaptor")).items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ModelError(f"encoder weights do not match the architecture (missing {missing[:3]}, unexpected {unexpected[:3]})")
    return model.eval()


def build_ctc(dims: AudioDims, state: dict[str, torch.Tensor], top_k: int) -> CtcGraph:
    model = CtcGraph(dims, top_k=top_k)
    weights = {k: v.float() for k, v in split_state(state, ("ctc_decoder", "ctc")).items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ModelError(f"CTC weights do not match the architecture (missing {missing[:3]}, unexpected {unexpected[:3]})")
    return model.eval()


def _export(model: torch.nn.Module, args: tuple[torch.Tensor, ...], inputs: list[str], outputs: list[str],
            dynamic: bool) -> onnx.ModelProto:
    """torch.export-based ONNX export (the dynamo path: no Python control flow leaks in)."""
    dynamic_shapes = None
    if dynamic:
        batch = torch.export.Dim("batch", min=1, max=64)
        frames = torch.export.Dim("frames", min=1, max=100_000)
        dynamic_shapes = [{0: batch, 1: frames} for _ in inputs]  # positional: wrappers rename args
    exporter_log = logging.getLogger("torch.onnx")
    level = exporter_log.level
    exporter_log.setLevel(logging.ERROR)  # "torchvision is not installed" etc. are noise here
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(tmp) / "model.onnx"
        with torch.no_grad():
            program = torch.onnx.export(
                model, args, dynamo=True, opset_version=OPSET, input_names=inputs, output_names=outputs,
                dynamic_shapes=dynamic_shapes, verbose=False, optimize=True,
            )
        program.save(str(path))
        proto = onnx.load(str(path), load_external_data=True)
    exporter_log.setLevel(level)
    if dynamic:
        _name_dims(proto, inputs + outputs)
    return proto


def _name_dims(proto: onnx.ModelProto, names: list[str]) -> None:
    """Give the symbolic dims stable names, so sessions can pin them (free dimension overrides)."""
    for value in list(proto.graph.input) + list(proto.graph.output):
        if value.name not in names:
            continue
        dims = value.type.tensor_type.shape.dim
        for i, label in ((0, "batch"), (1, "frames")):
            if len(dims) > i and not dims[i].HasField("dim_value"):
                dims[i].dim_param = label


def _to_int8(proto: onnx.ModelProto) -> onnx.ModelProto:
    """Dynamic int8 quantisation of the MatMul weights (activations quantised per call)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.onnx", Path(tmp) / "out.onnx"
        onnx.save(proto, str(src), save_as_external_data=proto.ByteSize() > 1_500_000_000, location="in.data")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(
                str(src), str(dst), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                per_channel=False, extra_options={"MatMulConstBOnly": True},
                use_external_data_format=proto.ByteSize() > 1_500_000_000,
            )
        return onnx.load(str(dst), load_external_data=True)


def _for_precision(model: torch.nn.Module, precision: str) -> torch.nn.Module:
    """fp16 graphs are exported from half-precision modules: weights in fp16, while the
    modules keep softmax and LayerNorm statistics in fp32 and the graph's I/O stays fp32."""
    return HalfPrecision(model) if precision == "fp16" else model


def save_sharing_weights(models: dict[Path, onnx.ModelProto], data_path: Path) -> None:
    """Save several graphs whose big tensors are stored once in `data_path`.

    Tensors are deduplicated by content, so graphs exported from the same
    weights share every block even if the exporter named them differently.
    """
    offsets: dict[str, tuple[int, int]] = {}
    with open(data_path, "wb") as data:
        for proto in models.values():
            for tensor in proto.graph.initializer:
                if tensor.data_location == onnx.TensorProto.EXTERNAL:
                    raise ModelError("internal: tensor still external after load")
                raw = numpy_helper.to_array(tensor).tobytes() if not tensor.HasField("raw_data") else tensor.raw_data
                if len(raw) < EXTERNAL_MIN_BYTES:
                    continue
                key = hashlib.sha256(raw).hexdigest() + f":{tensor.data_type}:{tuple(tensor.dims)}"
                if key not in offsets:
                    pad = (-data.tell()) % ALIGN
                    data.write(b"\0" * pad)
                    offsets[key] = (data.tell(), len(raw))
                    data.write(raw)
                offset, length = offsets[key]
                # Re-encode as raw + external location.
                dims, dtype, name = list(tensor.dims), tensor.data_type, tensor.name
                tensor.Clear()
                tensor.name, tensor.data_type = name, dtype
                tensor.dims.extend(dims)
                tensor.data_location = onnx.TensorProto.EXTERNAL
                for k, v in (("location", data_path.name), ("offset", str(offset)), ("length", str(length))):
                    entry = tensor.external_data.add()
                    entry.key, entry.value = k, v
    for path, proto in models.items():
        onnx.save(proto, str(path))


def export_audio(
    dims: AudioDims,
    state: dict[str, torch.Tensor],
    out_dir: Path,
    *,
    precision: str = "fp32",
    window_frames: int = 1000,
    ctc_top_k: int = 8,
    fixed: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Write encoder (+ fixed-shape twin) and CTC graphs; return {role: path}.

    Roles `encoder_data` / `ctc_data` are the external-data files the graphs
    read their weights from; the manifest hashes them like the graphs.
    """
    say = progress or (lambda _msg: None)
    out_dir.mkdir(parents=True, exist_ok=True)
    if precision not in PRECISIONS:
        raise ModelError(f"unknown precision {precision!r} (choose {', '.join(PRECISIONS)})")
    encoder = _for_precision(build_encoder(dims, state), precision)
    # Example inputs with T > 1 and B > 1 so nothing specialises on 1.
    feat = torch.randn(2, 37, dims.input_size)
    mask = torch.ones(2, 37)
    mask[1, 30:] = 0
    say("exporting encoder (dynamic shapes)")
    graphs: dict[str, onnx.ModelProto] = {"encoder": _export(encoder, (feat, mask), ENCODER_INPUTS, ENCODER_OUTPUTS, True)}
    if fixed:
        say(f"exporting encoder (fixed {window_frames} frames)")
        args = (torch.randn(1, window_frames, dims.input_size), torch.ones(1, window_frames))
        graphs["encoder_fixed"] = _export(encoder, args, ENCODER_INPUTS, ENCODER_OUTPUTS, False)
    del encoder
    if dims.has_ctc:
        say("exporting CTC head")
        ctc = _for_precision(build_ctc(dims, state, ctc_top_k), precision)
        args = (torch.randn(2, 37, dims.encoder_dim), mask)
        graphs["ctc"] = _export(ctc, args, CTC_INPUTS, CTC_OUTPUTS, True)
    if precision == "int8":
        for role in list(graphs):
            say(f"quantizing {role} to int8")
            graphs[role] = _to_int8(graphs[role])

    paths = {
        "encoder": out_dir / f"encoder.{precision}.onnx",
        "encoder_fixed": out_dir / f"encoder.{precision}.fixed{window_frames}.onnx",
        "ctc": out_dir / f"ctc.{precision}.onnx",
    }
    say("writing ONNX files")
    encoders = {paths[r]: graphs[r] for r in ("encoder", "encoder_fixed") if r in graphs}
    save_sharing_weights(encoders, out_dir / f"encoder.{precision}.data")
    written = {r: paths[r] for r in ("encoder", "encoder_fixed") if r in graphs}
    written["encoder_data"] = out_dir / f"encoder.{precision}.data"
    if "ctc" in graphs:
        save_sharing_weights({paths["ctc"]: graphs["ctc"]}, out_dir / f"ctc.{precision}.data")
        written["ctc"] = paths["ctc"]
        written["ctc_data"] = out_dir / f"ctc.{precision}.data"
    for role, path in written.items():
        if path.suffix == ".onnx":
            onnx.checker.check_model(str(path), full_check=False)
    return written
