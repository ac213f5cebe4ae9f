"""Token embedding rows read straight from a decoder GGUF, as llama.cpp would look them up.

llama.cpp takes a batch of token ids or a batch of embedding rows, never
both, so a prompt of text, audio rows and text costs three `llama_decode`
calls. On the CPU each call streams every weight of the LLM once whatever
its row count; the two short text batches cost nearly as much as the audio
rows (benchmarks/README.md#the-decoders-context-and-prompt). With the text
tokens' own embedding rows in hand the whole prompt is one batch of rows.

The rows must be exactly the ones llama.cpp's `get_rows` produces, or the
one-batch prompt would compute something else than the token prompt. The
dequantisation below follows ggml's reference formulas operation by
operation in float32; tests compare a prompt fed as tokens and as these rows
through llama.cpp and require identical logits for every type the exporter
writes. A file whose table has another type gets `None` from `TokenRows.open`
and the decoder keeps feeding token batches.

Only the header is parsed (its string arrays skipped, not decoded) and
only the rows asked for are read, with
plain reads, so no second mapping of the weights adds to the resident set.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

TENSOR = "token_embd.weight"

# GGUF metadata value types -> size in bytes (8: string, 9: array, handled apart).
_SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


class _Header:
    """A growing view of the file's first bytes; reads more when a field runs past it."""

    def __init__(self, f) -> None:
        self._f = f
        self.buf = bytearray()

    def need(self, end: int) -> None:
        while len(self.buf) < end:
            more = self._f.read(max(1 << 20, end - len(self.buf)))
            if not more:
                raise ValueError("truncated GGUF header")
            self.buf += more

    def unpack(self, fmt: str, pos: int) -> tuple:
        self.need(pos + struct.calcsize(fmt))
        return struct.unpack_from(fmt, self.buf, pos)

    def skip_string(self, pos: int) -> int:
        (n,) = self.unpack("<Q", pos)
        return pos + 8 + n

    def string(self, pos: int) -> tuple[bytes, int]:
        end = self.skip_string(pos)
        self.need(end)
        return bytes(self.buf[pos + 8 : end]), end


def _find_tensor(path: Path, name: str) -> tuple[int, tuple[int, ...], int]:
    """(absolute data offset, dims, ggml type) of one tensor, from the GGUF header."""
    with open(path, "rb") as f:
        h = _Header(f)
        magic = h.unpack("<4s", 0)[0]
        if magic != b"GGUF":
            raise ValueError("not a GGUF file")
        _version, n_tensors, n_kv = h.unpack("<IQQ", 4)
        pos, alignment = 24, 32
        for _ in range(n_kv):
            key, pos = h.string(pos)
            (vtype,) = h.unpack("<I", pos)
            pos += 4
            if vtype == _STRING:
                pos = h.skip_string(pos)
            elif vtype == _ARRAY:
                itype, count = h.unpack("<IQ", pos)
                pos += 12
                if itype == _STRING:
                    for _ in range(count):
                        pos = h.skip_string(pos)
                else:
                    pos += _SCALAR_SIZES[itype] * count
            else:
                if key == b"general.alignment":
                    (alignment,) = h.unpack("<I", pos)
                pos += _SCALAR_SIZES[vtype]
        found = None
        for _ in range(n_tensors):
            tname, pos = h.string(pos)
            (n_dims,) = h.unpack("<I", pos)
            dims = h.unpack(f"<{n_dims}Q", pos + 4)
            ttype, offset = h.unpack("<IQ", pos + 4 + 8 * n_dims)
            pos += 4 + 8 * n_dims + 12
            if tname.decode("utf-8", "replace") == name:
                found = (offset, tuple(int(d) for d in dims), int(ttype))
        if found is None:
            raise ValueError(f"no tensor {name}")
        data_start = (pos + alignment - 1) // alignment * alignment
        return data_start + found[0], found[1], found[2]


# -- ggml's dequantisation, per block type -------------------------------------
# Each takes the raw bytes of n rows, shaped (n, blocks, block_bytes), and
# returns float32 (n, blocks * block_values).


def _f16(blocks: np.ndarray) -> np.ndarray:
    return blocks.reshape(-1).view("<f2").astype(np.float32)


def _f32(blocks: np.ndarray) -> np.ndarray:
    return blocks.reshape(-1).view("<f4").copy()


def _bf16(blocks: np.ndarray) -> np.ndarray:
    return (blocks.reshape(-1).view("<u2").astype(np.uint32) << 16).view(np.float32)


def _half(b: np.ndarray) -> np.ndarray:
    """Little-endian float16 fields (last axis: 2 bytes) as float32, keeping a trailing axis of 1."""
    return np.ascontiguousarray(b).view("<f2").astype(np.float32)


def _q8_0(b: np.ndarray) -> np.ndarray:
    d = _half(b[..., :2])
    q = b[..., 2:].view(np.int8).astype(np.float32)
    return d * q


