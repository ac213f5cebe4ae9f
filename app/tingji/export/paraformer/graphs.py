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

from collections.abc import Callable
from pathlib import Path

import onnx
import torch

from ..onnx_tools import BATCH_FRAMES, OPSET, export_graph, for_precision, save_graph_files, to_int8
from .modules import DecoderGraph, EncoderGraph, Paraformer, TimestampGraph

ENCODER_INPUTS, ENCODER_OUTPUTS = ["speech", "mask"], ["enc", "alphas"]
DECODER_INPUTS, DECODER_OUTPUTS = ["enc", "mask", "acoustic", "slot_mask"], ["log_probs", "ids"]
TIMESTAMP_INPUTS, TIMESTAMP_OUTPUTS = ["enc"], ["weights"]
SLOTS = {0: "batch", 1: "tokens"}


def _name_output_axis(proto: onnx.ModelProto, axis: int, label: str) -> None:
    """Label a symbolic output axis that is not `frames` (the exporter's default for axis 1)."""
    for value in proto.graph.output:
        dims = value.type.tensor_type.shape.dim
        if len(dims) > axis and not dims[axis].HasField("dim_value"):
            dims[axis].dim_param = label


def _export_timestamp_head(head: TimestampGraph, dim: int) -> onnx.ModelProto:
    """The timestamp head through torch's TorchScript exporter.

    Both exporters give the same graph (one ONNX LSTM node, no loop), but the
    torch.export path spends ~50 s tracing a one-layer LSTM even at test
    sizes, where this takes about one. The head runs on the CPU only, so the
    DirectML rules the rest of the export follows do not apply to it.
    """
    import io
    import warnings

    buf = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            head,
            (torch.randn(1, 37, dim),),
            buf,
            dynamo=False,
            opset_version=OPSET,
            input_names=TIMESTAMP_INPUTS,
            output_names=TIMESTAMP_OUTPUTS,
            dynamic_axes={"enc": BATCH_FRAMES, "weights": {0: "batch", 1: "upsampled"}},
        )
    return onnx.load_from_string(buf.getvalue())


def export_graphs(
    model: Paraformer, out_dir: Path, *, precision: str, window_frames: int, fixed: bool, say: Callable[[str], None]
) -> dict[str, Path]:
    """Every graph of the model (with `fixed`, the static twins too); returns {role: path}.

    The order matters: the timestamp head first (from fp32 weights), then the graphs that
    `precision` may turn to fp16 in place.
    """
    d = model.dims.encoder_dim
    files: dict[str, Path] = {}
    if model.dims.timestamp_head:
        say("exporting the timestamp head (dynamic shapes)")
        proto = _export_timestamp_head(TimestampGraph(model), d)
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
    if precision == "fp16":
        model.decoder.half()
    # Examples with T, N > 1, B > 1 and N != T, so nothing specialises on them.
    mask = torch.ones(2, 37)
    mask[1, 30:] = 0
    slots = torch.ones(2, 11)
    slots[1, 7:] = 0
    decoder = DecoderGraph(model)
    say("exporting the decoder (dynamic shapes)")
    graphs = {
        "decoder": export_graph(
            decoder,
            (torch.randn(2, 37, d), mask, torch.randn(2, 11, d), slots),
            DECODER_INPUTS,
            DECODER_OUTPUTS,
            [BATCH_FRAMES, BATCH_FRAMES, SLOTS, SLOTS],
        )
    }
    _name_output_axis(graphs["decoder"], 1, "tokens")
    if fixed:
        say(f"exporting the decoder (fixed {window_frames} frames, {window_frames + 1} token slots)")
        args = (
            torch.randn(1, window_frames, d),
            torch.ones(1, window_frames),
            torch.randn(1, window_frames + 1, d),
            torch.ones(1, window_frames + 1),
        )
        graphs["decoder_fixed"] = export_graph(decoder, args, DECODER_INPUTS, DECODER_OUTPUTS, None)
    files |= _save(graphs, out_dir, "decoder", precision, f"fixed{window_frames}x{window_frames + 1}", say)
    del graphs, decoder

    encoder = for_precision(EncoderGraph(model), precision)
    say("exporting the encoder + CIF weights (dynamic shapes)")
    graphs = {
        "encoder": export_graph(
            encoder,
            (torch.randn(2, 37, model.dims.input_size), mask),
            ENCODER_INPUTS,
            ENCODER_OUTPUTS,
            [BATCH_FRAMES, BATCH_FRAMES],
        )
    }
    if fixed:
        say(f"exporting the encoder + CIF weights (fixed {window_frames} frames)")
        args = (torch.randn(1, window_frames, model.dims.input_size), torch.ones(1, window_frames))
        graphs["encoder_fixed"] = export_graph(encoder, args, ENCODER_INPUTS, ENCODER_OUTPUTS, None)
    files |= _save(graphs, out_dir, "encoder", precision, f"fixed{window_frames}", say)
    return files


def _save(
    graphs: dict[str, onnx.ModelProto], out_dir: Path, name: str, precision: str, fixed_tag: str, say
) -> dict[str, Path]:
    if precision == "int8":
        for role in list(graphs):
            say(f"quantizing {role} to int8")
            graphs[role] = to_int8(graphs[role])
    paths = {
        name: out_dir / f"{name}.{precision}.onnx",
        f"{name}_fixed": out_dir / f"{name}.{precision}.{fixed_tag}.onnx",
    }
    say(f"writing the {name} files")
    return save_graph_files(graphs, paths, f"{name}_data", out_dir / f"{name}.{precision}.data")
