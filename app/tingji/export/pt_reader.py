"""Reading a PyTorch `model.pt` without torch: its tensors as NumPy views of the mapped file, never code.

`torch.save` writes a zip: `<archive>/data.pkl` (a pickle of the object
tree, tensors as `torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, ...)` calls whose storages are persistent ids) and one uncompressed
member `<archive>/data/<key>` per storage. The file is mapped copy-on-write
(writes never reach it, as torch's `mmap=True`), each storage is an array at
its member's data offset and each tensor a view of its storage, so a 2 GB
checkpoint is not read into memory.

The pickle runs on the pure-Python `pickle._Unpickler` with its own
instruction table: only instructions torch's `weights_only=True` unpickler
knows (less NEWOBJ); `find_class` gives our own stand-ins for a subset of its
allowed globals and refuses anything else; calls, BUILD and item stores go
only where torch lets them; a persistent id must be a storage. Nothing from
torch is imported or called. The records torch's reader checks (version,
byteorder, storage sizes) are checked as it does, so every file torch refuses
is refused here too (tests/export/test_pt_reader.py holds the cases); some it
reads are refused as well (legacy format, big-endian, hooks, complex types).
bfloat16 stays a view with `ml_dtypes.bfloat16` when it is installed (onnx
brings it); else those tensors are widened to float32 copies.
"""

from __future__ import annotations

import math
import mmap
import pickle
import pickletools
import re
import struct
import zipfile
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING
from collections import OrderedDict
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Message, ModelError, first_line
from . import messages

try:
    import ml_dtypes

    BFLOAT16: np.dtype | None = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bfloat16 tensors become float32 copies
    BFLOAT16 = None

# Element types by torch's names; bfloat16 is read as its 16 bits until it is given its dtype.
_ELEMENTS = {
    "float64": "<f8", "float32": "<f4", "float16": "<f2", "bfloat16": "<u2", "int64": "<i8",
    "int32": "<i4", "int16": "<i2", "int8": "i1", "uint8": "u1", "bool": "?",
}  # fmt: skip
_STORAGES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16", "BFloat16Storage": "bfloat16",
    "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8",
    "ByteStorage": "uint8", "BoolStorage": "bool",
}  # fmt: skip
# A torch storage class or dtype this reader has no NumPy type for (complex, float8, quantized, ...).
_TORCH_TYPE = re.compile(r"torch\.(\w+Storage|(b?float|u?int|complex|c?double|bits|q?u?int)\w*|c?float|half|long)")
# torch's weights_only unpickler handles these; NEWOBJ is left out (torch.save never writes it).
_INSTRUCTIONS = (
    "PROTO STOP GLOBAL REDUCE BUILD APPEND APPENDS SETITEM SETITEMS MARK TUPLE TUPLE1 TUPLE2 TUPLE3 NONE "
    "NEWFALSE NEWTRUE EMPTY_TUPLE EMPTY_LIST EMPTY_DICT EMPTY_SET BININT BININT1 BININT2 BINFLOAT BINUNICODE "
    "SHORT_BINSTRING BINPERSID BINGET LONG_BINGET BINPUT LONG_BINPUT LONG1"
).split()
_VERSIONS = (1, 10)  # the zip format versions torch 2.13's reader takes
_LEGACY_MAGIC = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"  # pickled 0x1950a86a20f9469cfc6c


