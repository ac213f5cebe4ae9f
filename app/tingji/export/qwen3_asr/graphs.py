"""Qwen3-ASR's audio tower as ONNX: a dynamic graph for the CPU, a fixed 60 s twin for DirectML.

Inputs `mel` [batch, frames, n_mels] (the engine's log-mel, any length) and
`mask` [batch, frames] (1 on valid frames); output `audio_rows` [batch,
tokens, llm_dim] with the valid rows first (see `modules.py`). The fixed
graph is fully static at 6000 frames (60 s: 60 chunks, 780 audio rows, the
attention in 8 windows of 104). Both graphs hold the same weights, written
once to a shared data file. Without torch both come from templates (`export.templates`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path

import numpy as np
import onnx

from ...engine.families.kit import declared
from ...errors import ModelError
from .. import messages
from ..onnx_tools import BATCH_FRAMES, int8_ops, save_graph_files
from ..templates import GraphKey, make_graph
from .dims import CONV_PARTS, EncoderDims, tower_tensors
from .int8_conv import convs_to_int8

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
INPUTS = ["mel", "mask"]
OUTPUTS = ["audio_rows"]
Weights = Mapping[str, np.ndarray]


def check_tensors(dims: EncoderDims, tensors: Weights) -> None:
    """The audio tower's tensors are exactly those the tower of `dims` loads (with or without torch)."""
    expected = tower_tensors(dims)
    missing, unexpected = sorted(expected - set(tensors)), sorted(set(tensors) - expected)
    if missing or unexpected:
        raise ModelError(messages.AUDIO_TOWER_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])


def encoder_graph(dims: EncoderDims, precision: str, frames: int | None) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of the audio tower: symbolic batch and frames, or fixed at `frames` (one row)."""

    def build(weights: Weights) -> onnx.ModelProto:
        import torch

        from ..torch_export import export_graph, for_precision, to_torch
        from .modules import AudioTower

        model = AudioTower(dims)
        missing, unexpected = model.load_state_dict(to_torch(weights), strict=False)
        if missing or unexpected:
            raise ModelError(messages.AUDIO_TOWER_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])
        model = for_precision(model.eval(), precision)
        if frames is not None:
            args = (torch.randn(1, frames, dims.n_mels), torch.ones(1, frames))
            return export_graph(model, args, INPUTS, OUTPUTS, None)
        # Two rows and a length that is not a whole number of chunks, so nothing specialises.
        mel = torch.randn(2, 2 * dims.chunk_frames + 37, dims.n_mels)
        mask = torch.ones(2, mel.shape[1])
        mask[1, 150:] = 0
        proto = export_graph(model, (mel, mask), INPUTS, OUTPUTS, [BATCH_FRAMES] * 2)
        _name_token_axis(proto)
        return proto

    return build


def conv_inputs(dims: EncoderDims) -> dict[str, tuple[int, int]]:
    """The (mel bins, frames) each chunk image has when it enters `conv2d2` and `conv2d3`."""
    h, w = (dims.n_mels + 1) // 2, (dims.chunk_frames + 1) // 2
    return {"conv2d2.weight": (h, w), "conv2d3.weight": ((h + 1) // 2, (w + 1) // 2)}


def _name_token_axis(proto: onnx.ModelProto) -> None:
    """The output's second axis counts audio rows, not input frames: name it so."""
    for value in proto.graph.output:
        dims = value.type.tensor_type.shape.dim
        if len(dims) > 1 and not dims[1].HasField("dim_value"):
            dims[1].dim_param = "tokens"


def export_encoder(
    dims: EncoderDims,
    tensors: Weights,
    out_dir: Path,
    *,
    precision: str,
    window_frames: int,
    fixed: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Write `encoder` (+ `encoder_fixed`) and their shared `encoder_data`; returns {role: path}.

    `tensors` are the audio tower's (`checkpoint.audio_tensors`, NumPy); the graphs come from the
    torch exporter or, without torch, from its templates (`export.templates`).
    """
    say = progress or (lambda _msg: None)
    check_tensors(dims, tensors)
    made = "fp16" if precision == "fp16" else "fp32"  # int8 is quantised from the fp32 graphs
    int8 = int8_ops(precision)
    config = {"dims": asdict(dims), "conv_parts": CONV_PARTS}
    say("exporting audio encoder (dynamic shapes)")
    key = GraphKey(FAMILY, "encoder", made, config)
    graphs = {"encoder": make_graph(key, tensors, encoder_graph(dims, made, None), int8=int8)}
    if fixed:
        say(f"exporting audio encoder (fixed {window_frames} frames)")
        key = GraphKey(FAMILY, "encoder_fixed", made, {**config, "frames": window_frames})
        graphs["encoder_fixed"] = make_graph(key, tensors, encoder_graph(dims, made, window_frames), int8=int8)
    if precision == "int8":
        say("rewriting the encoder's convolutions as int8 matrix products")
        convs_to_int8(graphs["encoder"], conv_inputs(dims))
    paths = {
        "encoder": out_dir / f"encoder.{precision}.onnx",
        "encoder_fixed": out_dir / f"encoder.{precision}.fixed{window_frames}.onnx",
    }
    say("writing ONNX files")
    return save_graph_files(graphs, paths, "encoder_data", out_dir / f"encoder.{precision}.data")
