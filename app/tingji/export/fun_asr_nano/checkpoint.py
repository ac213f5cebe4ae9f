"""Reading an official Fun-ASR-Nano checkpoint folder.

The release folder holds `config.yaml` (architecture and front-end settings),
`model.pt` (one state dict: encoder, adaptor, CTC head and the Qwen3 LLM), the
LLM's config and tokenizer in a `Qwen3-0.6B/` sub-folder and the CTC
vocabulary `multilingual.tiktoken`. Only plain tensors are read from
`model.pt` (`pt_reader`): a checkpoint is data, never code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ...engine.manifest import sha256_file
from ...errors import ModelError
from .. import messages
from ..sanm_dims import encoder_sizes
from ..torch_state import read_state
from .dims import AudioDims


@dataclass
class Checkpoint:
    """An official checkpoint folder, parsed."""

    folder: Path
    config: dict[str, Any]
    state: dict[str, np.ndarray]
    llm_dir: Path
    llm_config: dict[str, Any]
    ctc_vocab: Path | None
    sha256: str

    @property
    def dims(self) -> AudioDims:
        return audio_dims(self.config, self.llm_config, self.state, self.folder / "model.pt")

    def frontend_conf(self) -> dict[str, Any]:
        return dict(self.config.get("frontend_conf") or {})


def _find_llm_dir(folder: Path, config: dict[str, Any]) -> Path:
    """The Qwen3 folder: config's llm_conf.init_param_path, relative to the checkpoint."""
    candidates = []
    init = (config.get("llm_conf") or {}).get("init_param_path")
    if isinstance(init, str) and "${" not in init:
        candidates.append(folder / init)
        candidates.append(folder / Path(init).name)
    candidates.append(folder / "Qwen3-0.6B")
    for path in candidates:
        if (path / "config.json").is_file():
            return path
    raise ModelError(messages.NO_LLM_FOLDER, folder=folder, candidates=", ".join(str(c.name) for c in candidates))


def load_checkpoint(folder: str | Path) -> Checkpoint:
    folder = Path(folder)
    config_path = folder / "config.yaml"
    weights = folder / "model.pt"
    for required in (config_path, weights):
        if not required.is_file():
            raise ModelError(messages.NOT_NANO, folder=folder, file=required.name)
    try:
        config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ModelError(messages.YAML_UNREADABLE, path=config_path, reason=str(exc)) from None
    if config.get("model") != "FunASRNano":
        raise ModelError(messages.WRONG_MODEL, path=config_path, model=repr(config.get("model")))
    llm_dir = _find_llm_dir(folder, config)
    llm_config = json.loads((llm_dir / "config.json").read_text(encoding="utf-8"))
    state = read_state(weights)
    vocab = folder / "multilingual.tiktoken"
    return Checkpoint(
        folder=folder,
        config=config,
        state=state,
        llm_dir=llm_dir,
        llm_config=llm_config,
        ctc_vocab=vocab if vocab.is_file() else None,
        sha256=sha256_file(weights),
    )


def audio_dims(
    config: dict[str, Any], llm_config: dict[str, Any], state: dict[str, np.ndarray], path: Path
) -> AudioDims:
    """Architecture sizes from config.yaml, cross-checked against the tensors present."""
    enc = config.get("audio_encoder_conf") or {}
    ada = config.get("audio_adaptor_conf") or {}
    ctc = config.get("ctc_decoder_conf") or {}
    fe = config.get("frontend_conf") or {}
    if int(ada.get("downsample_rate", 1)) != 1:
        raise ModelError(messages.DOWNSAMPLE)
    input_size = int(fe.get("n_mels", 80)) * int(fe.get("lfr_m", 7))
    sizes = encoder_sizes(enc, AudioDims())
    encoder_dim = sizes["encoder_dim"]
    ctc_layers = sum(1 for k in state if k.startswith("ctc_decoder.blocks.") and k.endswith("norm1.weight"))
    has_ctc = "ctc.ctc_lo.weight" in state and config.get("ctc_decoder") is not None
    dims = AudioDims(
        input_size=input_size,
        **sizes,
        tp_blocks=int(enc.get("tp_blocks", 0)),
        llm_dim=int(llm_config["hidden_size"]),
        adaptor_ffn=int(ada.get("ffn_dim", 2048)),
        adaptor_layers=int(ada.get("n_layer", 2)),
        adaptor_heads=int(ada.get("attention_heads", 8)),
        ctc_layers=ctc_layers if has_ctc else 0,
        ctc_ffn=int(ctc.get("ffn_dim", 2048)),
        ctc_heads=int(ctc.get("attention_heads", 8)),
        ctc_vocab=int(state["ctc.ctc_lo.weight"].shape[0]) if has_ctc else 0,
    )
    got = state.get("audio_encoder.encoders0.0.self_attn.linear_q_k_v.weight")
    if got is None:
        raise ModelError(messages.NO_ENCODER_WEIGHTS, path=path)
    if tuple(got.shape) != (3 * encoder_dim, input_size):
        raise ModelError(messages.ENCODER_SIZES, path=path, shape=tuple(got.shape))
    return dims
