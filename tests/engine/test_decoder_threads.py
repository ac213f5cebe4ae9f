"""llama.cpp's thread count, tuned per token from measured token times (tingji.engine.threads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support.paths import APP
from tingji.engine import threads
from tingji.engine.threads import BusyMeter, ThreadTuner


def _drive(
    tuner: ThreadTuner, seconds_per_token: dict[int, float], tokens: int, now: float = 0.0
) -> tuple[list[int], float]:
    """Generate `tokens` tokens on a simulated machine; returns the thread count used for each."""
    used = []
    for _ in range(tokens):
        n = tuner.next_threads(now)
        now += seconds_per_token[n]
        tuner.record(n, seconds_per_token[n], now)
        used.append(n)
    return used, now


def test_busy_machine_stays_on_fewer_threads_and_probes_back_off() -> None:
    tuner = ThreadTuner(low=1, high=2)
    # One core busy elsewhere: two threads collapse (measured: 28 vs 1.4 tokens/s).
    used, elapsed = _drive(tuner, {1: 1 / 28, 2: 1 / 1.4}, 3000)
    assert tuner.current == 1 and tuner.switches == 0
    slow = used.count(2)
    assert slow == tuner.probes * tuner.probe_tokens
    # Back-off: over ~2.6 minutes of generation only a handful of probes ran.
    assert 2 <= tuner.probes <= 8, tuner.probes
    ideal = 3000 / 28
    assert elapsed < ideal * 1.25, (elapsed, ideal)  # the probes cost under a quarter


def test_idle_machine_moves_to_more_threads() -> None:
    tuner = ThreadTuner(low=1, high=2)
    used, _ = _drive(tuner, {1: 1 / 29, 2: 1 / 42}, 400)
    assert tuner.current == 2 and tuner.switches == 1
    assert used[-100:].count(2) >= 96  # settled, apart from probes of the other count


def test_follows_the_machine_when_load_comes_and_goes() -> None:
    tuner = ThreadTuner(low=1, high=2)
    _, now = _drive(tuner, {1: 1 / 29, 2: 1 / 42}, 400)
    assert tuner.current == 2
    # Load arrives: the current count becomes slow; the next probe of 1 thread wins.
    _, now = _drive(tuner, {1: 1 / 28, 2: 1 / 1.4}, 200, now)
    assert tuner.current == 1
    # Load leaves: back to two threads within the longest probe gap.
    used, _ = _drive(tuner, {1: 1 / 29, 2: 1 / 42}, int(tuner.max_gap_s * 29 * 1.5) + 200, now)
    assert tuner.current == 2


def test_single_core_machine_has_no_tuner(monkeypatch) -> None:
    monkeypatch.setattr(threads, "physical_cores", lambda: 1)
    assert ThreadTuner.for_machine() is None
    assert threads.decoder_threads() == 1


@pytest.mark.load_sensitive
def test_switching_threads_mid_generation_keeps_the_tokens(tiny_model: Path) -> None:
    """A tuned decoder (forced to switch often) generates exactly what a fixed one does."""
    from tingji.engine.decoder import open_decoder
    from tingji.engine.generation import DecodeOptions
    from tingji.engine.manifest import load_manifest

    gguf = tiny_model / load_manifest(tiny_model).files["decoder"].path
    fixed = open_decoder(gguf, eos_ids=[], n_threads=1)
    tuned = open_decoder(gguf, eos_ids=[])
    # Every probe wins, however slow its tokens were on a busy machine (with a margin of -10, a probe
    # descheduled for eleven tokens' time would lose): the switches are what this test needs.
    tuned.tuner = ThreadTuner(low=1, high=2, min_gap_s=0.0, max_gap_s=0.0, margin=-1e9)
    before, after = fixed.tokenize("<|im_start|>user\n"), fixed.tokenize("<|im_end|>\n<|im_start|>assistant\n")
    audio = np.random.default_rng(3).standard_normal((9, fixed.n_embd)).astype(np.float32)
    opts = DecodeOptions(max_tokens=64, guard=False)
    a = fixed.generate(before, audio, after, opts)
    b = tuned.generate(before, audio, after, opts)
    assert tuned.tuner.switches >= 5, tuned.tuner.summary()
    assert len(a.tokens) == 64 and a.tokens == b.tokens
    fixed.close()
    tuned.close()


# A program that burns this many CPU seconds of its own, however long that takes on a busy machine.
_BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {seconds}: pass\n"


def _spin_here(seconds: float) -> float:
    """Burn `seconds` of this process's CPU time; returns what it burnt."""
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass
    return time.process_time() - t


