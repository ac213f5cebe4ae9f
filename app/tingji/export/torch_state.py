"""Reading a funasr `model.pt` safely: plain tensors only, never code.

Fun-ASR-Nano and SenseVoice-Small checkpoints are PyTorch state dicts, saved
inside the usual containers ({"state_dict": ...}, {"model": ...}) and
sometimes with a DistributedDataParallel `module.` prefix. `torch.load` runs
with `weights_only=True`, so a crafted file cannot execute anything, and with
`mmap=True`, so a 2 GB checkpoint is not read into memory at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from ..errors import ModelError
from . import messages


def load_state_dict(path: Path) -> dict[str, torch.Tensor]:
    """The tensors of a checkpoint file, keyed as the reference model names them."""
    try:
        raw = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except Exception as exc:  # torch raises many types for a corrupt, truncated or unsafe file
        raise ModelError(messages.WEIGHTS_UNREADABLE, path=path, reason=f"{type(exc).__name__}: {exc}") from None
    return normalize_state(raw, path)


def normalize_state(obj: Any, path: Path) -> dict[str, torch.Tensor]:
    """Unwrap the usual containers and a DDP `module.` prefix, as funasr does."""
    while isinstance(obj, dict):
        inner = next(
            (obj[k] for k in ("state_dict", "model_state_dict", "model") if isinstance(obj.get(k), dict)),
            None,
        )
        if inner is None:
            break
        obj = inner
    if not isinstance(obj, dict):
        raise ModelError(messages.NO_STATE_DICT, path=path)
    state = {}
    for key, value in obj.items():
        if not isinstance(value, torch.Tensor):
            continue
        key = key[len("module.") :] if key.startswith("module.") else key
        state[key] = value
    return state
