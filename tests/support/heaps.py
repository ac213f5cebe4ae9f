"""glibc's heaps as /proc/self/smaps shows them (Linux): for tests/engine/test_heap.py and benchmarks/exp_heaps.py,
in the processes they start."""

from __future__ import annotations

import ctypes

THREAD_HEAP_ALIGN = 64 << 20  # glibc's HEAP_MAX_SIZE: each thread heap is an anonymous mapping aligned to it
_MPROTECT_SIZE_AT = 3 * ctypes.sizeof(ctypes.c_size_t)  # heap_info's fourth word: the bytes made read-write


def _is_thread_heap(low: int, high: int, perms: str) -> bool:
    """Whether the anonymous mapping at `low` is a glibc thread heap. Other mappings land on a 64 MB boundary now
    and then (a thread's 8 MB stack did in about 1 run in 100), so the boundary alone is not proof: a heap begins
    with glibc's heap_info, whose arena pointer is set and whose mprotect_size is this read-write mapping's
    length."""
    if low % THREAD_HEAP_ALIGN or not perms.startswith("rw"):
        return False
    arena = ctypes.c_size_t.from_address(low).value
    return arena != 0 and ctypes.c_size_t.from_address(low + _MPROTECT_SIZE_AT).value == high - low


def glibc_heaps() -> dict[str, float]:
    """Resident MB of each glibc heap of this process: "main" (the `[heap]` mapping) and each thread heap by its
    start address in hex."""
    heaps: dict[str, float] = {}
    current = None
    with open("/proc/self/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's header line
                low, high = (int(end, 16) for end in fields[0].split("-"))
                if fields[-1] == "[heap]":
                    current = "main"
                elif len(fields) == 5 and _is_thread_heap(low, high, fields[1]):
                    current = f"{low:x}"
                else:
                    current = None
            elif fields[0] == "Rss:" and current is not None:
                heaps[current] = heaps.get(current, 0.0) + int(fields[1]) / 1024
    return heaps
