"""Reading `.safetensors` checkpoints: a JSON header and raw little-endian arrays, nothing executable.

transformers-style releases (Qwen3-ASR) ship their weights this way, one
file or several shards listed by `model.safetensors.index.json`. The format
cannot carry code, but a download can be cut short or damaged, so every
offset is checked against the file's real size before anything is read, and
a bad file is one `ModelError` line naming it. Tensors are memory-mapped
(copy-on-write, never written back), so a 4 GB checkpoint is not read into
memory at once.

The arrays are NumPy views of the mapped file (`load_file_numpy`,
`load_checkpoint_arrays`; bfloat16 as `pt_reader.bfloat16` gives it), so the
module needs no torch; `load_file` and `load_checkpoint_tensors` wrap the same
bytes as torch tensors for the converters that still take them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from . import messages
from .pt_reader import bfloat16

# safetensors dtype -> (NumPy dtype of the stored bytes, torch's name for it); BF16 is read as its 16 bits.
DTYPES = {
    "F64": ("<f8", "float64"),
    "F32": ("<f4", "float32"),
    "F16": ("<f2", "float16"),
    "BF16": ("<u2", "bfloat16"),
    "I64": ("<i8", "int64"),
    "I32": ("<i4", "int32"),
    "I16": ("<i2", "int16"),
    "I8": ("i1", "int8"),
    "U8": ("u1", "uint8"),
    "BOOL": ("?", "bool"),
}
MAX_HEADER = 100 << 20
INDEX_NAME = "model.safetensors.index.json"


def _header(path: Path, size: int) -> tuple[dict, int]:
    with open(path, "rb") as fh:
        head = fh.read(8)
        n = int.from_bytes(head, "little") if len(head) == 8 else -1
        if n < 2 or n > min(MAX_HEADER, size - 8):
            raise ModelError(messages.SAFETENSORS_HEADER_SIZE, path=path, header=n, size=size)
        try:
            header = json.loads(fh.read(n).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ModelError(messages.SAFETENSORS_HEADER_UNREADABLE, path=path) from None
    if not isinstance(header, dict):
        raise ModelError(messages.SAFETENSORS_HEADER_NOT_MAPPING, path=path)
    header.pop("__metadata__", None)
    return header, 8 + n


def _raw_tensors(path: Path) -> list[tuple[str, str, list[int], np.ndarray]]:
    """(name, safetensors dtype, shape, bytes as a view of the mapped file) per tensor, checked against the size."""
    size = path.stat().st_size
    header, start = _header(path, size)
    entries = []
    for name, info in header.items():
        try:
            code = info["dtype"]
            itemsize = np.dtype(DTYPES[code][0]).itemsize
            shape = [int(d) for d in info["shape"]]
            a, b = (int(v) for v in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ModelError(messages.SAFETENSORS_BAD_ENTRY, path=path, tensor=name) from None
        numel = int(np.prod(shape)) if shape else 1
        if a < 0 or min(shape, default=0) < 0 or b - a != numel * itemsize:
            raise ModelError(
                messages.SAFETENSORS_TENSOR_SIZE, path=path, tensor=name, size=b - a, shape=shape, dtype=code
            )
        entries.append((name, code, shape, a, b))
    end = max((b for *_, b in entries), default=0)
    if start + end > size:
        raise ModelError(messages.SAFETENSORS_TRUNCATED, path=path, size=size, expected=start + end)
    data = np.memmap(path, dtype=np.uint8, mode="c", offset=start, shape=(end,)) if end else np.zeros(0, np.uint8)
    return [(name, code, shape, data[a:b]) for name, code, shape, a, b in entries]


def load_file_numpy(path: str | Path) -> dict[str, np.ndarray]:
    """Every tensor of one .safetensors file as a NumPy view of the mapped file (copy-on-write)."""
    arrays = {}
    for name, code, shape, raw in _raw_tensors(Path(path)):
        array = raw.view(DTYPES[code][0]).reshape(shape)
        arrays[name] = bfloat16(array) if code == "BF16" else array
    return arrays


def load_file(path: str | Path) -> dict[str, Any]:
    """Every tensor of one .safetensors file as torch tensors sharing the mapped bytes."""
    import torch

    return {
        name: torch.from_numpy(raw).view(getattr(torch, DTYPES[code][1])).reshape(shape)
        for name, code, shape, raw in _raw_tensors(Path(path))
    }


def checkpoint_files(folder: Path) -> list[Path]:
    """A release folder's weight files: `model.safetensors`, or the shards its index lists."""
    index = folder / INDEX_NAME
    if not index.is_file():
        paths = [folder / "model.safetensors"]
    else:
        try:
            weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
            shards = sorted({str(v) for v in weight_map.values()})
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ModelError(messages.SHARD_INDEX_UNREADABLE, path=index) from None
        paths = [folder / s for s in shards]
    for path in paths:
        if path.parent != folder:  # an index naming files elsewhere is not a release
            raise ModelError(messages.SHARD_OUTSIDE, path=index, shard=path.name)
        if not path.is_file():
            raise ModelError(messages.CHECKPOINT_FILE_MISSING, folder=folder, file=path.name)
    return paths


def load_checkpoint_arrays(folder: Path) -> tuple[dict[str, np.ndarray], list[Path]]:
    """All tensors of a release folder as NumPy views, and the files read."""
    paths = checkpoint_files(folder)
    state: dict[str, np.ndarray] = {}
    for path in paths:
        state.update(load_file_numpy(path))
    return state, paths


def load_checkpoint_tensors(folder: Path) -> tuple[dict[str, Any], list[Path]]:
    """All tensors of a release folder (`model.safetensors`, or the shards its index lists) and the files read."""
    paths = checkpoint_files(folder)
    state: dict[str, Any] = {}
    for path in paths:
        state.update(load_file(path))
    return state, paths
