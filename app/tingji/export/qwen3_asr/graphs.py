"""Qwen3-ASR's audio tower as ONNX: a dynamic graph for the CPU, a fixed 60 s twin for DirectML.

Inputs `mel` [batch, frames, n_mels] (the engine's log-mel, any length) and
`mask` [batch, frames] (1 on valid frames); output `audio_rows` [batch,
tokens, llm_dim] with the valid rows first (see `modules.py`). The fixed
graph is fully static at 6000 frames (60 s: 60 chunks, 780 audio rows, the
attention in 8 windows of 104). Both graphs hold the same weights, written
once to a shared data file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import onnx
import torch

from ...errors import ModelError
from .. import messages
from ..onnx_tools import BATCH_FRAMES, export_graph, for_precision, quantize_graphs, save_graph_files
from .int8_conv import convs_to_int8
from .modules import AudioTower, EncoderDims

INPUTS = ["mel", "mask"]
OUTPUTS = ["audio_rows"]


def build_tower(dims: EncoderDims, tensors: dict[str, torch.Tensor]) -> AudioTower:
    model = AudioTower(dims)
    weights = {k: v.float() for k, v in tensors.items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ModelError(messages.AUDIO_TOWER_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])
    return model.eval()


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
    tensors: dict[str, torch.Tensor],
    out_dir: Path,
    *,
    precision: str,
    window_frames: int,
    fixed: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Write `encoder` (+ `encoder_fixed`) and their shared `encoder_data`; returns {role: path}."""
    say = progress or (lambda _msg: None)
    model = for_precision(build_tower(dims, tensors), precision)
    # Two rows and a length that is not a whole number of chunks, so nothing specialises.
    mel = torch.randn(2, 2 * dims.chunk_frames + 37, dims.n_mels)
    mask = torch.ones(2, mel.shape[1])
    mask[1, 150:] = 0
    say("exporting audio encoder (dynamic shapes)")
    graphs = {"encoder": export_graph(model, (mel, mask), INPUTS, OUTPUTS, [BATCH_FRAMES] * 2)}
    _name_token_axis(graphs["encoder"])
    if fixed:
        say(f"exporting audio encoder (fixed {window_frames} frames)")
        args = (torch.randn(1, window_frames, dims.n_mels), torch.ones(1, window_frames))
        graphs["encoder_fixed"] = export_graph(model, args, INPUTS, OUTPUTS, None)
    del model
    graphs = quantize_graphs(graphs, precision, say)
    if precision == "int8":
        say("rewriting the encoder's convolutions as int8 matrix products")
        convs_to_int8(graphs["encoder"], conv_inputs(dims))
    paths = {
        "encoder": out_dir / f"encoder.{precision}.onnx",
        "encoder_fixed": out_dir / f"encoder.{precision}.fixed{window_frames}.onnx",
    }
    say("writing ONNX files")
    return save_graph_files(graphs, paths, "encoder_data", out_dir / f"encoder.{precision}.data")
