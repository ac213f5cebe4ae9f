"""How many threads llama.cpp generates with, decided by watching token times.

llama.cpp's threads meet at a barrier after every operation of every token,
so when one of them is descheduled - by another program, by the GUI thread,
by audio capture, by a busy SMT sibling - all of them wait. Neither fixed
choice is right: all cores are fastest on an idle machine and far the
slowest on a busy one (benchmarks/README.md#llamacpps-thread-count-on-a-shared-machine).
Machine load is not a good predictor either: a niced background job barely
shows in the load figures while we run, yet still breaks the barriers.

So the decoder measures what it cares about. It generates on the thread count
that has been faster lately and every so often tries the other one for a few
tokens. A try that loses doubles the wait before the next (up to a minute), so
under sustained load the tries cost little; a try that wins switches at once.

Before any token is timed, the choice comes from what other programs did with
the cores while the model loaded (`BusyMeter`): all of them if nobody else
used them, one fewer otherwise. Starting low on an idle machine made the first
dictation after start pay a one-thread prefill and a probe.

The encoder's count lives here too (`default_threads`): ONNX Runtime does not
spin after a run, so it simply takes every usable core. NumPy's BLAS is the
one pool that does spin (`single_thread_blas`).
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


def physical_cores() -> int:
    """Physical cores among those this process may use (SMT siblings counted once)."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except AttributeError:  # Windows, macOS: no affinity call; assume 2-way SMT on x86
        n = os.cpu_count() or 1
        return n if platform.machine().lower() in ("arm64", "aarch64") or n <= 2 else n // 2
    cores = set()
    for cpu in allowed:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            cores.add(
                (topo.joinpath("physical_package_id").read_text().strip(), topo.joinpath("core_id").read_text().strip())
            )
        except OSError:
            cores.add(("?", str(cpu)))
    return max(1, len(cores))