def _k_scales(scales: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eight 6-bit (scale, min) pairs packed in a K-quant block's 12 bytes (ggml's get_scale_min_k4)."""
    s = scales.astype(np.uint8)
    lo = s[..., 0:4]
    mid = s[..., 4:8]
    hi = s[..., 8:12]
    sc = np.concatenate([lo & 63, (hi & 0xF) | ((lo >> 6) << 4)], axis=-1)
    mn = np.concatenate([mid & 63, (hi >> 4) | ((mid >> 6) << 4)], axis=-1)
    return sc.astype(np.float32), mn.astype(np.float32)


def _q4_k(b: np.ndarray) -> np.ndarray:
    d, dmin = _half(b[..., 0:2]), _half(b[..., 2:4])
    sc, mn = _k_scales(b[..., 4:16])
    qs = b[..., 16:144].reshape(*b.shape[:-1], 4, 32)  # 4 groups of 32 bytes, each two sub-blocks
    q = np.stack([qs & 0xF, qs >> 4], axis=-2).reshape(*b.shape[:-1], 8, 32).astype(np.float32)
    scale = (d * sc)[..., None]
    low = (dmin * mn)[..., None]
    return (scale * q - low).reshape(*b.shape[:-1], 256)


def _q5_k(b: np.ndarray) -> np.ndarray:
    d, dmin = _half(b[..., 0:2]), _half(b[..., 2:4])
    sc, mn = _k_scales(b[..., 4:16])
    qh = b[..., 16:48]  # bit 2j / 2j+1 of byte l: the high bit of sub-block 2j / 2j+1, value l
    qs = b[..., 48:176].reshape(*b.shape[:-1], 4, 32)
    low4 = np.stack([qs & 0xF, qs >> 4], axis=-2).reshape(*b.shape[:-1], 8, 32)
    bits = np.arange(8, dtype=np.uint8).reshape(8, 1)
    high = ((qh[..., None, :] >> bits) & 1) << 4
    q = (low4 | high).astype(np.float32)
    scale = (d * sc)[..., None]
    low = (dmin * mn)[..., None]
    return (scale * q - low).reshape(*b.shape[:-1], 256)


def _q6_k(b: np.ndarray) -> np.ndarray:
    ql = b[..., 0:128].reshape(*b.shape[:-1], 2, 64)  # per half of 128 values
    qh = b[..., 128:192].reshape(*b.shape[:-1], 2, 32)
    sc = b[..., 192:208].view(np.int8).astype(np.float32).reshape(*b.shape[:-1], 2, 8)
    d = _half(b[..., 208:210])[..., None]
    # Within a half: values 0-31 from ql[0:32] low nibbles, 32-63 from ql[32:64] low,
    # 64-95 from ql[0:32] high, 96-127 from ql[32:64] high; qh bits 0-1, 2-3, 4-5, 6-7.
    lo = np.concatenate([ql[..., 0:32] & 0xF, ql[..., 32:64] & 0xF, ql[..., 0:32] >> 4, ql[..., 32:64] >> 4], axis=-1)
    shifts = np.repeat(np.array([0, 2, 4, 6], dtype=np.uint8), 32)
    hi = ((np.tile(qh, 4) >> shifts) & 3) << 4
    q = ((lo | hi).astype(np.int16) - 32).astype(np.float32)
    scale = d * sc  # (..., 2, 8): one scale per 16 values
    return (np.repeat(scale, 16, axis=-1) * q).reshape(*b.shape[:-1], 256)


# ggml type id -> (values per block, bytes per block, dequantiser)
_TYPES: dict[int, tuple[int, int, Callable[[np.ndarray], np.ndarray]]] = {
    0: (1, 4, _f32),
    1: (1, 2, _f16),
    8: (32, 34, _q8_0),
    12: (256, 144, _q4_k),
    13: (256, 176, _q5_k),
    14: (256, 210, _q6_k),
    30: (1, 2, _bf16),
}


class TokenRows:
    """The embedding table of one GGUF, read a row at a time and dequantised as ggml does."""

    def __init__(self, path: Path, offset: int, width: int, n_rows: int, ggml_type: int) -> None:
        self.path = path
        self.width = width
        self.n_rows = n_rows
        self._offset = offset
        values, nbytes, self._dequant = _TYPES[ggml_type]
        self._blocks = width // values
        self._block_bytes = nbytes
        self._row_bytes = self._blocks * nbytes
        self._cache: dict[int, np.ndarray] = {}

    @classmethod
    def open(cls, path: str | os.PathLike[str], width: int) -> TokenRows | None:
        """The table, or None when the file's table cannot be read exactly (the caller feeds token ids)."""
        path = Path(path)
        try:
            offset, dims, ggml_type = _find_tensor(path, TENSOR)
        except (OSError, ValueError, KeyError, struct.error):
            return None
        if ggml_type not in _TYPES or len(dims) != 2 or dims[0] != width:
            return None
        if width % _TYPES[ggml_type][0]:
            return None
        return cls(path, offset, width, dims[1], ggml_type)

    def rows(self, ids: Sequence[int]) -> np.ndarray:
        """float32 [len(ids), width]; rows are kept once read (a prompt reuses the same few ids)."""
        missing = sorted({int(i) for i in ids if int(i) not in self._cache})
        if missing:
            if any(i < 0 or i >= self.n_rows for i in missing):
                raise IndexError("token id outside the embedding table")
            raw = bytearray()
            with open(self.path, "rb", buffering=0) as f:
                for i in missing:
                    f.seek(self._offset + i * self._row_bytes)
                    chunk = f.read(self._row_bytes)
                    if len(chunk) != self._row_bytes:
                        raise OSError("short read of the embedding table")
                    raw += chunk
            blocks = np.frombuffer(bytes(raw), np.uint8).reshape(len(missing), self._blocks, self._block_bytes)
            values = self._dequant(blocks).reshape(len(missing), self.width).astype(np.float32)
            for i, row in zip(missing, values):
                self._cache[i] = row
        if not len(ids):
            return np.zeros((0, self.width), np.float32)
        return np.stack([self._cache[int(i)] for i in ids])
