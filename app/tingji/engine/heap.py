"""Handing freed C heap back to the operating system.

glibc keeps memory that native code frees (ONNX Runtime's shrunk arena,
llama.cpp's KV caches and compute buffers) in its heaps whenever the block
was below its mmap threshold - and that threshold rises to the size of the
largest block freed so far (up to 32 MB), so after the first freed KV cache
the next one of that size comes from a heap too. Freed, it stays resident
until something trims. `release_free_heap` is that trim; the engine calls
it where it has just freed something large, the app after unloading a model.

Trimming only returns whole free pages, though: a large block freed inside a
heap leaves pages pinned by whatever small live blocks sit between, and each
thread that allocated (ONNX Runtime's, llama.cpp's, the app's workers) has a
heap of its own, so load-transcribe-close cycles kept growing the process.
So the engine fixes the mmap threshold once it has loaded (`map_large_blocks`):
blocks of 4 MB and more - arena extensions, KV caches, compute buffers, a
window's feature arrays - then get pages of their own and go back whole when
freed. Not before the first load: building the ONNX Runtime sessions
allocates and frees many large blocks, and serving them from fresh mappings
made the start slower, where the heap hands the same pages round again
(benchmarks/README.md#load-and-unload-again-and-again-2026-11-25-amd-epyc-2-threads).
Smaller blocks are still served by the heaps, so the per-window churn of
small arrays costs no system calls.

Each heap's own fragmentation remains, and glibc gives a process up to
eight heaps per core, a new one for each new thread while it may. Each
load starts new threads, so an unload still left a few MB behind in
whichever heaps that load's threads had used. `limit_heaps`, called as the
`tingji` programs start, stops glibc at `HEAPS` heaps: the same small live
blocks then pin pages in fewer places. The engine's hot loops allocate from
ONNX Runtime's arena and llama.cpp's buffers, not malloc, so the threads
hardly queue on the shared heaps' locks.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable


@functools.cache
def _glibc(name: str) -> Callable[..., int] | None:
    """A glibc allocator function (`malloc_trim`, `mallopt`) where the C library has it (Linux);
    None elsewhere (Windows, macOS, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):  # not glibc
        return None


LARGE_BLOCK = 4 << 20  # bytes: blocks this big and larger are mapped on their own
HEAPS = 2  # glibc heaps (arenas) for the whole process, the main one included
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter numbers (malloc.h)
_M_ARENA_MAX = -8


@functools.lru_cache(maxsize=1)
def limit_heaps() -> bool:
    """Stop glibc making more than `HEAPS` heaps: later threads share the ones there are.

    glibc settles its own limit (eight heaps per core) once a process has
    more than eight heaps, so this works when called before that; it does
    most when called before any thread starts. Called first by the
    `tingji` programs (`cli.main`), then by the first `Engine` made with
    `tune_process=True`, before it loads. True when it took effect, False
    where the C library is not glibc.
    """
    mallopt = _glibc("mallopt")
    return mallopt is not None and mallopt(_M_ARENA_MAX, HEAPS) == 1


@functools.lru_cache(maxsize=1)
def map_large_blocks() -> bool:
    """Serve blocks of `LARGE_BLOCK` bytes or more from their own mappings, for the life of the process.

    Fixing the threshold also stops glibc raising it to the largest block
    freed so far, which is what let a freed KV cache's successor land in a
    heap. Called once per process (by the first `Engine` made with `tune_process=True`, once loaded); True
    when it took effect, False where the C library is not glibc.
    """
    mallopt = _glibc("mallopt")
    return mallopt is not None and mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK) == 1


def release_free_heap() -> None:
    """Give the C heaps' free pages back to the system (`malloc_trim(0)`, cheap); a no-op elsewhere."""
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim(0)
