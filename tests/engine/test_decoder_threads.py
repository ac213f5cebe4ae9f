"""llama.cpp's thread count, tuned per token from measured token times (tingji.engine.threads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.paths import APP
from tingji.engine.threads import ThreadTuner


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
    import tingji.engine.threads as threads

    monkeypatch.setattr(threads, "physical_cores", lambda: 1)
    assert ThreadTuner.for_machine() is None
    assert threads.decoder_threads() == 1


def test_switching_threads_mid_generation_keeps_the_tokens(tiny_model: Path) -> None:
    """A tuned decoder (forced to switch often) generates exactly what a fixed one does."""
    from tingji.engine.decoder import DecodeOptions, open_decoder
    from tingji.engine.manifest import load_manifest

    gguf = tiny_model / load_manifest(tiny_model).files["decoder"].path
    fixed = open_decoder(gguf, eos_ids=[], n_threads=1)
    tuned = open_decoder(gguf, eos_ids=[])
    tuned.tuner = ThreadTuner(low=1, high=2, min_gap_s=0.0, max_gap_s=0.0, margin=-10.0)  # every probe wins
    before, after = fixed.tokenize("<|im_start|>user\n"), fixed.tokenize("<|im_end|>\n<|im_start|>assistant\n")
    audio = np.random.default_rng(3).standard_normal((9, fixed.n_embd)).astype(np.float32)
    opts = DecodeOptions(max_tokens=64, guard=False)
    a = fixed.generate(before, audio, after, opts)
    b = tuned.generate(before, audio, after, opts)
    assert tuned.tuner.switches >= 5, tuned.tuner.summary()
    assert len(a.tokens) == 64 and a.tokens == b.tokens
    fixed.close()
    tuned.close()


def test_busy_meter_sees_another_program_and_not_this_one() -> None:
    """The load-time meter behind the first thread count: a spinning child counts, our own work does not."""
    import subprocess
    import sys
    import time

    from tingji.engine.threads import BusyMeter

    child = subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<3: pass"])
    try:
        time.sleep(0.3)  # the child is up and spinning
        meter = BusyMeter()
        time.sleep(0.8)
        others = meter.others_cores()
    finally:
        child.kill()
        child.wait()
    from tingji.engine import threads

    start, t0 = threads._cpu_seconds(), time.monotonic()
    meter = BusyMeter()
    while time.monotonic() < t0 + 0.8:  # this process spins one core itself
        pass
    own_spin = meter.others_cores()
    end, wall = threads._cpu_seconds(), time.monotonic() - t0
    own, busy = (end[1] - start[1]) / wall, (end[0] - start[0]) / wall
    print(
        f"others while a child spins: {others:.2f} cores; while this process spins one: all {busy:.2f}, "
        f"ours {own:.2f}, others {own_spin:.2f}"
    )
    assert others is not None and others >= 0.5
    assert own >= 0.7  # the spin is seen as this process's ...
    assert own_spin is not None and own_spin <= max(0.0, busy - own) + 0.1  # ... and left out


def test_free_cores_start_the_tuner_on_all_of_them(monkeypatch) -> None:
    import tingji.engine.threads as threads

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
from tingji.engine.heap import map_large_blocks

def state():
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    return {"blas": blas, "heap_tuned": map_large_blocks.cache_info().currsize == 1}

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
    assert before and max(before) > 1 and not seen["before"]["heap_tuned"]
    assert seen["untuned"] == seen["before"]
    assert seen["after"]["blas"] == [1] * len(before)
    assert seen["after"]["heap_tuned"]  # asked for; glibc alone has the setting
