"""Official Paraformer checkpoint -> the files and manifest of a Tingji model folder.

Output: the encoder + CIF weights graph and the decoder graph at real
length (CPU, CUDA) with their fixed 60 s twins for DirectML, each pair
sharing one weight file; for BiCifParaformer the timestamp head (CPU,
real length); `am.mvn` as released and `tokens.json` as read (the engine
reads both); and a manifest whose family section (`ParaformerSection`) holds the
CIF settings and special ids.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...engine.families.paraformer.section import (
    ParaformerCif,
    ParaformerEncoderInfo,
    ParaformerSection,
    ParaformerTokens,
)
from ...engine.frontend import num_lfr_frames
from ...engine.manifest import Manifest
from .. import folder_manifest
from ..funasr_frontend import frontend_settings
from .checkpoint import is_paraformer_config, load_checkpoint
from .graphs import FAMILY, export_graphs

WINDOW_SECONDS = 60
WINDOW_REASON = (
    "60 s: FunASR's own long-audio pipeline cuts at most 60 s segments for Paraformer-zh "
    "(fsmn-vad max_single_segment_time 60000); the windows are cut at pauses, and attention cost "
    "grows with the square of the window"
)


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An official Paraformer folder names a Paraformer model class in config.yaml."""
    return is_paraformer_config(config)


def convert(
    source: Path, work: Path, *, precision: str, decoder_quant: str, fixed: bool, say: Callable[[str], None]
) -> Manifest:
    """Write every file into `work` (an empty folder) and return the manifest describing them.

    `decoder_quant` does not apply: Paraformer's decoder is an ONNX graph, quantised with `precision`.
    """
    say(f"reading checkpoint {source}")
    ckpt = load_checkpoint(source)
    frontend = frontend_settings(ckpt.frontend_conf())
    window_frames = num_lfr_frames(WINDOW_SECONDS * frontend.sample_rate, frontend)
    model_conf, predictor_conf = ckpt.model_conf(), ckpt.predictor_conf()
    section = ParaformerSection(
        variant=ckpt.variant,
        encoder=ParaformerEncoderInfo(
            precision=precision, input_size=ckpt.dims.input_size, encoder_dim=ckpt.dims.encoder_dim
        ),
        cif=ParaformerCif(
            threshold=float(predictor_conf.get("threshold", 1.0)),
            tail_threshold=float(predictor_conf.get("tail_threshold", 0.0)),
            upsample_times=ckpt.dims.upsample_times if ckpt.variant == "bicif" else 1,
            frame_seconds=frontend.lfr_n * frontend.frame_shift_ms / 1000,
        ),
        tokens=ParaformerTokens(
            vocab_size=ckpt.dims.vocab,
            blank_id=int(model_conf.get("blank_id", 0)),
            sos_id=int(model_conf.get("sos", 1)),
            eos_id=int(model_conf.get("eos", 2)),
        ),
        window_reason=WINDOW_REASON,
    )
    files = export_graphs(
        ckpt.dims, ckpt.state, work, precision=precision, window_frames=window_frames, fixed=fixed, say=say
    )
    shutil.copyfile(ckpt.cmvn_path, work / "am.mvn")
    files["cmvn"] = work / "am.mvn"
    (work / "tokens.json").write_text(
        json.dumps(ckpt.tokens, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n"
    )
    files["tokens"] = work / "tokens.json"
    say("hashing files")
    source_info = {"model_pt_sha256": ckpt.sha256, "folder": source.name, "model": ckpt.config.get("model")}
    return folder_manifest(work, FAMILY, files, (WINDOW_SECONDS, window_frames), frontend, section, source_info)
