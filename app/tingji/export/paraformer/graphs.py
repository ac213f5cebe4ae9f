"""Paraformer's ONNX graphs: encoder + CIF weights, decoder over token slots, the BiCIF timestamp head.

Roles (manifest file roles, file names):

    encoder           encoder.<p>.onnx                  speech [B,T,560], mask [B,T] -> enc [B,T,D], alphas [B,T]
    encoder_fixed     encoder.<p>.fixed<W>.onnx          the same at T = W (the window), fully static
    decoder           decoder.<p>.onnx                  enc, mask, acoustic [B,N,D], slot_mask [B,N]
                                                        -> log_probs [B,N], ids [B,N] (the best token per slot)
    decoder_fixed     decoder.<p>.fixed<W>x<W+1>.onnx    the same at T = W, N = W + 1 slots, fully static
    timestamp         timestamp.<h>.onnx                enc [1,T,D] -> weights [1, 3T] (BiCIF only; CPU only,
                                                        always the real length: its backward LSTM must not
                                                        start in padding); <h> is int8 (the LSTM's weights)
                                                        in an int8 export, fp32 otherwise
    encoder_data, decoder_data, timestamp_data          each group's weights, stored once

The decoder's symbolic slot axis is named "tokens", so a session can pin
it (free dimension override) to a slot bucket as it pins "frames".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path

import numpy as np
import onnx

from ...engine.families.kit import declared
from ..onnx_tools import BATCH_FRAMES, OPSET, int8_ops, save_graph_files, to_int8
from ..templates import GraphKey, make_graph
from ..torch_state import split_state
from .dims import ParaformerDims

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
ENCODER_INPUTS, ENCODER_OUTPUTS = ["speech", "mask"], ["enc", "alphas"]
DECODER_INPUTS, DECODER_OUTPUTS = ["enc", "mask", "acoustic", "slot_mask"], ["log_probs", "ids"]
TIMESTAMP_INPUTS, TIMESTAMP_OUTPUTS = ["enc"], ["weights"]
SLOTS = {0: "batch", 1: "tokens"}
# Each graph's checkpoint tensors, by their top-level module.
PARTS = {"encoder": ("encoder", "predictor"), "decoder": ("decoder",), "timestamp": ("predictor",)}
Weights = Mapping[str, np.ndarray]


def _name_output_axis(proto: onnx.ModelProto, axis: int, label: str) -> None:
    """Label a symbolic output axis that is not `frames` (the exporter's default for axis 1)."""
    for value in proto.graph.output:
        dims = value.type.tensor_type.shape.dim
        if len(dims) > axis and not dims[axis].HasField("dim_value"):
            dims[axis].dim_param = label


def encoder_graph(dims: ParaformerDims, precision: str, frames: int | None) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of encoder + CIF weights: symbolic batch and frames, or fixed at `frames` (one row)."""

    def build(weights: Weights) -> onnx.ModelProto:
        from ..torch_export import export_graph, for_precision, frame_examples, to_torch
        from .modules import EncoderGraph

        model = EncoderGraph(dims)
        model.load_state_dict(to_torch(weights), strict=True)
        model = for_precision(model.eval(), precision)
        dynamic = None if frames is not None else [BATCH_FRAMES, BATCH_FRAMES]
        return export_graph(model, frame_examples(dims.input_size, frames), ENCODER_INPUTS, ENCODER_OUTPUTS, dynamic)

    return build


def decoder_graph(dims: ParaformerDims, precision: str, frames: int | None) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of the decoder: symbolic batch, frames and slots, or fixed at `frames` and
    `frames + 1` slots (one row). In fp16 its weights are fp16 and its inputs cast inside the graph."""

    def build(weights: Weights) -> onnx.ModelProto:
        import torch

        from ..torch_export import export_graph, to_torch
        from .modules import DecoderGraph

        model = DecoderGraph(dims)
        model.load_state_dict(to_torch(weights), strict=True)
        model.eval()
        if precision == "fp16":
            model.decoder.half()
        d = dims.encoder_dim
        if frames is not None:
            args = (
                torch.randn(1, frames, d),
                torch.ones(1, frames),
                torch.randn(1, frames + 1, d),
                torch.ones(1, frames + 1),
            )
            return export_graph(model, args, DECODER_INPUTS, DECODER_OUTPUTS, None)
        # Examples with T, N > 1, B > 1 and N != T, so nothing specialises on them.
        mask = torch.ones(2, 37)
        mask[1, 30:] = 0
        slots = torch.ones(2, 11)
        slots[1, 7:] = 0
        args = (torch.randn(2, 37, d), mask, torch.randn(2, 11, d), slots)
        proto = export_graph(model, args, DECODER_INPUTS, DECODER_OUTPUTS, [BATCH_FRAMES, BATCH_FRAMES, SLOTS, SLOTS])
        _name_output_axis(proto, 1, "tokens")
        return proto

    return build


def timestamp_graph(dims: ParaformerDims) -> Callable[[Weights], onnx.ModelProto]:
    """The timestamp head (fp32) through torch's TorchScript exporter.

    Both exporters give the same graph (one ONNX LSTM node, no loop), but the
    torch.export path spends ~50 s tracing a one-layer LSTM even at test
    sizes, where this takes about one. The head runs on the CPU only, so the
    DirectML rules the rest of the export follows do not apply to it.
    """

    def build(weights: Weights) -> onnx.ModelProto:
        import io
        import warnings

        import torch

        from ..torch_export import to_torch
        from .modules import TimestampGraph

        head = TimestampGraph(dims)
        head.load_state_dict(to_torch(weights), strict=True)
        head.eval()
        buf = io.BytesIO()
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                head,
                (torch.randn(1, 37, dims.encoder_dim),),
                buf,
                dynamo=False,
                opset_version=OPSET,
                input_names=TIMESTAMP_INPUTS,
                output_names=TIMESTAMP_OUTPUTS,
                dynamic_axes={"enc": BATCH_FRAMES, "weights": {0: "batch", 1: "upsampled"}},
            )
        return onnx.load_from_string(buf.getvalue())

    return build