@pytest.mark.load_sensitive
@pytest.mark.skipif(threads._cpu_seconds() is None, reason="no system-wide CPU figure on this platform")
def test_busy_meter_counts_another_programs_cpu_time_and_not_this_ones() -> None:
    """The load-time meter behind the first thread count: a child's CPU seconds count, our own do not.

    Asserted in CPU seconds, which other programs on a busy machine cannot take away (they only add
    to what the meter sees), not in shares of wall time, which they can: under load a spinning
    process got 0.56 of a core where a share of at least 0.7 was once asserted.
    """
    import resource

    # Another program: everything it burns lies inside the meter's span.
    meter = BusyMeter()
    t0 = time.monotonic()  # just after the meter's own start: the span is at least t1 - t0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", _BURN.format(seconds=0.5)], check=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    t1 = time.monotonic()
    others = meter.others_cores()
    child_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert others is not None
    seen = others * (t1 - t0)  # a lower bound of the CPU seconds the meter put down to others
    # /proc/stat counts in clock ticks and this figure in finer units: a tenth's slack for the difference
    assert seen >= 0.9 * child_cpu - 0.05, (seen, child_cpu)

    # This process's own work: left out, whatever else the machine does meanwhile.
    busy0, _ = threads._cpu_seconds()
    t0 = time.monotonic()  # just before the meter's start: the span is at most t1 - t0
    meter = BusyMeter()
    own = _spin_here(0.5)
    others = meter.others_cores()
    t1 = time.monotonic()
    busy1, _ = threads._cpu_seconds()
    assert others is not None
    counted = others * (t1 - t0)  # an upper bound of what the meter put down to others
    everything = busy1 - busy0  # every program's CPU seconds on our cores, this process's included
    print(
        f"a child burnt {child_cpu:.2f} CPU s: the meter saw others use at least {seen:.2f}; this process "
        f"burnt {own:.2f}: of {everything:.2f} CPU s used meanwhile, at most {counted:.2f} were put down to others"
    )
    # Counting our own spin as another program's would leave nothing of it out; half of it is the slack.
    assert counted <= everything - 0.5 * own, (counted, everything, own)


def test_free_cores_start_the_tuner_on_all_of_them(monkeypatch) -> None:
    monkeypatch.setattr(threads, "physical_cores", lambda: 4)
    assert ThreadTuner.for_machine().current == 3
    free = ThreadTuner.for_machine(cores_free=True)
    assert free.current == 4
    # The first probe of fewer threads waits for the usual gap, not four tokens into the first take.
    seen = []
    for step in range(12):
        now = 100.0 + 0.04 * step
        seen.append(free.next_threads(now))
        free.record(seen[-1], 0.04, now)
    assert seen == [4] * 12, seen
    later = 100.0 + free.min_gap_s + 0.1
    assert free.next_threads(later) == 3  # then it does probe


_BLAS_SCRIPT = """
import json, sys
import numpy
from threadpoolctl import threadpool_info
from tingji.engine import Engine
from tingji.engine.heap import limit_heaps, map_large_blocks

def state():
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    tuned = [f.cache_info().currsize == 1 for f in (limit_heaps, map_large_blocks)]
    return {"blas": blas, "heap_tuned": tuned}

before = state()
Engine(sys.argv[1], "cpu", tune_process=False).close()
untuned = state()
engine = Engine(sys.argv[1], "cpu")
print(json.dumps({"before": before, "untuned": untuned, "after": state()}))
engine.close()
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="BLAS already runs one thread on one core")
def test_loading_an_engine_puts_numpys_blas_on_one_thread(tiny_model: Path) -> None:
    """Its workers spin after each product and took a core from the encoder that followed (engine.threads).
    The change is the process's: an Engine made with `tune_process=False` leaves BLAS and malloc alone."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(APP), os.environ.get("PYTHONPATH")]))}
    env.pop("OPENBLAS_NUM_THREADS", None)
    env.pop("OMP_NUM_THREADS", None)
    out = subprocess.run(
        [sys.executable, "-c", _BLAS_SCRIPT, str(tiny_model)], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\nNumPy's BLAS threads, and whether the heap was tuned: {seen}")
    before = seen["before"]["blas"]
    assert before and max(before) > 1 and seen["before"]["heap_tuned"] == [False, False]
    assert seen["untuned"] == seen["before"]
    assert seen["after"]["blas"] == [1] * len(before)
    assert seen["after"]["heap_tuned"] == [True, True]  # both asked for; glibc alone has the settings
