"""Official SenseVoice-Small checkpoint -> the files and manifest of a Tingji model folder.

Output: the encoder+CTC graph at real length (CPU, CUDA) and its fixed
30 s twin for DirectML, sharing one weight file; `am.mvn` as released (the
engine's front-end reads it); `tokens.json`, the SentencePiece pieces with
their types, from which the engine detokenises without sentencepiece; and a
manifest whose family section holds the query rows and CTC settings.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnx
import torch

from ...engine.families.sense_voice_small.rich import QueryRows
from ...engine.families.sense_voice_small.section import SenseVoiceCtc, SenseVoiceEncoderInfo, SenseVoiceSection
from ...engine.frontend import num_lfr_frames
from ...engine.manifest import Manifest
from ...errors import ModelError
from .. import folder_manifest, messages
from ..funasr_frontend import frontend_settings
from ..layers import split_state
from ..onnx_tools import BATCH_FRAMES, export_graph, for_precision, save_sharing_weights, to_int8
from .checkpoint import Checkpoint, load_checkpoint
from .modules import SenseVoiceGraph

FAMILY = "sense-voice-small"
WINDOW_SECONDS = 30
WINDOW_REASON = (
    "30 s: funasr's own SenseVoice recipe cuts audio with its VAD at 30 s (max_single_segment_time "
    "30000) and the model was trained on utterances of that order; attention cost grows with the square "
    "of the window, and two 30 s windows cost less than one 60 s window"
)
INPUTS = ["speech", "mask", "query"]
OUTPUTS = ["query_log_probs", "query_ids", "log_probs", "ids"]


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
    (work / "tokens.json").write_text(ckpt.bpe.to_json() + "\n", encoding="utf-8")
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


def build_graph(ckpt: Checkpoint) -> SenseVoiceGraph:
    model = SenseVoiceGraph(ckpt.dims)
    weights = {k: v.float() for k, v in split_state(ckpt.state, ("embed", "encoder", "ctc")).items()}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ModelError(
            messages.SENSE_VOICE_MISMATCH, path=ckpt.folder / "model.pt", missing=missing[:3], unexpected=unexpected[:3]
        )
    return model.eval()


def export_graphs(
    ckpt: Checkpoint, out_dir: Path, *, precision: str, window_frames: int, fixed: bool, say: Callable[[str], None]
) -> dict[str, Path]:
    """The dynamic graph and (with `fixed`) its static window-length twin; returns {role: path}."""
    model = for_precision(build_graph(ckpt), precision)
    d = ckpt.dims.input_size
    # Example inputs with T > 1 and B > 1 so nothing specialises on 1.
    mask = torch.ones(2, 37)
    mask[1, 30:] = 0
    query = torch.tensor([[0, 1, 2, 14], [4, 1, 2, 15]])
    say("exporting encoder + CTC (dynamic shapes)")
    graphs = {
        "encoder": export_graph(
            model, (torch.randn(2, 37, d), mask, query), INPUTS, OUTPUTS, [BATCH_FRAMES, BATCH_FRAMES, {0: "batch"}]
        )
    }
    if fixed:
        say(f"exporting encoder + CTC (fixed {window_frames} frames)")
        args = (torch.randn(1, window_frames, d), torch.ones(1, window_frames), query[:1])
        graphs["encoder_fixed"] = export_graph(model, args, INPUTS, OUTPUTS, None)
    del model
    if precision == "int8":
        for role in list(graphs):
            say(f"quantizing {role} to int8")
            graphs[role] = to_int8(graphs[role])
    paths = {
        "encoder": out_dir / f"encoder.{precision}.onnx",
        "encoder_fixed": out_dir / f"encoder.{precision}.fixed{window_frames}.onnx",
    }
    say("writing ONNX files")
    data = out_dir / f"encoder.{precision}.data"
    save_sharing_weights({paths[role]: proto for role, proto in graphs.items()}, data)
    for role in graphs:
        onnx.checker.check_model(str(paths[role]), full_check=False)
    return {**{role: paths[role] for role in graphs}, "encoder_data": data}
