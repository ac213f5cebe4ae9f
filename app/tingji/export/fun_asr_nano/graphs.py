"""Fun-ASR-Nano's encoder + adaptor and CTC head as ONNX graphs, in fp32, fp16 or int8.

Two encoder graphs come out of one export: `encoder` with symbolic batch and
frame dimensions (CPU and CUDA run it at the audio's real length) and
`encoder_fixed`, fully static at one 60 s window, for DirectML, which
specialises its kernels to the first shape it sees. Both graphs hold the same
weights, so their large tensors are written once to a shared external-data
file instead of doubling the model's size on disk.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import onnx
import torch

from ...errors import ModelError
from .. import messages
from ..choices import PRECISIONS
from ..layers import split_state
from ..onnx_tools import BATCH_FRAMES, export_graph, for_precision, quantize_graphs, save_graph_files
from .modules import AudioDims, CtcGraph, EncoderGraph

ENCODER_INPUTS = ["lfr_feat", "mask"]
ENCODER_OUTPUTS = ["enc_output", "adaptor_output"]
CTC_INPUTS = ["enc_output", "mask"]
CTC_OUTPUTS = ["topk_log_probs", "topk_indices"]
# Vocabulary rows per slice of the CTC projection: a 60 s window (1000 frames) then
# holds [1000, 4096] floats at a time (16 MB) instead of [1000, 60515] twice (~480 MB).
CTC_SLICE_ROWS = 4096


def build_encoder(dims: AudioDims, state: dict[str, torch.Tensor]) -> EncoderGraph:
    model = EncoderGraph(dims)
    weights = {k: v.float() for k, v in split_state(state, ("audio_encoder", "audio_adaptor")).items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ModelError(messages.ENCODER_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])
    return model.eval()


def build_ctc(
    dims: AudioDims, state: dict[str, torch.Tensor], top_k: int, slice_rows: int = CTC_SLICE_ROWS
) -> CtcGraph:
    model = CtcGraph(dims, top_k=top_k)
    weights = {k: v.float() for k, v in split_state(state, ("ctc_decoder", "ctc")).items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ModelError(messages.CTC_MISMATCH, missing=missing[:3], unexpected=unexpected[:3])
    model.slice_projection(slice_rows)
    return model.eval()


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
        raise ModelError(messages.UNKNOWN_PRECISION, precision=precision, choices=", ".join(PRECISIONS))
    encoder = for_precision(build_encoder(dims, state), precision)
    # Example inputs with T > 1 and B > 1 so nothing specialises on 1.
    feat = torch.randn(2, 37, dims.input_size)
    mask = torch.ones(2, 37)
    mask[1, 30:] = 0
    say("exporting encoder (dynamic shapes)")
    graphs: dict[str, onnx.ModelProto] = {
        "encoder": export_graph(encoder, (feat, mask), ENCODER_INPUTS, ENCODER_OUTPUTS, [BATCH_FRAMES] * 2)
    }
    if fixed:
        say(f"exporting encoder (fixed {window_frames} frames)")
        args = (torch.randn(1, window_frames, dims.input_size), torch.ones(1, window_frames))
        graphs["encoder_fixed"] = export_graph(encoder, args, ENCODER_INPUTS, ENCODER_OUTPUTS, None)
    del encoder
    if dims.has_ctc:
        say("exporting CTC head")
        ctc = for_precision(build_ctc(dims, state, ctc_top_k), precision)
        args = (torch.randn(2, 37, dims.encoder_dim), mask)
        graphs["ctc"] = export_graph(ctc, args, CTC_INPUTS, CTC_OUTPUTS, [BATCH_FRAMES] * 2)
    graphs = quantize_graphs(graphs, precision, say)
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
