"""Decoder weights mapped in 2 MB pages (Linux): every generated token streams all of them.

llama.cpp maps the GGUF file and reads every weight once per generated
token; in 4 KB pages that is one page-table entry per 4 KB of weights (2.4 MB
of entries for a 1.2 GB decoder, more than a core's L2 holds, and in a virtual
machine each miss is a two-level walk). The kernel maps a file with 2 MB
pages only where its page cache holds 2 MB folios, and whether it does
depends on how the pages got there: written by the exporter or copied in
small writes they are small; faulted in through a mapping advised
MADV_HUGEPAGE they are read in 2 MB folios.

The 1.7B decoder generates faster in 2 MB pages; the 0.6B ones, whose
entries stay cached, do not change (benchmarks/README.md#decoder-weights-in-2-mb-pages).

So before llama.cpp maps a decoder, `map_in_large_pages` maps it once
itself, advised MADV_HUGEPAGE, and faults it in. Pages already cached in 2 MB
folios are only mapped (milliseconds); a file cached in small folios is
dropped from the cache and read again (once: the new folios stay cached for
later loads), after a 2 MB trial read shows that the
file system gives large folios at all. Nothing changes in what is computed,
only how the same bytes are mapped; the resident size is the same.
Elsewhere (Windows, macOS, THP off, old kernels) it does nothing.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HUGE = 2 << 20  # bytes in a PMD-mapped page on x86-64 and arm64 (4 KB base pages)
MIN_FILE = 4 * HUGE  # smaller files have too few whole 2 MB blocks to matter
GOOD = 0.9  # a file this much in 2 MB pages is left as it is
# Linux's values (x86-64 and arm64); Python's mmap module lacks PROT_NONE and MAP_FIXED before 3.13.
_PROT_NONE, _PROT_READ = 0, 1
_MAP_SHARED, _MAP_PRIVATE, _MAP_FIXED, _MAP_ANONYMOUS = 0x01, 0x02, 0x10, 0x20
_MADV_HUGEPAGE = 14
_MADV_POPULATE_READ = 22  # Linux 5.14+
_THP_MODE = Path("/sys/kernel/mm/transparent_hugepage/enabled")


@dataclass(frozen=True)
class LargePages:
    """What `map_in_large_pages` found and did (fractions of the file's whole 2 MB blocks)."""

    before: float
    after: float
    action: str  # "kept" (already), "reread", "unsupported" (the trial read gave small folios)
    seconds: float


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        return libc
    except (OSError, AttributeError):
        return None


def thp_enabled() -> bool:
    """Transparent huge pages may back an advised mapping ("[always]" or "[madvise]")."""
    try:
        return "[never]" not in _THP_MODE.read_text()
    except OSError:
        return False


def _pmd_mapped_kb(start: int) -> int:
    """FilePmdMapped of this process's mapping that starts at `start` (0 if not found)."""
    head = f"{start:x}-"
    found = False
    with open("/proc/self/smaps", encoding="ascii", errors="replace") as smaps:
        for line in smaps:
            if found and line.startswith("FilePmdMapped:"):
                return int(line.split()[1])
            if "-" in line.split(" ", 1)[0]:
                if found:
                    return 0
                found = line.startswith(head)
    return 0


def _map_and_fault(libc: ctypes.CDLL, fd: int, offset: int, length: int) -> float:
    """Map file bytes [offset, offset+length) 2 MB-aligned, advised MADV_HUGEPAGE, fault them in;
    the fraction of them then mapped in 2 MB pages. `offset` and `length` are multiples of HUGE."""
    reserve = libc.mmap(None, length + HUGE, _PROT_NONE, _MAP_PRIVATE | _MAP_ANONYMOUS, -1, 0)
    if reserve in (None, ctypes.c_void_p(-1).value):
        return 0.0
    try:
        start = (reserve + HUGE - 1) & ~(HUGE - 1)
        addr = libc.mmap(start, length, _PROT_READ, _MAP_SHARED | _MAP_FIXED, fd, offset)
        if addr != start:
            return 0.0
        libc.madvise(start, length, _MADV_HUGEPAGE)
        if libc.madvise(start, length, _MADV_POPULATE_READ) != 0:  # an older kernel: touch every page
            import numpy as np

            view = (ctypes.c_uint8 * length).from_address(start)
            int(np.frombuffer(view, np.uint8)[:: mmap.PAGESIZE].sum())
        return _pmd_mapped_kb(start) * 1024 / length
    finally:
        libc.munmap(reserve, length + HUGE)


def map_in_large_pages(path: str | os.PathLike[str]) -> LargePages | None:
    """Leave `path`'s page cache in 2 MB folios where the system allows it; None where it cannot.

    Call before the file is mapped for use: pages another mapping holds are
    not dropped from the cache, and llama.cpp's own mapping takes whatever
    folios the cache holds when it faults them in.
    """
    libc = _libc()
    if libc is None or not thp_enabled():
        return None
    t0 = time.perf_counter()
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        whole = os.fstat(fd).st_size // HUGE * HUGE
        if whole < MIN_FILE:
            return None
        before = _map_and_fault(libc, fd, 0, whole)
        if before >= GOOD:
            return LargePages(before, before, "kept", time.perf_counter() - t0)
        # Dirty pages are not dropped (a file the exporter has just written): write them first.
        os.fdatasync(fd)
        # A trial on one 2 MB block: a file system without large folios would otherwise pay a
        # full re-read on every load for nothing.
        os.posix_fadvise(fd, HUGE, HUGE, os.POSIX_FADV_DONTNEED)
        if _map_and_fault(libc, fd, HUGE, HUGE) < 1.0:
            return LargePages(before, before, "unsupported", time.perf_counter() - t0)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        after = _map_and_fault(libc, fd, 0, whole)
        return LargePages(before, after, "reread", time.perf_counter() - t0)
    finally:
        os.close(fd)
