#!/usr/bin/env python3
"""Where the engine's memory goes: resident set per load step and per pipeline stage.

    python benchmarks/exp_memory.py --model benchmarks/.cache/full/int8-q5_k --audio long300.wav
    python benchmarks/exp_memory.py --model ... --models-too ../other-model   # two models resident

Loads an `Engine` the way the app does and transcribes a file, while the
engine's own steps are wrapped (class attributes replaced for this process
only) to record, for each step: the resident set before and after it, split
into anonymous and file-backed pages (`/proc/self/status` RssAnon/RssFile:
mapped model files are file-backed, clean and shared, the rest is this
process's own), and the peak during it. The peak is per step because the
kernel's high-water mark (VmHWM) is reset before each one (`clear_refs` 5).

At "ready" and at the end, `/proc/self/smaps` is summed per mapping (each
model file, each shared library, anonymous memory), which says which file's
pages are resident and how much anonymous memory there is.

The output is JSON (stdout and --json). Linux only.
"""

from __future__ import annotations

import argparse
import functools
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, emit_json  # noqa: E402,F401

MB = 1024 * 1024


def status() -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon, RssFile of this process, MB."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def cpu_s() -> float:
    """CPU time of this process so far, all threads (steadier than wall time on a shared machine)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def reset_peak() -> None:
    """Make VmHWM start again from the current resident set (Linux >= 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


def by_mapping(top: int = 12) -> dict[str, float]:
    """Resident MB per mapped file (anonymous mappings summed as "[anon]"), largest first."""
    sizes: dict[str, int] = defaultdict(int)
    name = "[anon]"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if not head:
            continue
        if "-" in head[0] and not head[0].endswith(":"):  # a mapping's header line
            name = head[5] if len(head) > 5 else "[anon]"
            if name.startswith("[") and name not in ("[heap]", "[stack]"):
                name = "[anon]"
            if name == "[heap]":
                name = "[anon]"
        elif head[0] == "Rss:":
            sizes[name] += int(head[1]) * 1024
    named: dict[str, int] = defaultdict(int)  # by file name: two graph caches' "graph.onnx.data" add up
    for path, size in sizes.items():
        named[Path(path).name if path.startswith("/") else path] += size
    ranked = sorted(named.items(), key=lambda kv: -kv[1])
    out = {k: round(v / MB, 1) for k, v in ranked[:top]}
    out["(other mappings)"] = round(sum(v for _, v in ranked[top:]) / MB, 1)
    return out


class Recorder:
    """Per-step figures: resident set before and after, peak during (all MB)."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.peaks: list[float] = []  # every VmHWM read, in order; a step's peak is the max of its share

    def read(self) -> dict[str, float]:
        now = status()
        self.peaks.append(now["VmHWM"])
        return now

    def step(self, label: str, fn: Callable[[], Any]) -> Any:
        """Run fn as a step. Steps may nest: the peak is read before every reset, so none is lost."""
        before = self.read()
        first = len(self.peaks)
        reset_peak()
        t, c = time.perf_counter(), cpu_s()
        result = fn()
        seconds, cpu = time.perf_counter() - t, cpu_s() - c
        after = self.read()
        peak = max(self.peaks[first:])
        reset_peak()
        self.steps.append(
            {
                "step": label,
                "s": round(seconds, 3),
                "cpu_s": round(cpu, 3),
                "rss_before": before["VmRSS"],
                "rss_after": after["VmRSS"],
                "peak": peak,
                "peak_over_before": round(peak - before["VmRSS"], 1),
                "anon_delta": round(after["RssAnon"] - before["RssAnon"], 1),
                "file_delta": round(after["RssFile"] - before["RssFile"], 1),
            }
        )
        return result

    def wrap(self, owner: type, name: str, label: str | None = None) -> None:
        """Record every call of `owner.name` as a step."""
        original = getattr(owner, name)
        recorder = self

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return recorder.step(label or name, lambda: original(*args, **kwargs))

        setattr(owner, name, wrapper)


def _serial_thread_pools() -> None:
    """Make ThreadPoolExecutor run each job at once in the caller: load steps must not overlap to be measured."""
    from concurrent.futures import Future, ThreadPoolExecutor

    def submit(self: ThreadPoolExecutor, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future

    ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]


def summarise(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Per label: calls, the highest peak, the largest rise over the resident set before a call."""
    out: dict[str, dict[str, Any]] = {}
    for s in steps:
        d = out.setdefault(
            s["step"],
            {
                "calls": 0,
                "max_peak": 0.0,
                "max_peak_over_before": 0.0,
                "anon_delta_total": 0.0,
                "file_delta_total": 0.0,
                "s_total": 0.0,
                "cpu_s_total": 0.0,
            },
        )
        d["calls"] += 1
        d["max_peak"] = max(d["max_peak"], s["peak"])
        d["max_peak_over_before"] = max(d["max_peak_over_before"], s["peak_over_before"])
        d["anon_delta_total"] = round(d["anon_delta_total"] + s["anon_delta"], 1)
        d["file_delta_total"] = round(d["file_delta_total"] + s["file_delta"], 1)
        d["s_total"] = round(d["s_total"] + s["s"], 3)
        d["cpu_s_total"] = round(d["cpu_s_total"] + s["cpu_s"], 3)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--audio", type=Path, help="a long file to transcribe (default: none)")
    ap.add_argument("--tokens", type=int, default=200, help="forced tokens per window (EOS disabled)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument(
        "--live",
        action="store_true",
        help="before the file, a 3 s take on the live lane, as dictation runs it (its own KV cache)",
    )
    ap.add_argument(
        "--models-too",
        type=Path,
        action="append",
        default=[],
        help="another model folder loaded (and warmed) in the same process after the first",
    )
    ap.add_argument("--graph-cache", type=Path, help="ONNX Runtime's optimised graphs, as the app keeps them")
    ap.add_argument(
        "--parallel-load",
        action="store_true",
        help="load as the app does, the decoder in a thread (its steps then overlap the encoder's)",
    )
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    rec = Recorder()
    if not args.parallel_load:
        _serial_thread_pools()
    start = rec.read()
    rec.step("import tingji.engine", lambda: __import__("tingji.engine"))
    rec.step("import onnxruntime", lambda: __import__("onnxruntime"))
    rec.step("import llama_cpp", lambda: __import__("llama_cpp"))

    from tingji.engine import Engine, TranscribeOptions, frontend, sessions, vad
    from tingji.engine.decoder import LlamaContext, LlamaModel
    from tingji.engine.families.fun_asr_nano import encoder as nano_encoder
    from tingji.engine.families.fun_asr_nano import recognizer as nano

    original_make = sessions.OnnxGraphs._make_session

    def make_session(self, spec, bucket):  # one step per ONNX session, named by its role
        return rec.step(f"load: ORT session {spec.role}", lambda: original_make(self, spec, bucket))

    sessions.OnnxGraphs._make_session = make_session
    rec.wrap(nano_encoder.NanoEncoder, "_warm_up", "load: warm encoder+ctc")
    rec.wrap(LlamaModel, "__init__", "load: llama model (mmap GGUF)")
    rec.wrap(vad.SileroVad, "__init__", "load: VAD session")
    rec.wrap(nano.FunAsrNano, "open_lane", "load: llama context (KV cache, buffers)")
    rec.wrap(nano.FunAsrNano, "warm", "load: warm decoder (1 token)")
    kwargs = {"provider": "cpu", "threads": args.threads, "graph_cache": args.graph_cache}
    engine = rec.step("Engine(model) total", lambda: Engine(args.model, **kwargs))
    ready = rec.read()
    ready_maps = by_mapping()
    others = [rec.step(f"Engine({m.name}) total", lambda m=m: Engine(m, **kwargs)) for m in args.models_too]
    both_ready = rec.read() if others else None

    rec.wrap(nano_encoder.NanoEncoder, "encode", "run: encoder")
    rec.wrap(nano_encoder.NanoEncoder, "ctc", "run: ctc")
    rec.wrap(LlamaContext, "generate", "run: decoder prefill+generate")
    rec.wrap(vad.VadStream, "feed", "run: VAD")
    fbank = frontend.fbank  # what features() spends its memory on; looked up at every call
    frontend.fbank = lambda *a, **k: rec.step("run: features (fbank)", lambda: fbank(*a, **k))
    if args.live:
        from speech import make_utterance

        take = make_utterance(3.0)
        rec.step(
            "dictation take (live lane, 12 tokens)",
            lambda: engine.live.transcribe(take, TranscribeOptions(max_tokens=12, ignore_eos=True, timestamps=False)),
        )
    transcript = None
    if args.audio:
        transcript = rec.step(
            "transcribe file",
            lambda: engine.transcribe(str(args.audio), TranscribeOptions(max_tokens=args.tokens, ignore_eos=True)),
        )
    end = rec.read()
    res = {
        "model": str(args.model),
        "start": start,
        "ready": ready,
        "ready_by_mapping": ready_maps,
        "both_ready": both_ready,
        "end": end,
        "end_by_mapping": by_mapping(),
        "process_peak_mb": max(rec.peaks + [end["VmHWM"]]),
        "windows": None if transcript is None else transcript.windows,
        "tokens": None if transcript is None else sum(len(t) for t in transcript.window_tokens),
        "by_step": summarise(rec.steps),
        "steps": rec.steps,
    }
    emit_json(res, args.json)
    for engine_ in [engine, *others]:
        engine_.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