def bfloat16(bits: np.ndarray) -> np.ndarray:
    """bfloat16 values from their 16 bits: the same memory as `ml_dtypes.bfloat16`, else a float32 copy."""
    if BFLOAT16 is not None:
        return bits.view(BFLOAT16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


class _Refusal(Exception):
    """What is wrong, without the path: `read_pickle_tree` raises it as the ModelError."""

    def __init__(self, message: Message, **fields: Any) -> None:
        super().__init__(message.code)
        self.message, self.fields = message, fields


class _StateDict(OrderedDict):
    """`collections.OrderedDict` as unpickled (a state dict's `_metadata`, set by BUILD, is dropped)."""


class _Element:
    """The stand-in for a storage class (`torch.FloatStorage`) or a dtype (`torch.float32`): not callable."""

    def __init__(self, name: str, element: str, storage: bool) -> None:
        self.name, self.element, self.storage = name, element, storage

    def __repr__(self) -> str:
        return self.name


class _Storage:
    def __init__(self, key: str, element: str, data: np.ndarray) -> None:
        self.key, self.element, self.data = key, element, data


def _allowed_globals() -> dict[str, Any]:
    """Our stand-ins by the global's name: a subset of what torch's weights_only unpickler allows."""
    found: dict[str, Any] = {"collections.OrderedDict": _StateDict, "torch.Size": _size, "builtins.set": set}
    found["_codecs.encode"] = _bytes
    storages = {f"torch.{name}": element for name, element in _STORAGES.items()}
    storages["torch.storage.UntypedStorage"] = "uint8"
    found |= {name: _Element(name, element, True) for name, element in storages.items()}
    found |= {f"torch.{element}": _Element(f"torch.{element}", element, False) for element in _ELEMENTS}
    rebuild = (_rebuild_tensor_v2, _rebuild_parameter, _rebuild_parameter_with_state)
    return found | {f"torch._utils.{f.__name__}": f for f in rebuild}


def _size(dims: Any) -> tuple[int, ...]:
    if not isinstance(dims, (tuple, list)) or any(type(d) is not int for d in dims):
        raise _Refusal(messages.PT_MALFORMED, reason=f"torch.Size of {str(dims)[:40]}")
    return tuple(dims)


def _bytes(text: Any, encoding: Any) -> bytes:
    """How protocol 2 pickles bytes: `_codecs.encode(text, "latin1")`; no other codec is looked up."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise _Refusal(messages.PT_MALFORMED, reason=f"bytes in encoding {str(encoding)[:20]}")
    return text.encode("latin-1")


def _no_state(data: np.ndarray, requires_grad: Any, *parts: Any) -> None:
    """Hooks, metadata and state must be empty; only floating tensors require grad (torch refuses the rest)."""
    if any(p is not None and (not isinstance(p, dict) or p) for p in parts):
        raise _Refusal(messages.PT_TENSOR_STATE)
    if type(requires_grad) is not bool or requires_grad and not (data.dtype.kind == "f" or data.dtype == BFLOAT16):
        raise _Refusal(messages.PT_MALFORMED, reason=f"requires_grad {requires_grad!r} for {data.dtype}")


def _ints(values: Any) -> list[int]:
    if not isinstance(values, tuple) or any(type(v) is not int or v < 0 for v in values):
        raise _Refusal(messages.PT_MALFORMED, reason=f"sizes or strides {values!r}")
    return list(values)


def _rebuild_tensor_v2(storage: Any, offset: Any, size: Any, stride: Any, grad: Any, hooks: Any, meta: Any = None):
    if not isinstance(storage, _Storage) or type(offset) is not int or offset < 0:
        raise _Refusal(messages.PT_MALFORMED, reason="a tensor without its storage")
    size, stride, data = _ints(size), _ints(stride), storage.data
    if len(size) != len(stride):
        raise _Refusal(messages.PT_MALFORMED, reason=f"size {size} with stride {stride}")
    count = math.prod(size)
    needed = 0 if count == 0 else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > len(data):
        itemsize = data.dtype.itemsize
        raise _Refusal(messages.PT_STORAGE_SHORT, key=storage.key, size=len(data) * itemsize, needed=needed * itemsize)
    expected, contiguous = 1, True
    for n, s in zip(reversed(size), reversed(stride)):
        contiguous &= n == 1 or s == expected
        expected *= n
    if count == 0:
        array = data[:0].reshape(size)
    elif contiguous:
        array = data[offset : offset + count].reshape(size)
    else:
        step = [s * data.dtype.itemsize for s in stride]
        array = np.lib.stride_tricks.as_strided(data[offset:], shape=size, strides=step)
    array = bfloat16(array) if storage.element == "bfloat16" else array
    _no_state(array, grad, hooks, meta)
    return array


def _rebuild_parameter(data: Any, requires_grad: Any, hooks: Any) -> np.ndarray:
    if not isinstance(data, np.ndarray):
        raise _Refusal(messages.PT_MALFORMED, reason="a parameter that is not a tensor")
    _no_state(data, requires_grad, hooks)
    return data


def _rebuild_parameter_with_state(data: Any, requires_grad: Any, hooks: Any, state: Any) -> np.ndarray:
    array = _rebuild_parameter(data, requires_grad, hooks)
    _no_state(array, requires_grad, state)
    return array


class _Unpickler(pickle._Unpickler):  # the Python one: its instruction table can be replaced (`dispatch` below)
    def __init__(self, data: bytes, archive: _Archive) -> None:
        super().__init__(BytesIO(data), encoding="utf-8")
        self.archive, self.storages = archive, {}
        self.allowed = _allowed_globals()
        self.callables = [v for v in self.allowed.values() if not isinstance(v, _Element)]

    def find_class(self, module: str, name: str) -> Any:
        # torch.save pickles with protocol 2, which writes Python 2 names (`__builtin__`): map them back, as torch
        module, name = NAME_MAPPING.get((module, name), (IMPORT_MAPPING.get(module, module), name))
        full = f"{module}.{name}"
        if full in self.allowed:
            return self.allowed[full]
        raise _Refusal(messages.PT_DTYPE if _TORCH_TYPE.fullmatch(full) else messages.PT_GLOBAL, name=full)

    def persistent_load(self, pid: Any) -> _Storage:
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage"):
            raise _Refusal(messages.PT_MALFORMED, reason=f"persistent id {str(pid)[:80]}")
        _, element, key, location, numel = pid
        kinds = (type(key), type(location), type(numel))
        if not (isinstance(element, _Element) and element.storage) or kinds != (str, str, int) or numel < 0:
            raise _Refusal(messages.PT_MALFORMED, reason=f"storage {str(pid[1:])[:80]}")
        if key not in self.storages:
            self.storages[key] = _Storage(key, element.element, self.archive.storage(key, element.element, numel))
        return self.storages[key]

    def _reduce(self) -> None:
        args, func = self.stack.pop(), self.stack[-1]
        if not any(func is f for f in self.callables) or type(args) is not tuple:
            raise _Refusal(messages.PT_MALFORMED, reason=f"a call of {getattr(func, 'name', type(func).__name__)}")
        self.stack[-1] = func(*args)

    def _build(self) -> None:
        state = self.stack.pop()
        if type(self.stack[-1]) is not _StateDict or type(state) not in (dict, _StateDict):
            raise _Refusal(messages.PT_MALFORMED, reason=f"BUILD of {type(self.stack[-1]).__name__}")

    def _target(self, *kinds: type) -> Any:
        if type(self.stack[-1]) not in kinds:
            raise _Refusal(messages.PT_MALFORMED, reason=f"items added to {type(self.stack[-1]).__name__}")
        return self.stack[-1]

    def _append(self) -> None:
        item = self.stack.pop()
        self._target(list).append(item)

    def _appends(self) -> None:
        items = self.pop_mark()
        self._target(list).extend(items)

    def _setitem(self) -> None:
        value, key = self.stack.pop(), self.stack.pop()
        self._target(dict, _StateDict)[key] = value

    def _setitems(self) -> None:
        items = self.pop_mark()
        target = self._target(dict, _StateDict)
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]


class _Instructions(dict):
    def __missing__(self, opcode: int) -> Any:
        raise _Refusal(messages.PT_INSTRUCTION, opcode=_OPCODE_NAMES.get(opcode, f"0x{opcode:02x}"))


_OPCODE_NAMES = {ord(op.code): op.name for op in pickletools.opcodes}


def _instructions() -> _Instructions:
    own = {"REDUCE": "_reduce", "BUILD": "_build", "APPEND": "_append", "APPENDS": "_appends"}
    own |= {"SETITEM": "_setitem", "SETITEMS": "_setitems"}
    table = _Instructions()
    for name in _INSTRUCTIONS:
        code = getattr(pickle, name)[0]
        table[code] = getattr(_Unpickler, own[name]) if name in own else pickle._Unpickler.dispatch[code]
    return table


_Unpickler.dispatch = _instructions()


class _Archive:
    """The checkpoint mapped copy-on-write, and where each zip member's data lies in it."""

    def __init__(self, path: Path) -> None:
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(_LEGACY_MAGIC))
                if head.startswith(_LEGACY_MAGIC):
                    raise _Refusal(messages.PT_LEGACY)
                if not head.startswith(b"PK\x03\x04"):
                    raise _Refusal(messages.PT_NOT_ZIP)
                try:
                    with zipfile.ZipFile(fh) as archive:
                        infos = archive.infolist()
                except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
                    raise _Refusal(messages.PT_DAMAGED, reason=first_line(exc)) from None
                mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
        except OSError as exc:
            raise _Refusal(messages.WEIGHTS_UNREADABLE, reason=exc.strerror or first_line(exc)) from None
        self.members = {info.filename: info for info in infos}
        # As torch's reader: the archive's folder is the first member's.
        self.prefix = infos[0].filename.split("/", 1)[0] if infos else ""
        self.bytes = np.frombuffer(mapped, dtype=np.uint8)

    def member(self, name: str) -> np.ndarray | None:
        """The bytes of `<archive>/<name>` as a view of the mapping; None when there is no such member."""
        info = self.members.get(f"{self.prefix}/{name}")
        if info is None:
            return None
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 1:
            raise _Refusal(messages.PT_COMPRESSED, member=info.filename)
        at = info.header_offset
        head = self.bytes[max(at, 0) : at + 30].tobytes()
        if at < 0 or len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise _Refusal(messages.PT_DAMAGED, reason=f"no local header for {info.filename}")
        start = at + 30 + sum(struct.unpack("<HH", head[26:30]))
        if start + info.file_size > len(self.bytes):
            raise _Refusal(messages.PT_DAMAGED, reason=f"{info.filename} ends past the end of the file")
        return self.bytes[start : start + info.file_size]

    def record(self, name: str) -> bytes:
        data = self.member(name)
        if data is None:
            raise _Refusal(messages.PT_NO_RECORD, record=name)
        return data.tobytes()

    def check_records(self) -> None:
        """The small records torch's reader checks before the pickle, checked as it does."""
        version = self.record(".data/version" if ".data/version" in self else "version").strip()
        if not (version.isdigit() and _VERSIONS[0] <= int(version) <= _VERSIONS[1]):
            raise _Refusal(messages.PT_VERSION, version=version[:20].decode("ascii", "replace"))
        order = self.record("byteorder") if "byteorder" in self else b"little"
        if order != b"little":
            raise _Refusal(messages.PT_BYTEORDER, order=order[:20].decode("ascii", "replace"))
        if ".storage_alignment" in self and not self.record(".storage_alignment").strip().isdigit():
            raise _Refusal(messages.PT_DAMAGED, reason="unreadable .storage_alignment")

    def __contains__(self, name: str) -> bool:
        return f"{self.prefix}/{name}" in self.members

    def storage(self, key: str, element: str, numel: int) -> np.ndarray:
        """Storage `key`: `numel` elements of type `element`, a view of the mapping."""
        data = self.member(f"data/{key}")
        if data is None:
            raise _Refusal(messages.PT_STORAGE_MISSING, key=key)
        dtype = np.dtype(_ELEMENTS[element])
        if len(data) != numel * dtype.itemsize:  # as torch's reader: exactly what the pickle says
            raise _Refusal(messages.PT_STORAGE_SIZE, key=key, size=len(data), expected=numel * dtype.itemsize)
        return data.view(dtype)


def read_pickle_tree(path: Path) -> Any:
    """The object tree `torch.save` pickled into `path`, each tensor a NumPy view of the mapped file."""
    path = Path(path)
    try:
        archive = _Archive(path)
        archive.check_records()
        return _Unpickler(archive.record("data.pkl"), archive).load()
    except _Refusal as refusal:
        raise ModelError(refusal.message, path=path, **refusal.fields) from None
    except Exception as exc:  # a malformed pickle: a stack underflow, a call with the wrong arguments, ...
        raise ModelError(messages.PT_MALFORMED, path=path, reason=f"{type(exc).__name__}: {first_line(exc)}") from None


def read_state_dict(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a checkpoint file, keyed as the reference model names them (as torch_state.load_state_dict)."""
    return normalize_state(read_pickle_tree(path), Path(path))


def normalize_state(obj: Any, path: Path) -> dict[str, np.ndarray]:
    """Unwrap the usual containers and a DDP `module.` prefix, as funasr does; values that are no tensors go."""
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
        if not isinstance(value, np.ndarray):
            continue
        if isinstance(key, str) and key.startswith("module."):
            key = key[len("module.") :]
        state[key] = value
    return state
