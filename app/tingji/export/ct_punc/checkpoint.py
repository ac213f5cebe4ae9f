"""Reading an official CT-Transformer punctuation checkpoint, checking every part before any export.

The release (ModelScope iic/punc_ct-transformer_zh-cn-common-vocab272727-
pytorch, funasr's "ct-punc-c") holds `config.yaml`, `configuration.json`,
`tokens.json` and `model.pt`. Its vocabulary is characters and English
words, so text splits into words without a dictionary; the larger
vocab471067 model segments Chinese with jieba and a user dictionary, which
Tingji does not reproduce, and is refused with one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...engine.manifest import sha256_file
from ...errors import ModelError
from .. import messages
from ..funasr_release import read_config, read_token_list, release_file_names
from ..sanm_dims import encoder_sizes
from ..torch_state import read_state
from .dims import PuncDims, expected_shapes

FILES = {"tokens": ("tokenizer_conf", "token_list", "tokens.json"), "jieba": ("model_conf", "jieba_usr_dict", "")}
REQUIRED_MARKS = ("_", "，", "。", "？")


@dataclass
class Checkpoint:
    folder: Path
    config: dict[str, Any]
    tokens: list[str]
    marks: list[str]
    sentence_end_id: int
    state: dict[str, np.ndarray]
    dims: PuncDims
    sha256: str


def is_punc_config(config: dict[str, Any]) -> bool:
    return config.get("model") == "CTTransformer"


def load_checkpoint(folder: str | Path) -> Checkpoint:
    folder = Path(folder)
    config_path, config = read_config(folder, messages.NOT_PUNC_CHECKPOINT)
    model_conf = config.get("model_conf") or {}
    enc = config.get("encoder_conf") or {}
    for part, found, wanted in (
        ("model", config.get("model"), "CTTransformer"),
        ("encoder", config.get("encoder"), "SANMEncoder"),
        ("encoder_conf.input_layer", enc.get("input_layer", "pe"), "pe"),
        ("encoder_conf.normalize_before", enc.get("normalize_before", True), True),
    ):
        if found != wanted:
            raise ModelError(messages.PUNC_PART, path=config_path, part=part, name=found, expected=wanted)
    names = release_file_names(folder, FILES)
    if model_conf.get("jieba_usr_dict") or names["jieba"]:
        raise ModelError(messages.PUNC_WORD_LEVEL, path=config_path)
    marks = model_conf.get("punc_list")
    if not isinstance(marks, list) or not set(REQUIRED_MARKS) <= set(map(str, marks)):
        raise ModelError(messages.PUNC_MARKS, path=config_path, marks=marks)
    tokens_path = folder / names["tokens"]
    for required in (tokens_path, folder / "model.pt"):
        if not required.is_file():
            raise ModelError(messages.PUNC_INCOMPLETE, folder=folder, file=required.name)
    tokens = read_token_list(tokens_path)
    if "<unk>" not in tokens:
        raise ModelError(messages.NOT_TOKEN_LIST, path=tokens_path, reason="no <unk> token")
    state = read_state(folder / "model.pt")
    embed = state.get("embed.weight")
    if embed is None:
        raise ModelError(
            messages.PUNC_MISMATCH, path=folder / "model.pt", missing=["embed.weight"], unexpected=[], wrong=[]
        )
    if embed.shape[0] != len(tokens):
        raise ModelError(messages.PUNC_VOCAB, path=tokens_path, tokens=len(tokens), rows=int(embed.shape[0]))
    d = PuncDims(
        input_size=int(embed.shape[1]),
        **encoder_sizes(enc, PuncDims()),
        vocab=len(tokens),
        classes=len(marks),
    )
    return Checkpoint(
        folder=folder,
        config=config,
        tokens=tokens,
        marks=[str(m) for m in marks],
        sentence_end_id=int(model_conf.get("sentence_end_id", 3)),
        state=_checked(d, state, folder / "model.pt"),
        dims=d,
        sha256=sha256_file(folder / "model.pt"),
    )


def _checked(d: PuncDims, state: dict[str, np.ndarray], path: Path) -> dict[str, np.ndarray]:
    """`state`, once every tensor of `modules.CtTransformer(d)` is in it with its shape, and nothing else."""
    expected = expected_shapes(d)
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    wrong = [k for k in expected if k in state and tuple(state[k].shape) != expected[k]]
    if missing or unexpected or wrong:
        raise ModelError(
            messages.PUNC_MISMATCH, path=path, missing=missing[:3], unexpected=unexpected[:3], wrong=wrong[:3]
        )
    return state
