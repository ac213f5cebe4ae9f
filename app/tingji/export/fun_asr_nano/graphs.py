"""Fun-ASR-Nano's encoder + adaptor and CTC head as ONNX graphs, in fp32, fp16 or int8.

Two encoder graphs come out of one export: `encoder` with symbolic batch and
frame dimensions (CPU and CUDA run it at the audio's real length) and
`encoder_fixed`, fully static at one 60 s window, for DirectML, which
specialises its kernels to the first shape it sees. Both graphs hold the same
weights, so their large tensors are written once to a shared external-data
file instead of doubling the model's size on disk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnx

from ...engine.families.kit import PRECISIONS, declared
from ...errors import ModelError
from .. import messages
from ..onnx_tools import BATCH_FRAMES, int8_ops, save_graph_files
from ..templates import GraphKey, make_graph
from ..torch_state import split_state
from .dims import AudioDims

if TYPE_CHECKING:
    from .modules import CtcGraph, EncoderGraph

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
ENCODER_INPUTS = ["lfr_feat", "mask"]
ENCODER_OUTPUTS = ["enc_output", "adaptor_output"]
CTC_INPUTS = ["enc_output", "mask"]
CTC_OUTPUTS = ["topk_log_probs", "topk_indices"]
# Vocabulary rows per slice of the CTC projection: a 60 s window (1000 frames) then
# holds [1000, 4096] floats at a time (16 MB) instead of [1000, 60515] twice (~480 MB).
CTC_SLICE_ROWS = 4096
# The checkpoint's top-level modules each graph is made from.
ENCODER_PARTS = ("audio_encoder", "audio_adaptor")
CTC_PARTS = ("ctc_decoder", "ctc")
Weights = Mapping[str, np.ndarray]


def build_encoder(dims: AudioDims, weights: Weights) -> EncoderGraph:
    """The torch encoder + adaptor with the checkpoint's weights."""
    from ..torch_export import to_torch
    from .modules import EncoderGraph

    model = EncoderGraph(dims)
    missing, unexpected = model.load_state_dict(to_torch(split_state(weights, ENCODER_PARTS)), strict=False)
    if missing or unexpected:
        raise ModelError(messages.ENCODER_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])
    return model.eval()


def build_ctc(dims: AudioDims, weights: Weights, top_k: int, slice_rows: int = CTC_SLICE_ROWS) -> CtcGraph:
    """The torch CTC head with the checkpoint's weights, its projection computed in slices."""
    from ..torch_export import to_torch
    from .modules import CtcGraph

    model = CtcGraph(dims, top_k=top_k)
    missing, unexpected = model.load_state_dict(to_torch(split_state(weights, CTC_PARTS)), strict=False)
    if missing or unexpected:
        raise ModelError(messages.CTC_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])
    model.slice_projection(slice_rows)
    return model.eval()


def encoder_graph(dims: AudioDims, precision: str, frames: int | None) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of encoder + adaptor: symbolic batch and frames, or fixed at `frames` (one row)."""

    def build(weights: Weights) -> onnx.ModelProto:
        from ..torch_export import export_graph, for_precision, frame_examples

        model = for_precision(build_encoder(dims, weights), precision)
        dynamic = None if frames is not None else [BATCH_FRAMES] * 2
        return export_graph(model, frame_examples(dims.input_size, frames), ENCODER_INPUTS, ENCODER_OUTPUTS, dynamic)

    return build


def ctc_graph(dims: AudioDims, precision: str, top_k: int, slice_rows: int) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of the CTC head: top-k log-probabilities, the projection in slices."""

    def build(weights: Weights) -> onnx.ModelProto:
        from ..torch_export import export_graph, for_precision, frame_examples

        model = for_precision(build_ctc(dims, weights, top_k, slice_rows), precision)
        return export_graph(model, frame_examples(dims.encoder_dim, None), CTC_INPUTS, CTC_OUTPUTS, [BATCH_FRAMES] * 2)

    return build


def export_audio(
    dims: AudioDims,
    state: Weights,
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
        raise ModelError(messages.UNKNOWN_PRECISION, precision=precision, choices=", ".join(PRECISIONS))
    made = "fp16" if precision == "fp16" else "fp32"  # int8 is quantised from the fp32 graphs
    int8 = int8_ops(precision)
    # The encoder's graph is the same with or without a CTC head (the Hugging Face and ModelScope copies).
    config = {"dims": {k: v for k, v in asdict(dims).items() if not k.startswith("ctc_")}}
    encoder = split_state(state, ENCODER_PARTS)
    say("exporting encoder (dynamic shapes)")
    graphs: dict[str, onnx.ModelProto] = {
        "encoder": make_graph(
            GraphKey(FAMILY, "encoder", made, config), encoder, encoder_graph(dims, made, None), int8=int8
        )
    }
    if fixed:
        say(f"exporting encoder (fixed {window_frames} frames)")
        key = GraphKey(FAMILY, "encoder_fixed", made, {**config, "frames": window_frames})
        graphs["encoder_fixed"] = make_graph(key, encoder, encoder_graph(dims, made, window_frames), int8=int8)
    if dims.has_ctc:
        say("exporting CTC head")
        key = GraphKey(FAMILY, "ctc", made, {"dims": asdict(dims), "top_k": ctc_top_k, "slice_rows": CTC_SLICE_ROWS})
        ctc = split_state(state, CTC_PARTS)
        graphs["ctc"] = make_graph(key, ctc, ctc_graph(dims, made, ctc_top_k, CTC_SLICE_ROWS), int8=int8)
    paths = {
        "encoder": out_dir / f"encoder.{precision}.onnx",
        "encoder_fixed": out_dir / f"encoder.{precision}.fixed{window_frames}.onnx",
        "ctc": out_dir / f"ctc.{precision}.onnx",
    }
    say("writing ONNX files")
    encoders = {r: graphs[r] for r in ("encoder", "encoder_fixed") if r in graphs}
    written = save_graph_files(encoders, paths, "encoder_data", out_dir / f"encoder.{precision}.data")
    if "ctc" in graphs:
        written.update(save_graph_files({"ctc": graphs["ctc"]}, paths, "ctc_data", out_dir / f"ctc.{precision}.data"))
    return written
