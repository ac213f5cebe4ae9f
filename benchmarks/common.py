"""Shared plumbing for the benchmarks: paths, timing, machine description, load, child processes.

Every measured stage runs in its own child process (`run.py --child NAME`),
so each gets a clean peak-RSS figure and no stage's threads, imports or
allocator state leak into the next. The parent records, per stage, the
child's CPU time and how much CPU the rest of the machine used meanwhile
(other jobs share these cores; that number says how far to trust a timing).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_RATE = 16000
BENCH = ROOT / "benchmarks"
for _extra in (ROOT, ROOT / "app", ROOT / "tools", BENCH):  # ROOT: the tests package (tests.support)
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))


def timed(fn: Callable[[], Any], reps: int, warmup: int = 1) -> dict[str, Any]:
    """Run fn warmup+reps times; median/min/max of the timed reps (seconds) and the last result."""
    for _ in range(warmup):
        fn()
    times = []
    result = None
    for _ in range(max(1, reps)):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "reps": len(times),
        "all_s": [round(x, 5) for x in times],
        "_result": result,
    }


def emit_json(res: dict[str, Any], path: Path | None) -> None:
    """An experiment's result, with the machine it came from: printed, and also written to `path` when given."""
    text = json.dumps({**res, "machine": res.get("machine") or machine()}, indent=2, default=str)
    print(text)
    if path:
        path.write_text(text + "\n")


def strip_private(d: Any) -> Any:
    """Drop keys starting with '_' (raw results kept only for in-process use)."""
    if isinstance(d, dict):
        return {k: strip_private(v) for k, v in d.items() if not str(k).startswith("_")}
    if isinstance(d, list):
        return [strip_private(v) for v in d]
    return d


def read_audio(path: str, seconds: float | None = None) -> np.ndarray:
    """The first `seconds` (None: all) of a 16 kHz file, float32 samples."""
    import soundfile as sf

    x, sr = sf.read(path, dtype="float32", frames=-1 if seconds is None else int(seconds * SAMPLE_RATE))
    assert sr == SAMPLE_RATE
    return x


def timed_summary(t: dict[str, Any]) -> dict[str, Any]:
    """A `timed` result for the record: without its private keys, floats to 5 places."""
    return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in t.items() if not k.startswith("_")}


