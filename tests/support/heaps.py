"""glibc's heaps as /proc/self/smaps shows them (Linux): for tests/engine/test_heap.py and benchmarks/exp_heaps.py,
in the processes they start."""

from __future__ import annotations

THREAD_HEAP_ALIGN = 64 << 20  # glibc's HEAP_MAX_SIZE: each thread heap is an anonymous mapping aligned to it


def glibc_heaps() -> dict[str, float]:
    """Resident MB of each glibc heap of this process: "main" (the `[heap]` mapping) and each thread heap by its
    start address in hex. Only glibc makes anonymous mappings at a 64 MB boundary in these processes."""
    heaps: dict[str, float] = {}
    current = None
    with open("/proc/self/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's header line
                low = int(fields[0].split("-")[0], 16)
                if fields[-1] == "[heap]":
                    current = "main"
                elif len(fields) == 5 and low % THREAD_HEAP_ALIGN == 0:
                    current = f"{low:x}"
                else:
                    current = None
            elif fields[0] == "Rss:" and current is not None:
                heaps[current] = heaps.get(current, 0.0) + int(fields[1]) / 1024
    return heaps
