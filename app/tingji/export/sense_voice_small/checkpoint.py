"""Reading an official SenseVoice-Small checkpoint folder, checking every part before any export.

The release (ModelScope iic/SenseVoiceSmall, Hugging Face
FunAudioLLM/SenseVoiceSmall) holds `config.yaml`, `configuration.json`,
`am.mvn` (CMVN statistics), `chn_jpn_yue_eng_ko_spectok.bpe.model` (the
SentencePiece vocabulary) and `model.pt`. A folder missing one of them, or
holding the wrong file under one of the names, is refused with one line
naming the file, before anything is written. Only plain tensors are read
from `model.pt` (`pt_reader`, without torch): a checkpoint is data, never code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...engine.families.sense_voice_small.tokens import PieceTable
from ...engine.frontend import Cmvn
from ...engine.manifest import sha256_file
from ...errors import ModelError
from .. import messages
from ..funasr_release import check_cmvn_width, read_cmvn, read_config, release_paths
from ..sanm_dims import encoder_sizes
from ..torch_state import read_state
from .bpe import read_model
from .dims import SenseVoiceDims

MODEL_CLASS = "SenseVoiceSmall"
# role -> where configuration.json names it (file_path_metas section, key) and the release's name.
FILES = {
    "cmvn": ("frontend_conf", "cmvn_file", "am.mvn"),
    "bpe": ("tokenizer_conf", "bpemodel", "chn_jpn_yue_eng_ko_spectok.bpe.model"),
}
# Tags the model's query rows are trained to emit: a vocabulary without them is another model's.
REQUIRED_TAGS = ("<|zh|>", "<|en|>", "<|withitn|>", "<|woitn|>")


@dataclass
class Checkpoint:
    folder: Path
    config: dict[str, Any]
    cmvn_path: Path
    cmvn: Cmvn
    bpe_path: Path
    bpe: PieceTable
    state: dict[str, np.ndarray]
    dims: SenseVoiceDims
    sha256: str

    def frontend_conf(self) -> dict[str, Any]:
        return dict(self.config.get("frontend_conf") or {})


def load_checkpoint(folder: str | Path) -> Checkpoint:
    folder = Path(folder)
    config_path, config = read_config(folder, messages.NOT_SENSE_VOICE)
    if config.get("model") != MODEL_CLASS:
        raise ModelError(messages.MODEL_CLASS_WRONG, path=config_path, expected=MODEL_CLASS)
    paths = release_paths(folder, FILES, ("cmvn", "bpe"), messages.SENSE_VOICE_INCOMPLETE)
    cmvn = read_cmvn(paths["cmvn"])
    bpe = read_model(paths["bpe"])
    missing = [t for t in REQUIRED_TAGS if t not in set(bpe.pieces)]
    if missing:
        raise ModelError(messages.NOT_SENSE_VOICE_VOCAB, path=paths["bpe"], pieces=", ".join(missing))
    state = read_state(folder / "model.pt")
    dims = sense_voice_dims(config, state, folder / "model.pt")
    if len(bpe.pieces) != dims.vocab:
        raise ModelError(messages.VOCAB_SIZE_MISMATCH, path=paths["bpe"], pieces=len(bpe.pieces), outputs=dims.vocab)
    check_cmvn_width(cmvn, paths["cmvn"], dims.input_size)
    return Checkpoint(
        folder=folder,
        config=config,
        cmvn_path=paths["cmvn"],
        cmvn=cmvn,
        bpe_path=paths["bpe"],
        bpe=bpe,
        state=state,
        dims=dims,
        sha256=sha256_file(folder / "model.pt"),
    )


def sense_voice_dims(config: dict[str, Any], state: dict[str, np.ndarray], path: Path) -> SenseVoiceDims:
    """Architecture sizes from config.yaml, cross-checked against the tensors of model.pt."""
    enc = config.get("encoder_conf") or {}
    fe = config.get("frontend_conf") or {}
    input_size = int(fe.get("n_mels", 80)) * int(fe.get("lfr_m", 7))
    sizes = encoder_sizes(enc, SenseVoiceDims())
    dim = sizes["encoder_dim"]
    first = state.get("encoder.encoders0.0.self_attn.linear_q_k_v.weight")
    head, embed = state.get("ctc.ctc_lo.weight"), state.get("embed.weight")
    if first is None or head is None or embed is None:
        raise ModelError(messages.NOT_SENSE_VOICE_WEIGHTS, path=path)
    if tuple(first.shape) != (3 * dim, input_size) or head.shape[1:] != (dim,) or embed.shape[1:] != (input_size,):
        raise ModelError(messages.SENSE_VOICE_SHAPES, path=path)
    if embed.shape[0] < 16:
        raise ModelError(messages.QUERY_TABLE_ROWS, path=path, rows=embed.shape[0])
    return SenseVoiceDims(
        input_size=input_size,
        **sizes,
        tp_blocks=int(enc.get("tp_blocks", 20)),
        vocab=int(head.shape[0]),
        query_rows=int(embed.shape[0]),
    )
