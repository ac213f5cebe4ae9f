"""Reading `.safetensors` checkpoints: a JSON header and raw little-endian arrays, nothing executable.

transformers-style releases (Qwen3-ASR) ship their weights this way, one
file or several shards listed by `model.safetensors.index.json`. The format
cannot carry code, but a download can be cut short or damaged, so every
offset is checked against the file's real size before anything is read, and
a bad file is one `ModelError` line naming it. Tensors are memory-mapped
(copy-on-write, never written back), so a 4 GB checkpoint is not read into
memory at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from ..errors import ModelError
from . import messages

DTYPES = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
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


def load_file(path: str | Path) -> dict[str, torch.Tensor]:
    """Every tensor of one .safetensors file, checked against the file's size."""
    path = Path(path)
    size = path.stat().st_size
    header, start = _header(path, size)
    entries = []
    for name, info in header.items():
        try:
            dtype = DTYPES[info["dtype"]]
            shape = [int(d) for d in info["shape"]]
            a, b = (int(v) for v in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ModelError(messages.SAFETENSORS_BAD_ENTRY, path=path, tensor=name) from None
        numel = int(np.prod(shape)) if shape else 1
        if a < 0 or b - a != numel * dtype.itemsize:
            raise ModelError(
                messages.SAFETENSORS_TENSOR_SIZE, path=path, tensor=name, size=b - a, shape=shape, dtype=info["dtype"]
            )
        entries.append((name, dtype, shape, a, b))
    end = max((b for *_, b in entries), default=0)
    if start + end > size:
        raise ModelError(messages.SAFETENSORS_TRUNCATED, path=path, size=size, expected=start + end)
    if end == 0:
        return {name: torch.zeros(shape, dtype=dtype) for name, dtype, shape, _, _ in entries}
    data = np.memmap(path, dtype=np.uint8, mode="c", offset=start, shape=(end,))
    return {name: torch.from_numpy(data[a:b]).view(dtype).reshape(shape) for name, dtype, shape, a, b in entries}


def load_checkpoint_tensors(folder: Path) -> tuple[dict[str, torch.Tensor], list[Path]]:
    """All tensors of a release folder (`model.safetensors`, or the shards its index lists) and the files read."""
    index = folder / INDEX_NAME
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
            shards = sorted({str(v) for v in weight_map.values()})
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ModelError(messages.SHARD_INDEX_UNREADABLE, path=index) from None
        paths = [folder / s for s in shards]
    else:
        paths = [folder / "model.safetensors"]
    state: dict[str, torch.Tensor] = {}
    for path in paths:
        if path.parent != folder:  # an index naming files elsewhere is not a release
            raise ModelError(messages.SHARD_OUTSIDE, path=index, shard=path.name)
        if not path.is_file():
            raise ModelError(messages.CHECKPOINT_FILE_MISSING, folder=folder, file=path.name)
        state.update(load_file(path))
    return state, paths
