"""engine.heap: the process's glibc heaps, shared by its threads (Linux with glibc only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.paths import APP, ROOT
from tingji.engine import heap

pytestmark = pytest.mark.skipif(heap._glibc("mallopt") is None, reason="glibc's malloc only (Linux)")

# Eight threads alive at once, each allocating from C (ctypes); then the process's thread heaps are
# counted (tests.support.heaps).
_SCRIPT = """
import ctypes, json, sys, threading
from tests.support.heaps import glibc_heaps
from tingji.engine import heap

def heaps():
    return len(glibc_heaps().keys() - {"main"})

if sys.argv[1] == "limit":
    assert heap.limit_heaps()
before = heaps()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
barrier = threading.Barrier(8)

def work():
    blocks = [libc.malloc(1000) for _ in range(100)]
    barrier.wait()
    for block in blocks:
        libc.free(block)

threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"before": before, "after": heaps()}))
"""


def _new_heaps(mode: str) -> int:
    path = [str(APP), str(ROOT), os.environ.get("PYTHONPATH")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path))}
    env.pop("MALLOC_ARENA_MAX", None)
    env.pop("GLIBC_TUNABLES", None)
    out = subprocess.run([sys.executable, "-c", _SCRIPT, mode], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    return seen["after"] - seen["before"]


def test_limit_heaps_makes_new_threads_share_the_heaps_there_are() -> None:
    """Each new thread used to get a heap of its own (glibc allows eight per core), and an unload left a few
    MB pinned in whichever heaps that load's threads had used (tests/gui/test_idle.py measures that)."""
    free, limited = _new_heaps("default"), _new_heaps("limit")
    print(f"\nnew heaps for eight threads: {free} by glibc's default, {limited} with limit_heaps")
    assert free >= 4  # the count sees them: one heap per thread, up to glibc's own limit
    assert limited <= heap.HEAPS - 1  # the main heap is one of the HEAPS