def default_threads() -> int:
    """Cores this process may use, capped: ONNX Runtime's encoder scales to about 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def decoder_threads() -> int:
    """The safe fixed choice: physical cores minus one (at least one), at most 8."""
    return max(1, min(physical_cores() - 1, 8))


@dataclass
class ThreadTuner:
    """Chooses between `low` and `high` threads per generated token from measured token times."""

    low: int
    high: int
    probe_tokens: int = 4  # the first of a probe is dropped: the other thread count's warm-up
    min_gap_s: float = 2.0
    max_gap_s: float = 60.0
    margin: float = 0.05  # a probe must beat the current count by this fraction to win
    current: int = field(init=False)
    probes: int = field(init=False, default=0)
    switches: int = field(init=False, default=0)
    _ema: dict[int, float] = field(init=False, default_factory=dict)
    _samples: int = field(init=False, default=0)
    _gap_s: float = field(init=False)
    _next_probe_at: float | None = field(init=False, default=None)  # set by the first token's time
    _first_gap_s: float = field(init=False, default=0.0)
    _probe: list[float] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.current = self.low  # safe until measured: the cliff is on the high side
        self._gap_s = self.min_gap_s

    @classmethod
    def for_machine(cls, cores_free: bool = False) -> ThreadTuner | None:
        """A tuner between physical-1 and physical cores (at most 8); None on a single core.

        It starts on the low count unless `cores_free` (measured: see `BusyMeter`).
        """
        high = min(physical_cores(), 8)
        low = max(1, high - 1)
        if high <= low:
            return None
        tuner = cls(low=low, high=high)
        if cores_free:
            # Measured free: all cores, and the first probe of fewer after the usual gap
            # rather than within the first take (a 3 s take is ~12 tokens: a probe would be a third of it).
            tuner.current = high
            tuner._first_gap_s = tuner.min_gap_s
        return tuner

    @property
    def other(self) -> int:
        return self.high if self.current == self.low else self.low

    def next_threads(self, now: float) -> int:
        """Thread count for the next token."""
        if self._next_probe_at is None:
            self._next_probe_at = now + self._first_gap_s
        if self._probe is None and self._samples >= 4 and now >= self._next_probe_at:
            self._probe = []
        return self.other if self._probe is not None else self.current

    def record(self, threads: int, seconds: float, now: float) -> None:
        """The time one token took on `threads` threads."""
        if self._probe is not None and threads == self.other:
            self._probe.append(seconds)
            if len(self._probe) >= self.probe_tokens:
                self._finish_probe(now)
            return
        if threads != self.current:
            return
        old = self._ema.get(threads)
        self._ema[threads] = seconds if old is None else 0.7 * old + 0.3 * seconds
        self._samples += 1

    def _finish_probe(self, now: float) -> None:
        probe = sorted(self._probe[1:] or self._probe)
        median = probe[len(probe) // 2]
        self._probe = None
        self.probes += 1
        if median < self._ema[self.current] * (1 - self.margin):
            self._ema[self.other] = median
            self.current = self.other
            self.switches += 1
            self._samples = 0
            self._gap_s = self.min_gap_s
        else:
            self._gap_s = min(self._gap_s * 2, self.max_gap_s)
        self._next_probe_at = now + self._gap_s

    def summary(self) -> dict[str, object]:
        return {
            "current": self.current,
            "low": self.low,
            "high": self.high,
            "probes": self.probes,
            "switches": self.switches,
            "seconds_per_token": {k: round(v, 5) for k, v in self._ema.items()},
        }


def _cpu_seconds() -> tuple[float, float] | None:
    """(busy seconds of the CPUs this process may use, this process's own CPU seconds), or None.

    Linux: the per-CPU lines of /proc/stat for the CPUs in the affinity mask (a
    container sees the host's other CPUs there too). Windows: GetSystemTimes,
    all CPUs. Elsewhere there is no cheap system-wide figure without a new
    dependency, and None keeps the cautious start.
    """
    t = os.times()
    own = t.user + t.system
    if sys.platform.startswith("linux"):
        try:
            allowed = {f"cpu{n}" for n in os.sched_getaffinity(0)}
            busy = 0
            with open("/proc/stat", encoding="ascii") as f:
                for line in f:
                    fields = line.split()
                    if fields and fields[0] in allowed:
                        v = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
                        busy += sum(v) - v[3] - v[4]
            return busy / os.sysconf("SC_CLK_TCK"), own
        except (OSError, ValueError):
            return None
    if sys.platform == "win32":

        class FileTime(ctypes.Structure):
            _fields_ = [("low", ctypes.c_uint32), ("high", ctypes.c_uint32)]

        idle, kernel, user = FileTime(), FileTime(), FileTime()
        if not ctypes.windll.kernel32.GetSystemTimes(ctypes.byref(idle), ctypes.byref(kernel), ctypes.byref(user)):
            return None
        secs = [(ft.high << 32 | ft.low) / 1e7 for ft in (idle, kernel, user)]
        return secs[1] + secs[2] - secs[0], own  # kernel time includes idle time
    return None


class BusyMeter:
    """How many cores other programs kept busy since this meter was made.

    Made when a model starts loading and read when it is ready: loading takes
    about a second, long enough to see a compile or a video call, and costs
    nothing to watch.
    """

    def __init__(self) -> None:
        self._start = _cpu_seconds()
        self._t0 = time.monotonic()

    def others_cores(self) -> float | None:
        """Cores' worth of CPU time others used per second (None: unknown, or too short to tell)."""
        end = _cpu_seconds()
        wall = time.monotonic() - self._t0
        if self._start is None or end is None or wall < 0.2:
            return None
        busy, own = end[0] - self._start[0], end[1] - self._start[1]
        return max(0.0, busy - own) / wall

    def cores_free(self, threshold: float = 0.25) -> bool:
        others = self.others_cores()
        return others is not None and others < threshold


@functools.lru_cache(maxsize=1)
def single_thread_blas() -> bool:
    """Run NumPy's BLAS on one thread for the rest of the process; True when a BLAS was found and limited.

    The engine's only matrix products in NumPy are the front-ends' filter banks
    (a few MFLOP per take). OpenBLAS runs one that size on every core, and its
    workers then spin waiting for more - right through the encoder that
    follows, which loses a core (benchmarks/README.md#numpys-blas-on-one-thread-2026-11-26-amd-epyc-2-threads).
    MKL's OpenMP workers wait the same way. Called once per process, by the
    first `Engine` made with `tune_process=True`; other NumPy work in the
    process loses nothing it needs (no large products run beside the engine).
    """
    import numpy  # noqa: F401 - its BLAS must be loaded to be found

    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a declared dependency; a broken install only costs speed
        return False
    blas = ThreadpoolController().select(user_api="blas")
    blas.limit(limits=1)  # stays in force: nothing restores it
    return bool(blas.info())
