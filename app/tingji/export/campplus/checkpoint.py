"""Reading an official CAM++ release folder, checking every part before any export.

ModelScope's iic/speech_campplus_sv_zh-cn_16k-common, as funasr loads it,
holds `config.yaml` (`model: CAMPPlus` and `model_conf`), `configuration.json`
(whose `file_path_metas.init_param` names the weights) and
`campplus_cn_common.bin`, a plain state dict. Only plain tensors are read
(`pt_reader`: a checkpoint is data, never code); the weights must fit config.yaml's sizes exactly.
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
from ..torch_state import read_state
from .dims import CamPlusDims, expected_shapes

MODEL_CLASS = "CAMPPlus"
DEFAULT_WEIGHTS = "campplus_cn_common.bin"
# model_conf values Tingji's graph does not build another way: (key, the value it must have).
FIXED_CONF = (("config_str", "batchnorm-relu"), ("output_level", "segment"))
SIZE_KEYS = ("feat_dim", "embedding_size", "growth_rate", "bn_size", "init_channels")


@dataclass
class Checkpoint:
    folder: Path
    config: dict[str, Any]
    weights_path: Path
    state: dict[str, np.ndarray]
    dims: CamPlusDims
    sha256: str


def is_checkpoint(folder: Path, config: dict[str, Any]) -> bool:
    """An official CAM++ folder names its model class in config.yaml."""
    return config.get("model") == MODEL_CLASS


def weights_name(folder: Path) -> str:
    """The weight file configuration.json's `file_path_metas.init_param` names (the release's name otherwise)."""
    path = folder / "configuration.json"
    if not path.is_file():
        return DEFAULT_WEIGHTS
    try:
        name = json.loads(path.read_text(encoding="utf-8")).get("file_path_metas", {}).get("init_param")
    except (ValueError, UnicodeDecodeError, AttributeError):
        raise ModelError(messages.FUNASR_CONFIG_UNREADABLE, path=path) from None
    if name is None:
        return DEFAULT_WEIGHTS
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        raise ModelError(messages.FUNASR_NOT_A_FILE_NAME, path=path, name=str(name))
    return name


def load_checkpoint(folder: str | Path) -> Checkpoint:
    folder = Path(folder)
    config_path = folder / "config.yaml"
    if not config_path.is_file():
        raise ModelError(messages.CAMPPLUS_INCOMPLETE, folder=folder, file="config.yaml")
    try:
        config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ModelError(messages.YAML_UNREADABLE, path=config_path, reason=exc) from None
    if not isinstance(config, dict) or config.get("model") != MODEL_CLASS:
        raise ModelError(messages.MODEL_CLASS_WRONG, path=config_path, expected=MODEL_CLASS)
    dims = campplus_dims(config, config_path)
    weights_path = folder / weights_name(folder)
    if not weights_path.is_file():
        raise ModelError(messages.CAMPPLUS_INCOMPLETE, folder=folder, file=weights_path.name)
    state = read_state(weights_path)
    check_weights(state, dims, weights_path)
    return Checkpoint(
        folder=folder,
        config=config,
        weights_path=weights_path,
        state=state,
        dims=dims,
        sha256=sha256_file(weights_path),
    )


def campplus_dims(config: dict[str, Any], path: Path) -> CamPlusDims:
    """The sizes of config.yaml's `model_conf` (funasr's defaults where a key is absent)."""
    conf = config.get("model_conf") or {}
    if not isinstance(conf, dict):
        raise ModelError(messages.CAMPPLUS_VARIANT, path=path, key="model_conf", value=repr(conf), expected="a mapping")
    for key, expected in FIXED_CONF:
        value = conf.get(key, expected)
        if value != expected:
            raise ModelError(messages.CAMPPLUS_VARIANT, path=path, key=key, value=repr(value), expected=repr(expected))
    sizes = {}
    defaults = CamPlusDims()
    for key in SIZE_KEYS:
        value = conf.get(key, getattr(defaults, key))
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ModelError(
                messages.CAMPPLUS_VARIANT, path=path, key=key, value=repr(value), expected="a positive whole number"
            )
        sizes[key] = value
    if sizes["feat_dim"] % 8:
        raise ModelError(
            messages.CAMPPLUS_VARIANT, path=path, key="feat_dim", value=sizes["feat_dim"], expected="a multiple of 8"
        )
    return CamPlusDims(**sizes)


def check_weights(state: dict[str, np.ndarray], dims: CamPlusDims, path: Path) -> None:
    """Every tensor of our definition (`modules.CamPlusGraph`) is there with its shape, and nothing else is."""
    expected = expected_shapes(dims)
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    shapes = sorted(k for k in set(expected) & set(state) if tuple(state[k].shape) != expected[k])
    if missing or unexpected or shapes:
        raise ModelError(
            messages.CAMPPLUS_MISMATCH, path=path, missing=missing[:3], unexpected=unexpected[:3], shapes=shapes[:3]
        )
