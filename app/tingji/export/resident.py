"""Handing back the pages of checkpoint tensors a conversion has finished with.

Checkpoint tensors are memory-mapped views of the file (`pt_reader`, `safetensors_file`). Every
page a conversion reads stays mapped into the process - counted in its resident memory - until the
mapping goes, which is at the end: converting Qwen3-ASR-1.7B reads 4 GB of weights that way. Once
a tensor is written out in its new form, `release` asks the kernel to page its range out
(Linux's MADV_PAGEOUT). The file's clean pages are simply dropped and read again if touched, and
anything else is swapped, never discarded, so no value can change. Elsewhere (or on a kernel
without it) this does nothing, and the pages go when the mapping does.
"""

from __future__ import annotations

import ctypes
import mmap
import sys
from collections.abc import Iterable

import numpy as np

MADV_PAGEOUT = 21  # Linux 5.4+
_madvise = None


def _libc_madvise():
    global _madvise
    if _madvise is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
            libc.madvise.restype = ctypes.c_int
            _madvise = libc.madvise
        except (OSError, AttributeError):
            _madvise = False
    return _madvise


def release(arrays: Iterable[np.ndarray]) -> None:
    """Page out the memory of `arrays` (views of a mapped checkpoint), whole pages only; best effort."""
    if not sys.platform.startswith("linux"):
        return
    madvise = _libc_madvise()
    if not madvise:
        return
    page = mmap.PAGESIZE
    for array in arrays:
        if not isinstance(array, np.ndarray) or array.nbytes < page or not _mapped(array):
            continue
        start = array.ctypes.data
        first = -(-start // page) * page  # pages wholly inside the tensor: its neighbours may be in use
        last = (start + array.nbytes) // page * page
        if last > first:
            madvise(first, last - first, MADV_PAGEOUT)  # an error (EINVAL on an old kernel) changes nothing


def _mapped(array: np.ndarray) -> bool:
    """Whether `array` views a memory-mapped file (anything else would be swapped out, not dropped)."""
    base = array
    while base is not None:
        if isinstance(base, (mmap.mmap, np.memmap)):
            return True
        base = getattr(base, "base", None) if isinstance(base, np.ndarray) else getattr(base, "obj", None)
    return False
