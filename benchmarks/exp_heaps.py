#!/usr/bin/env python3
"""What the app's idle unloads leave behind, per glibc heap (Linux with glibc only).

    python benchmarks/exp_heaps.py MODEL_FOLDER --runs 4 --side-by-side 2
    python benchmarks/exp_heaps.py MODEL_FOLDER --no-limit      # threads make heaps of their own

Runs the script of tests/gui/test_idle.py (the real window; a short file, a
long one, the short one again, each transcribed and then unloaded) in fresh
processes, `--side-by-side` of them at a time as the test suite's workers do,
and records at each step the resident set, glibc's own accounting
(`mallinfo2`: bytes in use, bytes free inside its heaps) and the resident
pages of each glibc heap. Prints, per run, what the second and third unloads
left beyond the first. `--no-limit` makes `heap.limit_heaps` a no-op in the
child, as before it existed. The audio is espeak-ng speech, as in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, emit_json  # noqa: E402

# Replaces the test script's rss_mb: the same figure, plus glibc's view and each heap's resident pages.
_PROBE = """
import ctypes
from tests.support.heaps import glibc_heaps
_NAMES = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
class _Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in _NAMES.split()]
_libc = ctypes.CDLL(None)
_libc.mallinfo2.restype = _Info
STEPS = []
def rss_mb():
    info = _libc.mallinfo2()
    STEPS.append({"in_use_mb": info.uordblks / 2**20, "free_in_heaps_mb": info.fordblks / 2**20,
                  "heaps_mb": glibc_heaps()})
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))
"""

# Before the script's own first call of limit_heaps: HEAPS 0 is mallopt's "glibc's default".
_NO_LIMIT = """import os
if os.environ.get("TINGJI_NO_HEAP_LIMIT"):
    import tingji.engine.heap
    tingji.engine.heap.HEAPS = 0
"""


def child_script() -> str:
    from tests.gui.test_idle import _RSS_SCRIPT

    start, end = _RSS_SCRIPT.index("def rss_mb():"), _RSS_SCRIPT.index("def wait(done):")
    script = _RSS_SCRIPT[:start] + _PROBE + _RSS_SCRIPT[end:]
    return _NO_LIMIT + script.replace("print(json.dumps(sizes))", "print(json.dumps({'sizes': sizes, 'steps': STEPS}))")


def one_run(model: Path, files: list[Path], limit: bool, home: Path) -> dict:
    env = {
        **os.environ,
        "TINGJI_HOME": str(home),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), str(ROOT)]),
    }
    env.pop("DISPLAY", None)
    env.pop("MALLOC_ARENA_MAX", None)
    if not limit:
        env["TINGJI_NO_HEAP_LIMIT"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", child_script(), str(model), *map(str, files)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    sizes = seen["sizes"]
    first = sizes["unloaded1"]
    names = list(sizes)
    steps = dict(zip(names, seen["steps"]))
    return {
        "left_after_unload_mb": {n: round(sizes[n] - first, 2) for n in ("unloaded2", "unloaded3")},
        "long_file_added_mb": round(sizes["loaded2"] - first, 2),
        "heaps_at_last_unload": len(steps["unloaded3"]["heaps_mb"]),
        "in_use_at_unloads_mb": [round(steps[n]["in_use_mb"], 2) for n in ("unloaded1", "unloaded2", "unloaded3")],
        "sizes_mb": {k: round(v, 2) for k, v in sizes.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--side-by-side", type=int, default=2)
    ap.add_argument("--no-limit", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    import numpy as np

    from tests.support.audio import espeak, write_wav
    from tests.support.gui import long_speech

    work = Path(tempfile.mkdtemp(prefix="tingji-heaps-"))
    speech = espeak(work / "en.wav", "Hello world. This is a test of the speech recognizer, one two three four five.")
    short = write_wav(work / "short.wav", np.asarray(speech))
    long = long_speech(work / "long.wav", speech)
    files = [short, long, short]
    with ThreadPoolExecutor(args.side_by_side) as pool:
        runs = list(
            pool.map(
                lambda n: one_run(args.model, files, not args.no_limit, work / f"home{n}"),
                range(args.runs * args.side_by_side),
            )
        )
    emit_json({"heaps_limited": not args.no_limit, "side_by_side": args.side_by_side, "runs": runs}, args.json)


if __name__ == "__main__":
    main()