def _proc_stat_busy() -> float:
    """Busy CPU seconds of the whole machine since boot (all cores), from /proc/stat."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()[1:]
    except OSError:
        return float("nan")
    vals = [int(v) for v in fields]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    busy = sum(vals[:8]) - idle  # user nice system idle iowait irq softirq steal; guest is inside user
    return busy / os.sysconf("SC_CLK_TCK")


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# The instruction sets that decide which kernels ONNX Runtime and llama.cpp run (their
# /proc/cpuinfo names): int8 MatMul sums in int32 with AVX512-VNNI, AVX-VNNI or AMX, and
# in saturating int16 pairs with AVX2 alone (see tingji.export.onnx_tools.INT8_WEIGHT_LIMIT).
ISA_FLAGS = {
    "avx2": ("avx2",),
    "avx512f": ("avx512f",),
    "avx512_vnni": ("avx512_vnni",),
    "avx_vnni": ("avx_vnni",),
    "amx": ("amx_int8",),
}


def int8_kernel() -> str:
    """Which int8 MatMul kernel ONNX Runtime runs on this CPU, found by running it
    (tests/support/cpu_paths.py): 'int32' (VNNI/AMX) or 'int16-pairs' (AVX2, or AVX-512 without VNNI)."""
    try:
        from tests.support.cpu_paths import CANARY_SATURATED, int8_canary

        return "int16-pairs" if int8_canary() == CANARY_SATURATED else "int32"
    except Exception as exc:  # a description of the machine must not stop a benchmark
        return f"unknown ({type(exc).__name__})"


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "logical_cpus": os.cpu_count(),
        "usable_cores": usable_cores(),
    }
    try:
        text = Path("/proc/cpuinfo").read_text()
        for line in text.splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        flags = next((ln.split(":", 1)[1].split() for ln in text.splitlines() if ln.startswith("flags")), [])
        info["simd"] = sorted(f for f in flags if f.startswith(("avx", "fma", "amx")) or f == "f16c")
        info["isa"] = {name: any(f in flags for f in names) for name, names in ISA_FLAGS.items()}
    except OSError:
        pass
    info["int8_kernel"] = int8_kernel()
    try:
        mem = Path("/proc/meminfo").read_text().split("\n")[0].split()
        info["ram_gb"] = round(int(mem[1]) / 1024 / 1024, 1)
    except (OSError, IndexError, ValueError):
        pass
    for mod in ("numpy", "onnxruntime", "llama_cpp", "torch", "transformers", "funasr"):
        try:
            # installed metadata, not an import: importing llama_cpp would load its libraries before the
            # decoder picks its set (pip's, or lib-cpu with Tingji's kernel patches)
            dist = {"llama_cpp": "llama_cpp_python"}.get(mod, mod)
            info[f"{mod}_version"] = importlib.metadata.version(dist)
        except Exception:
            info[f"{mod}_version"] = None
    from tingji.engine import decoder_device

    patched = decoder_device.cpu_library()
    info["llama_cpu_library"] = "lib-cpu (Tingji's kernel patches)" if patched else "lib (pip's build)"
    return info


def others_cores(seconds: float = 3.0) -> float:
    """CPU the machine is using right now, in cores (call when none of our stages runs: it is other jobs)."""
    b0, t0 = _proc_stat_busy(), time.perf_counter()
    time.sleep(seconds)
    return (_proc_stat_busy() - b0) / (time.perf_counter() - t0)


# Set by the scripts' --quiet-below / --quiet-wait (add_quiet_options); sample_s: how long each look at the other
# jobs lasts (run.py --quick takes a shorter look when it does not wait for quiet: it only records the figure).
QUIET: dict[str, Any] = {"cores": None, "max_wait_s": 0.0, "sample_s": 3.0}


def add_quiet_options(ap: argparse.ArgumentParser) -> None:
    """A script's --quiet-below and --quiet-wait; `use_quiet_options` puts what was given into QUIET."""
    ap.add_argument(
        "--quiet-below",
        type=float,
        default=None,
        metavar="CORES",
        help="before each stage wait until other jobs use fewer than CORES cores",
    )
    ap.add_argument("--quiet-wait", type=float, default=300, metavar="S", help="longest wait per stage")


def use_quiet_options(args: argparse.Namespace, sample_s: float = 3.0) -> None:
    QUIET.update(cores=args.quiet_below, max_wait_s=args.quiet_wait, sample_s=sample_s)


def wait_for_quiet(log: Callable[[str], None] = print) -> dict[str, Any]:
    """Wait (bounded) until other jobs use less than QUIET['cores'] cores; return what was seen."""
    sample = QUIET.get("sample_s", 3.0)
    busy = others_cores(sample)
    waited = 0.0
    limit = QUIET["cores"]
    while limit is not None and busy > limit and waited < QUIET["max_wait_s"]:
        time.sleep(10)
        waited += 10 + sample
        busy = others_cores(sample)
    if limit is not None and waited:
        log(f"  waited {waited:.0f} s for a quieter machine (other jobs now {busy:.2f} cores)")
    return {"other_jobs_cores_before": round(busy, 2), "waited_s": waited}


# How every torch reference runs (funasr's FunASRNano and SenseVoiceSmall, transformers' Qwen3-ASR): set in
# its child's environment, so it is in place before torch (and its OpenMP runtime) is imported. By default
# OpenMP's workers spin after each operator, waiting for the next, on the cores the reference's own Python
# thread needs between operators; PASSIVE makes them sleep, as the project runs torch everywhere. Not set
# for Tingji's stages: the app sets nothing, and its llama.cpp (built with OpenMP) must run as users get it.
REFERENCE_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