def export_graphs(
    dims: ParaformerDims,
    state: Weights,
    out_dir: Path,
    *,
    precision: str,
    window_frames: int,
    fixed: bool,
    say: Callable[[str], None],
) -> dict[str, Path]:
    """Every graph of the model (with `fixed`, the static twins too) from the checkpoint's tensors;
    returns {role: path}."""
    made = "fp16" if precision == "fp16" else "fp32"  # int8 is quantised from the fp32 graphs
    int8 = int8_ops(precision)
    config = {"dims": asdict(dims)}
    files: dict[str, Path] = {}
    if dims.timestamp_head:
        say("exporting the timestamp head (dynamic shapes)")
        key = GraphKey(FAMILY, "timestamp", "fp32", config)
        proto = make_graph(key, split_state(state, PARTS["timestamp"]), timestamp_graph(dims))
        # Its LSTM is a matrix-vector product per upsampled frame and direction: int8 weights are
        # a quarter of the bytes to read each step and use the CPU's int8 dot products. ONNX
        # Runtime has no fp16 LSTM on the CPU, so the fp16 export keeps the head fp32.
        head = "int8" if precision == "int8" else "fp32"
        if head == "int8":
            say("quantizing the timestamp head's LSTM to int8")
            proto = to_int8(proto, ops=("LSTM",))
        files |= save_graph_files(
            {"timestamp": proto},
            {"timestamp": out_dir / f"timestamp.{head}.onnx"},
            "timestamp_data",
            out_dir / f"timestamp.{head}.data",
        )

    weights = split_state(state, PARTS["decoder"])
    say("exporting the decoder (dynamic shapes)")
    key = GraphKey(FAMILY, "decoder", made, config)
    graphs = {"decoder": make_graph(key, weights, decoder_graph(dims, made, None), int8=int8)}
    if fixed:
        say(f"exporting the decoder (fixed {window_frames} frames, {window_frames + 1} token slots)")
        key = GraphKey(FAMILY, "decoder_fixed", made, {**config, "frames": window_frames, "slots": window_frames + 1})
        graphs["decoder_fixed"] = make_graph(key, weights, decoder_graph(dims, made, window_frames), int8=int8)
    files |= _save(graphs, out_dir, "decoder", precision, f"fixed{window_frames}x{window_frames + 1}", say)
    del graphs

    weights = split_state(state, PARTS["encoder"])
    say("exporting the encoder + CIF weights (dynamic shapes)")
    key = GraphKey(FAMILY, "encoder", made, config)
    graphs = {"encoder": make_graph(key, weights, encoder_graph(dims, made, None), int8=int8)}
    if fixed:
        say(f"exporting the encoder + CIF weights (fixed {window_frames} frames)")
        key = GraphKey(FAMILY, "encoder_fixed", made, {**config, "frames": window_frames})
        graphs["encoder_fixed"] = make_graph(key, weights, encoder_graph(dims, made, window_frames), int8=int8)
    files |= _save(graphs, out_dir, "encoder", precision, f"fixed{window_frames}", say)
    return files


def _save(
    graphs: dict[str, onnx.ModelProto], out_dir: Path, name: str, precision: str, fixed_tag: str, say
) -> dict[str, Path]:
    paths = {
        name: out_dir / f"{name}.{precision}.onnx",
        f"{name}_fixed": out_dir / f"{name}.{precision}.{fixed_tag}.onnx",
    }
    say(f"writing the {name} files")
    return save_graph_files(graphs, paths, f"{name}_data", out_dir / f"{name}.{precision}.data")
