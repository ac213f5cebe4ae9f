"""Handing freed C heap back to the operating system.

glibc keeps memory that native code frees (ONNX Runtime's shrunk arena,
llama.cpp's KV caches and compute buffers) in its heaps whenever the block
was below its mmap threshold - and that threshold rises to the size of the
largest block freed so far (up to 32 MB), so after the first freed KV cache
the next one of that size comes from a heap too. Freed, it stays resident
until something trims. `release_free_heap` is that trim; the engine calls
it where it has just freed something large, the app after unloading a model.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from typing import Callable


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim where the C library has one (Linux); None elsewhere (Windows, macOS, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def release_free_heap() -> None:
    """Give the C heaps' free pages back to the system (malloc_trim(0): about 1 ms); a no-op elsewhere."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