def run_child(
    stage: str,
    args: dict[str, Any],
    *,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run `run.py --child stage` with JSON args; return its JSON result plus process and load figures.

    Args:
        stage: a name in run.py's child table.
        args: the stage's JSON-able arguments.
        timeout: seconds before the child is killed (None: no limit).
        env: variables added to the child's environment (`REFERENCE_ENV` for a torch reference).
        log: where progress lines go.
    """
    quiet = wait_for_quiet(log)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [
            sys.executable,
            str(BENCH / "run.py"),
            "--child",
            stage,
            "--child-args",
            json.dumps(args),
            "--child-out",
            str(out),
        ]
        load0 = os.getloadavg()
        busy0 = _proc_stat_busy()
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **(env or {})})
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        busy = _proc_stat_busy() - busy0
        load1 = os.getloadavg()
        if proc.returncode != 0 or not out.is_file():
            raise RuntimeError(f"benchmark stage {stage!r} failed (exit {proc.returncode})")
        result = json.loads(out.read_text())
    child_cpu = usage.ru_utime + usage.ru_stime
    # The child's own VmHWM: wait4's ru_maxrss would count the parent's pages it had before exec.
    peak = result.get("peak_rss_mb")
    result["process"] = {
        "env": env or {},
        "wall_s": round(wall, 2),
        "cpu_s": round(child_cpu, 2),
        "peak_rss_mb": peak,
        "loadavg_1m_start": round(load0[0], 2),
        "loadavg_1m_end": round(load1[0], 2),
        # CPU the rest of the machine used while this stage ran, in cores on average.
        "other_jobs_cores": round(max(0.0, busy - child_cpu) / wall, 2) if wall > 0 else None,
        **quiet,
    }
    log(
        f"  stage {stage}: {wall:.1f} s wall, {child_cpu:.1f} s CPU, peak RSS {peak} MB, "
        f"other jobs ~{result['process']['other_jobs_cores']} cores"
    )
    return result


def reference_windows(audio: np.ndarray, window_s: float) -> tuple[list[np.ndarray], int]:
    """The windows Tingji's planner cuts from `audio`, each trimmed to speech as Tingji trims it.

    Returns the trimmed windows that hold speech and how many windows were cut in all: a torch
    reference runs on these, so that both sides do the same work.
    """
    from tingji.engine.vad import SileroVad
    from tingji.engine.windows import WindowPlanner, trimmed

    planner = WindowPlanner(SileroVad(), max_s=window_s)
    windows = [*planner.feed(audio), *planner.finish()]
    spans = [(w, *trimmed(w)) for w in windows]
    return [w.samples[lo:hi] for w, lo, hi in spans if hi > lo], len(windows)


def run_windows(windows: list[np.ndarray], run: Callable[[np.ndarray], dict[str, Any]]) -> dict[str, Any]:
    """`run` on each window in turn; its per-window figures beside each window's length and wall time.

    Returns {"wall_s": all windows, "per_window": [{"audio_s", "wall_s", **run's figures}]}.
    """
    per_window = []
    t_all = time.perf_counter()
    for samples in windows:
        t = time.perf_counter()
        figures = run(samples)
        wall = time.perf_counter() - t
        per_window.append({"audio_s": round(len(samples) / SAMPLE_RATE, 2), "wall_s": round(wall, 3), **figures})
    return {"wall_s": time.perf_counter() - t_all, "per_window": per_window}


def paired(
    tingji: Callable[[np.ndarray], Any], peer: Callable[[np.ndarray], Any], samples: np.ndarray, reps: int, name: str
) -> dict[str, Any]:
    """Tingji and a peer (`name`: "peer", "sherpa") taking turns on the same samples, `reps` pairs.

    On a shared machine the load changes from minute to minute; the ratio of two runs made back
    to back is steadier than that of two stages made minutes apart. Each side runs once untimed
    first, and which goes first alternates from pair to pair. Returns each side's seconds per
    run, their medians and the median of the per-pair speed-ups (the peer's seconds over Tingji's).
    """
    tingji(samples)
    peer(samples)
    pairs = []
    for i in range(reps):
        times = {}
        for who in ("tingji", name) if i % 2 == 0 else (name, "tingji"):
            t = time.perf_counter()
            (tingji if who == "tingji" else peer)(samples)
            times[who] = time.perf_counter() - t
        pairs.append(times)
    return {
        "tingji_s": [round(p["tingji"], 4) for p in pairs],
        f"{name}_s": [round(p[name], 4) for p in pairs],
        "tingji_median_s": statistics.median(p["tingji"] for p in pairs),
        f"{name}_median_s": statistics.median(p[name] for p in pairs),
        "speedup_median": statistics.median(p[name] / p["tingji"] for p in pairs),
    }


def build_sherpa_peer(
    peer: ModuleType, checkpoint: Path, folder: Path, built: dict[str, Any], log: Callable[[str], None], what: str
) -> None:
    """A sherpa-onnx peer (`peer`: sherpa_paraformer or sherpa_sensevoice) built from `checkpoint` into `folder`
    (`what` it builds, for the log): its paths in built["sherpa"] where it can run here, else why not in
    built["sherpa_skipped"] and the log."""
    why = peer.unavailable()
    if why is None:
        try:
            log(f"{what} (cached after the first run)")
            built["sherpa"] = peer.build(checkpoint, folder)
        except RuntimeError as exc:
            why = str(exc)
    if why is not None:
        log(f"sherpa-onnx peer skipped: {why}")
        built["sherpa_skipped"] = why


def cached_build(out: Path) -> dict[str, Any] | None:
    """What `keep_build` recorded in `out`, or None while there is no finished build there."""
    done = out / "build.json"
    return json.loads(done.read_text()) if done.is_file() else None


def keep_build(work: Path, out: Path, names: Iterable[str], info: dict[str, Any]) -> dict[str, Any]:
    """Move the files `names` of a finished build from `work` into a fresh `out`, drop `work`, and record `info`
    there (`cached_build` returns it to later runs); returns `info`."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name in names:
        shutil.move(str(work / name), out / name)
    shutil.rmtree(work, ignore_errors=True)
    (out / "build.json").write_text(json.dumps(info, indent=2))
    return info


def vm_hwm_mb() -> float:
    """Peak resident set of this process (VmHWM), MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_now_mb() -> dict[str, float]:
    """Current resident set split into anonymous and file-backed (mapped model files) parts, MB."""
    out: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            for key in ("VmRSS", "RssAnon", "RssFile"):
                if line.startswith(key + ":"):
                    out[key] = round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return out


def export_is_current(folder: Path, precision: str) -> bool:
    """Whether a cached export may be reused: complete and, for int8, made as the exporter makes it
    now, so a benchmark never measures a model the exporter no longer makes: with 7-bit weights
    (tingji.export.onnx_tools.INT8_WEIGHT_LIMIT; the exporter records it; older ones overflow on
    AVX2 CPUs), and for Paraformer with the int8 timestamp head (older ones kept it fp32)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    if precision != "int8":
        return True
    return "int8_weight_limit" in (manifest.get("exporter") or {}) and not (folder / "timestamp.fp32.onnx").is_file()


def build_checkpoint(
    cache: Path, make: Callable[..., Any], quick: bool, what: str, log: Callable[[str], None] = print
) -> Path:
    """`cache/checkpoint`, made once by `make(folder, seed=0, full_size=not quick)`.

    It is written into a `.partial` folder renamed at the end, so an
    interrupted build is redone rather than reused; its build time goes to
    `cache/checkpoint.json`.
    """
    import shutil

    cache.mkdir(parents=True, exist_ok=True)
    ckpt = cache / "checkpoint"
    if not (ckpt / "model.pt").is_file():
        log(f"building {'tiny' if quick else 'full-size'} {what} checkpoint in {ckpt}")
        partial = cache / "checkpoint.partial"
        shutil.rmtree(partial, ignore_errors=True)
        t = time.perf_counter()
        make(partial, seed=0, full_size=not quick)
        partial.rename(ckpt)
        (cache / "checkpoint.json").write_text(json.dumps({"seconds": round(time.perf_counter() - t, 1)}))
    return ckpt


def goals_met(summary: dict[str, Any], table: dict[str, tuple[str, float]]) -> dict[str, Any]:
    """Each goal of `table` ({key: (">=" or "<=", target)}) that `summary` measured: value, goal, met."""
    out = {}
    for key, (op, target) in table.items():
        if key in summary:
            v = summary[key]
            out[key] = {"value": v, "goal": f"{op} {target}", "met": bool(v >= target if op == ">=" else v <= target)}
    return out


def write_latest(summary: dict[str, Any], section: str, doc: dict[str, Any]) -> None:
    """Merge a lone benchmark's run into results/latest.json: its summary keys at the top and in "summary",
    its whole document (private keys stripped) under `section`."""
    path = BENCH / "results" / "latest.json"
    latest = json.loads(path.read_text())
    latest.update(summary)
    latest.setdefault("summary", {}).update(summary)
    latest[section] = strip_private(doc)
    path.write_text(json.dumps(latest, indent=2, default=str) + "\n")
    print(f"wrote {path}", file=sys.stderr)
