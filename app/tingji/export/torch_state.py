"""A checkpoint's state dict as NumPy arrays, read without torch, and the parts of it a graph takes.

Fun-ASR-Nano, SenseVoice-Small, Paraformer, CT-Transformer and CAM++ releases
ship PyTorch `model.pt` files; `pt_reader` reads them with an unpickler that
rebuilds tensors and plain containers only (never code) and memory-maps the
storages, so a 2 GB checkpoint is not read into memory at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .pt_reader import read_state_dict


def read_state(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a checkpoint file, keyed as the reference model names them (no `module.` prefix)."""
    return read_state_dict(path)


def split_state(state: Mapping[str, np.ndarray], prefixes: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The entries of a checkpoint state dict that belong to the given top-level modules."""
    return {k: v for k, v in state.items() if k.split(".", 1)[0] in prefixes}
