"""Official SenseVoice-Small checkpoint -> the files and manifest of a Tingji model folder.

Output: the encoder+CTC graph at real length (CPU, CUDA) and its fixed
30 s twin for DirectML, sharing one weight file; `am.mvn` as released (the
engine's front-end reads it); `tokens.json`, the SentencePiece pieces with
their types, from which the engine detokenises without sentencepiece; and a
manifest whose family section holds the query rows and CTC settings.

Nothing here imports torch: where it is installed the graphs are exported from
`modules` (inside `encoder_graph`'s build), without it they are filled from
templates (`export.templates`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from ...engine.families.kit import declared
from ...engine.families.sense_voice_small.rich import QueryRows
from ...engine.families.sense_voice_small.section import SenseVoiceCtc, SenseVoiceEncoderInfo, SenseVoiceSection
from ...engine.frontend import num_lfr_frames
from ...engine.manifest import Manifest
from ...errors import ModelError
from .. import folder_manifest, messages
from ..funasr_frontend import frontend_settings
from ..onnx_tools import BATCH_FRAMES, int8_ops, save_graph_files
from ..templates import GraphKey, make_graph
from ..torch_state import split_state
from .checkpoint import Checkpoint, load_checkpoint
from .dims import SenseVoiceDims

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
WINDOW_SECONDS = 30
WINDOW_REASON = (
    "30 s: funasr's own SenseVoice recipe cuts audio with its VAD at 30 s (max_single_segment_time "
    "30000) and the model was trained on utterances of that order; attention cost grows with the square "
    "of the window, and two 30 s windows cost less than one 60 s window"
)
INPUTS = ["speech", "mask", "query"]
OUTPUTS = ["query_log_probs", "query_ids", "log_probs", "ids"]
Weights = Mapping[str, np.ndarray]


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An official SenseVoice-Small folder names its model class in config.yaml."""
    return config.get("model") == "SenseVoiceSmall"


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """A SenseVoice-Small checkpoint: one encoder + CTC graph (see `CONVERTERS`); `decoder_quant` does not
    apply, as it has no LLM decoder."""
    ckpt = load_checkpoint(source)
    frontend = frontend_settings(ckpt.frontend_conf())
    window_frames = num_lfr_frames(WINDOW_SECONDS * frontend.sample_rate, frontend)
    files = export_graphs(ckpt, work, precision=precision, window_frames=window_frames, fixed=fixed, say=say)
    shutil.copyfile(ckpt.cmvn_path, work / "am.mvn")
    files["cmvn"] = work / "am.mvn"
    (work / "tokens.json").write_text(ckpt.bpe.to_json() + "\n", encoding="utf-8", newline="\n")
    files["tokens"] = work / "tokens.json"
    say("hashing files")
    section = SenseVoiceSection(
        encoder=SenseVoiceEncoderInfo(
            precision=precision,
            input_size=ckpt.dims.input_size,
            encoder_dim=ckpt.dims.encoder_dim,
            inputs=tuple(INPUTS),
            outputs=tuple(OUTPUTS),
        ),
        # funasr passes model_conf to SenseVoiceSmall, whose blank_id defaults to 0.
        ctc=SenseVoiceCtc(
            vocab_size=ckpt.dims.vocab,
            blank_id=int((ckpt.config.get("model_conf") or {}).get("blank_id", 0)),
            frame_seconds=frontend.lfr_n * frontend.frame_shift_ms / 1000,
        ),
        queries=QueryRows(),
        window_reason=WINDOW_REASON,
    )
    origin = {"model_pt_sha256": ckpt.sha256, "folder": source.name}
    return folder_manifest(work, FAMILY, files, (WINDOW_SECONDS, window_frames), frontend, section, origin)


def encoder_graph(
    dims: SenseVoiceDims, precision: str, frames: int | None, path: Path
) -> Callable[[Weights], onnx.ModelProto]:
    """The torch export of query rows + encoder + CTC head: symbolic batch and frames, or fixed at
    `frames` (one row); `path` is the model.pt named when the weights do not fit the module."""

    def build(weights: Weights) -> onnx.ModelProto:
        import torch

        from ..torch_export import export_graph, for_precision, frame_examples, to_torch
        from .modules import SenseVoiceGraph

        model = SenseVoiceGraph(dims)
        missing, unexpected = model.load_state_dict(to_torch(weights), strict=False)
        if missing or unexpected:
            raise ModelError(messages.SENSE_VOICE_MISMATCH, path=path, missing=missing[:3], unexpected=unexpected[:3])
        model = for_precision(model.eval(), precision)
        query = torch.tensor([[0, 1, 2, 14], [4, 1, 2, 15]])
        features, mask = frame_examples(dims.input_size, frames)
        if frames is not None:
            return export_graph(model, (features, mask, query[:1]), INPUTS, OUTPUTS, None)
        dynamic = [BATCH_FRAMES, BATCH_FRAMES, {0: "batch"}]
        return export_graph(model, (features, mask, query), INPUTS, OUTPUTS, dynamic)

    return build


def export_graphs(
    ckpt: Checkpoint, out_dir: Path, *, precision: str, window_frames: int, fixed: bool, say: Callable[[str], None]
) -> dict[str, Path]:
    """The dynamic graph and (with `fixed`) its static window-length twin; returns {role: path}."""
    made = "fp16" if precision == "fp16" else "fp32"  # int8 is quantised from the fp32 graphs
    int8 = int8_ops(precision)
    config = {"dims": asdict(ckpt.dims)}
    weights = split_state(ckpt.state, ("embed", "encoder", "ctc"))
    model_pt = ckpt.folder / "model.pt"
    say("exporting encoder + CTC (dynamic shapes)")
    key = GraphKey(FAMILY, "encoder", made, config)
    graphs = {"encoder": make_graph(key, weights, encoder_graph(ckpt.dims, made, None, model_pt), int8=int8)}
    if fixed:
        say(f"exporting encoder + CTC (fixed {window_frames} frames)")
        key = GraphKey(FAMILY, "encoder_fixed", made, {**config, "frames": window_frames})
        build = encoder_graph(ckpt.dims, made, window_frames, model_pt)
        graphs["encoder_fixed"] = make_graph(key, weights, build, int8=int8)
    paths = {
        "encoder": out_dir / f"encoder.{precision}.onnx",
        "encoder_fixed": out_dir / f"encoder.{precision}.fixed{window_frames}.onnx",
    }
    say("writing ONNX files")
    return save_graph_files(graphs, paths, "encoder_data", out_dir / f"encoder.{precision}.data")
