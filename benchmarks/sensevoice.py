#!/usr/bin/env python3
"""SenseVoice-Small at the real size: Tingji's engine beside sherpa-onnx and funasr, same random weights.

    python benchmarks/sensevoice.py [--quick]     # this family alone (development); prints the summary
    python benchmarks/run.py                       # everything, SenseVoice included, into results/

Builds (once, cached under benchmarks/.cache/{full,quick}/sensevoice/) a
random-weight SenseVoice-Small checkpoint at the release's sizes, Tingji's
int8 export of it, and - when the sherpa-onnx package and its export script
are available (see sherpa_sensevoice.py) - sherpa-onnx's own int8 export.
Each system runs in its own child process with 2 threads:

* Tingji: `Engine.transcribe` of a 3 s utterance as dictation does it
  (live lane, VAD included), one full window through the recognizer, 60 s of
  speech through the engine (VAD cuts it into windows), peak RSS;
* sherpa-onnx: `OfflineRecognizer.from_sense_voice` on the same audio, 60 s
  in one pass as its users run it;
* funasr's SenseVoiceSmall (torch fp32), for context.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    BENCH,
    REFERENCE_ENV,
    build_checkpoint,
    build_sherpa_peer,
    export_is_current,
    machine,
    paired,
    read_audio,
    rss_now_mb,
    run_child,
    strip_private,  # noqa: E402
    timed,
    timed_summary,
    vm_hwm_mb,
)
from flops import sanm_encoder_flops  # noqa: E402
from limits import stage_gemm  # noqa: E402

THREADS = 2
SAMPLE_RATE = 16000
GOALS = {  # key -> (op, target); checked only when the key was measured (sherpa-onnx is optional)
    "sensevoice_speedup_vs_sherpa_3s": (">=", 1.5),
    "sensevoice_speedup_vs_sherpa_60s": (">=", 2.0),
    "sensevoice_peak_rss_mb": ("<=", 600.0),
    "peak_rss_two_models_mb": ("<=", 1600.0),  # SenseVoice for dictation and Nano for files, one process
}
# -- building ---------------------------------------------------------------------------


def build(cache: Path, quick: bool, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Checkpoint, Tingji's int8 export, sherpa-onnx's export (if it can run) and 60 s of speech."""
    import sherpa_sensevoice
    from export_probe import probe_export
    from speech import make_long
    from tiny_sense_voice import make_checkpoint

    ckpt = build_checkpoint(cache, make_checkpoint, quick, "SenseVoice-Small", log)
    model, stats_path = cache / "int8", cache / "export-int8.json"
    if not export_is_current(model, "int8") or not stats_path.is_file():
        shutil.rmtree(model, ignore_errors=True)
        log("exporting SenseVoice-Small (int8)")
        stats = probe_export(ckpt, model, "int8", "f16")
        if stats["returncode"] != 0:
            raise RuntimeError("SenseVoice export failed:\n" + "\n".join(stats.get("stderr_tail", [])))
        stats_path.write_text(json.dumps(stats, indent=2))
    built: dict[str, Any] = {
        "checkpoint": str(ckpt),
        "model": str(model),
        "export": json.loads(stats_path.read_text()),
        "audio": str(make_long(cache / "long60.wav", 60)),
    }
    build_sherpa_peer(sherpa_sensevoice, ckpt, cache / "sherpa", built, log, "sherpa-onnx's SenseVoice export")
    return built


# -- stages (each in its own child process) ------------------------------------------------


def stage_tingji(a: dict[str, Any]) -> dict[str, Any]:
    """Load + warm, dictation of a 3 s utterance, one full window, 60 s of speech; peak RSS."""
    from speech import make_utterance

    t0 = time.perf_counter()
    from tingji.engine import Engine
    from tingji.engine.options import TranscribeOptions

    engine = Engine(a["model"], provider="cpu", threads=THREADS)
    out: dict[str, Any] = {
        "load_and_warm_s": round(time.perf_counter() - t0, 3),
        "threads": THREADS,
        "rss_after_load_mb": rss_now_mb(),
    }
    utt = make_utterance(3.0)
    first = time.perf_counter()
    engine.live.transcribe(utt)
    out["dictation_first_call_s"] = round(time.perf_counter() - first, 4)
    runs = []
    for _ in range(a["reps_short"]):
        t = time.perf_counter()
        tr = engine.live.transcribe(utt)
        runs.append((time.perf_counter() - t, tr))
    runs.sort(key=lambda r: r[0])
    out["dictation_3s"] = {
        "median_s": runs[len(runs) // 2][0],
        "all_s": [round(r[0], 4) for r in runs],
        "timings_of_median": {k: round(v, 4) for k, v in runs[len(runs) // 2][1].timings.items()},
    }
    rec, window_s = engine.recognizer, engine.manifest.window_seconds
    speech = read_audio(a["audio"], 60.0)
    lane = engine.files.state
    window = functools.partial(rec.recognize, speech[: int(window_s * SAMPLE_RATE)], TranscribeOptions(), lane)
    out[f"window_{window_s:g}s"] = timed_summary(timed(window, a["reps_long"]))
    t = time.perf_counter()
    tr = engine.transcribe(speech)
    out["audio_60s"] = {
        "first_s": round(time.perf_counter() - t, 3),
        "windows": tr.windows,
        **timed_summary(timed(functools.partial(engine.transcribe, speech), a["reps_long"], warmup=0)),
        "timings": {k: round(v, 3) for k, v in tr.timings.items()},
    }
    out["window_seconds"] = window_s
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    engine.close()
    return out


def stage_sherpa(a: dict[str, Any]) -> dict[str, Any]:
    """sherpa-onnx's OfflineRecognizer on its own int8 export: 3 s, 10 s and 60 s in one pass each."""
    import sherpa_onnx
    from speech import make_utterance

    t0 = time.perf_counter()
    rec = sherpa_onnx.OfflineRecognizer.from_sense_voice(
        model=a["model"], tokens=a["tokens"], num_threads=THREADS, use_itn=True, language="auto"
    )

    def decode(samples: np.ndarray) -> None:
        stream = rec.create_stream()
        stream.accept_waveform(SAMPLE_RATE, samples)
        rec.decode_stream(stream)  # the result is not read: random weights give bytes that are not UTF-8

    out: dict[str, Any] = {
        "load_s": round(time.perf_counter() - t0, 3),
        "threads": THREADS,
        "model": Path(a["model"]).name,
    }
    speech = read_audio(a["audio"], 60.0)
    out["dictation_3s"] = timed_summary(timed(functools.partial(decode, make_utterance(3.0)), a["reps_short"]))
    out["audio_10s"] = timed_summary(timed(functools.partial(decode, speech[: 10 * SAMPLE_RATE]), a["reps_short"]))
    out["audio_60s"] = timed_summary(timed(functools.partial(decode, speech), a["reps_long"]))
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    return out


def stage_paired(a: dict[str, Any]) -> dict[str, Any]:
    """Tingji and sherpa-onnx in one process, runs alternating: both see the same load from other jobs.

    On a shared machine the load changes from minute to minute; the ratio of
    two runs made back to back is steadier than the ratio of two stages made
    minutes apart. (Memory is measured in the separate stages.)
    """
    import sherpa_onnx
    from speech import make_utterance

    from tingji.engine import Engine

    engine = Engine(a["model"], provider="cpu", threads=THREADS)
    rec = sherpa_onnx.OfflineRecognizer.from_sense_voice(
        model=a["sherpa_model"], tokens=a["tokens"], num_threads=THREADS, use_itn=True, language="auto"
    )

    def sherpa(samples: np.ndarray) -> None:
        stream = rec.create_stream()
        stream.accept_waveform(SAMPLE_RATE, samples)
        rec.decode_stream(stream)

    out: dict[str, Any] = {"threads": THREADS}
    cases = {
        "3s": (make_utterance(3.0), engine.live.transcribe, a["reps_short"]),
        "60s": (read_audio(a["audio"], 60.0), engine.transcribe, a["reps_long"]),
    }
    for name, (samples, tingji, reps) in cases.items():
        out[name] = paired(tingji, sherpa, samples, reps, "sherpa")
    engine.close()
    return out


def stage_funasr(a: dict[str, Any]) -> dict[str, Any]:
    """funasr's SenseVoiceSmall (torch fp32, dither 0), 3 s and 60 s in one pass each."""
    import torch
    from speech import make_utterance

    from tests.support.reference_sense_voice import SenseVoiceReference

    t0 = time.perf_counter()
    ref = SenseVoiceReference(Path(a["checkpoint"]))
    torch.set_num_threads(THREADS)  # after loading: funasr's loader sets its own count (4)
    out: dict[str, Any] = {
        "load_s": round(time.perf_counter() - t0, 3),
        "threads": THREADS,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
    }
    # Each timed after one untimed run of the same input (timed's warm-up), as Tingji's stage is timed.
    out["dictation_3s"] = timed_summary(timed(functools.partial(ref.run, make_utterance(3.0)), a["reps_short"]))
    out["audio_60s"] = timed_summary(timed(functools.partial(ref.run, read_audio(a["audio"], 60.0)), a["reps_long"]))
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    return out


def stage_two_models(a: dict[str, Any]) -> dict[str, Any]:
    """The app's expected pairing in one process: Fun-ASR-Nano for files, SenseVoice for dictation; peak RSS."""
    from speech import make_utterance

    from tingji.engine import Engine, TranscribeOptions

    files, live = Engine(a["nano_model"], provider="cpu"), Engine(a["model"], provider="cpu", threads=THREADS)
    out: dict[str, Any] = {"rss_after_load_mb": rss_now_mb()}
    utt, speech = make_utterance(3.0), read_audio(a["audio"], 60.0)
    for _ in range(3):
        live.live.transcribe(utt)
    t = time.perf_counter()
    files.transcribe(speech, TranscribeOptions(max_tokens=a["budget"], ignore_eos=True))
    out["nano_60s_s"] = round(time.perf_counter() - t, 3)
    live.transcribe(speech)
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    live.close()
    files.close()
    return out


STAGES = {
    "sv_gemm": stage_gemm,  # limits.py
    "sv_tingji": stage_tingji,
    "sv_sherpa": stage_sherpa,
    "sv_paired": stage_paired,
    "sv_funasr": stage_funasr,
    "sv_two_models": stage_two_models,
}


# -- measuring and reporting -----------------------------------------------------------------


def measure(
    built: dict[str, Any],
    quick: bool,
    log: Callable[[str], None] = print,
    nano_model: str | None = None,
    peers: tuple[str, ...] = ("sherpa", "funasr"),
) -> dict[str, Any]:
    """Tingji and the `peers`; `nano_model` (a Fun-ASR-Nano folder) adds the two-models memory figure."""
    reps = {"reps_short": 3 if quick else 9, "reps_long": 1 if quick else 3}
    from tingji.engine.frontend import num_lfr_frames

    res: dict[str, Any] = {"weights": "tiny" if quick else "full-size", "export": built["export"]}
    log("SenseVoice-Small: the machine's GEMM throughput")
    res["gemm"] = run_child("sv_gemm", {"threads": THREADS, "reps": 3 if quick else 10}, log=log)
    # The encoder's work, a floor for any runtime: a 3 s take is one pass over its frames and the 4 query rows;
    # 60 s may be cut into windows of any length, so only the linear layers and the FSMN count there.
    take = sanm_encoder_flops(built["checkpoint"], num_lfr_frames(3 * SAMPLE_RATE) + 4)
    speech = sanm_encoder_flops(built["checkpoint"], num_lfr_frames(60 * SAMPLE_RATE))
    res["encoder_gflop"] = {"3s": take["total"] / 1e9, "60s": (speech["linear"] + speech["conv"]) / 1e9}
    log("SenseVoice-Small: tingji")
    res["tingji"] = run_child("sv_tingji", {"model": built["model"], "audio": built["audio"], **reps}, log=log)
    if "sherpa" in peers and "sherpa" in built:
        log("SenseVoice-Small: sherpa-onnx")
        res["sherpa"] = run_child(
            "sv_sherpa",
            {
                "model": built["sherpa"]["model_int8"],
                "tokens": built["sherpa"]["tokens"],
                "audio": built["audio"],
                **reps,
            },
            log=log,
        )
        log("SenseVoice-Small: Tingji and sherpa-onnx alternating")
        res["paired"] = run_child(
            "sv_paired",
            {
                "model": built["model"],
                "sherpa_model": built["sherpa"]["model_int8"],
                "tokens": built["sherpa"]["tokens"],
                "audio": built["audio"],
                "reps_short": 3 if quick else 15,
                "reps_long": 1 if quick else 5,
            },
            log=log,
        )
    elif "sherpa" in peers:
        res["sherpa_skipped"] = built["sherpa_skipped"]
    if "funasr" in peers:
        log("SenseVoice-Small: funasr")
        res["funasr"] = run_child(
            "sv_funasr",
            {"checkpoint": built["checkpoint"], "audio": built["audio"], **reps},
            env=REFERENCE_ENV,
            log=log,
        )
    if nano_model is not None:
        log("SenseVoice-Small and Fun-ASR-Nano loaded together")
        res["two_models"] = run_child(
            "sv_two_models",
            {"model": built["model"], "nano_model": nano_model, "audio": built["audio"], "budget": 8 if quick else 200},
            log=log,
        )
    return res


def summary(res: dict[str, Any]) -> dict[str, Any]:
    """The figures latest.json carries at the top level (ratios from the same run)."""
    tj = res["tingji"]
    window = f"window_{tj['window_seconds']:g}s"
    out = {
        "sensevoice_dictation_3s_s": tj["dictation_3s"]["median_s"],
        f"sensevoice_encoder_{tj['window_seconds']:g}s_s": tj[window]["median_s"],
        "sensevoice_60s_s": tj["audio_60s"]["median_s"],
        "sensevoice_peak_rss_mb": tj["peak_rss_mb"],
        "sensevoice_load_and_warm_s": tj["load_and_warm_s"],
    }
    if "funasr" in res:
        fa = res["funasr"]
        out["sensevoice_speedup_vs_funasr_3s"] = fa["dictation_3s"]["median_s"] / tj["dictation_3s"]["median_s"]
        out["sensevoice_speedup_vs_funasr_60s"] = fa["audio_60s"]["median_s"] / tj["audio_60s"]["median_s"]
    if "sherpa" in res:
        sh, paired = res["sherpa"], res["paired"]
        # Headline ratios from alternating runs (same load); the separate stages' ratio for the record.
        out["sensevoice_speedup_vs_sherpa_3s"] = paired["3s"]["speedup_median"]
        out["sensevoice_speedup_vs_sherpa_60s"] = paired["60s"]["speedup_median"]
        out["sensevoice_speedup_vs_sherpa_3s_separate_stages"] = (
            sh["dictation_3s"]["median_s"] / tj["dictation_3s"]["median_s"]
        )
        out["sensevoice_speedup_vs_sherpa_60s_separate_stages"] = (
            sh["audio_60s"]["median_s"] / tj["audio_60s"]["median_s"]
        )
        out["sensevoice_sherpa_peak_rss_mb"] = sh["peak_rss_mb"]
        # The most any runtime doing the encoder's arithmetic could gain over sherpa-onnx on this machine.
        for case in ("3s", "60s"):
            floor = res["encoder_gflop"][case] / res["gemm"]["limit_gops"]
            out[f"sensevoice_speedup_vs_sherpa_{case}_ceiling"] = paired[case]["sherpa_median_s"] / floor
    out["sensevoice_gemm_limit_gops"] = res["gemm"]["limit_gops"]
    if "two_models" in res:
        out["peak_rss_two_models_mb"] = res["two_models"]["peak_rss_mb"]
    return out


def markdown(res: dict[str, Any], summ: dict[str, Any]) -> list[str]:
    """The results section for latest.md: one row per system."""
    tj, sh, fa = res["tingji"], res.get("sherpa"), res.get("funasr")
    w = f"window_{tj['window_seconds']:g}s"
    lines = [
        "",
        f"## SenseVoice-Small (2 threads, the same random {res['weights']} weights)",
        "",
        f"| system | 3 s utterance | {tj['window_seconds']:g} s window | 60 s of speech | peak RSS MB |",
        "|---|---|---|---|---|",
        f"| Tingji int8 (VAD included) | {tj['dictation_3s']['median_s']:.3f} | {tj[w]['median_s']:.3f} | "
        f"{tj['audio_60s']['median_s']:.3f} ({tj['audio_60s']['windows']} windows) | {tj['peak_rss_mb']:.0f} |",
    ]
    if sh is not None:
        lines.append(
            f"| sherpa-onnx int8 (its export) | {sh['dictation_3s']['median_s']:.3f} | | "
            f"{sh['audio_60s']['median_s']:.3f} (one pass) | {sh['peak_rss_mb']:.0f} |"
        )
    if fa is not None:
        lines.append(
            f"| funasr SenseVoiceSmall (torch fp32) | {fa['dictation_3s']['median_s']:.3f} | | "
            f"{fa['audio_60s']['median_s']:.3f} (one pass) | {fa['peak_rss_mb']:.0f} |"
        )
    if sh is None:
        lines += ["", f"sherpa-onnx skipped: {res.get('sherpa_skipped', 'not run')}"]
    else:
        lines += [
            "",
            f"Speed-up over sherpa-onnx (median of back-to-back pairs): 3 s "
            f"{summ['sensevoice_speedup_vs_sherpa_3s']:.2f}x, 60 s {summ['sensevoice_speedup_vs_sherpa_60s']:.2f}x "
            f"(separate stages: {summ['sensevoice_speedup_vs_sherpa_3s_separate_stages']:.2f}x, "
            f"{summ['sensevoice_speedup_vs_sherpa_60s_separate_stages']:.2f}x). The most any runtime could gain "
            f"here: {summ['sensevoice_speedup_vs_sherpa_3s_ceiling']:.2f}x and "
            f"{summ['sensevoice_speedup_vs_sherpa_60s_ceiling']:.2f}x (the encoder's arithmetic, "
            f"{res['encoder_gflop']['3s']:.1f} and {res['encoder_gflop']['60s']:.0f} GFLOP, at the fastest GEMM "
            f"this machine ran on {THREADS} threads, {res['gemm']['limit_gops']:.0f} G/s).",
        ]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny model, few repetitions")
    ap.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--peers", default="sherpa,funasr", help="which peers run beside Tingji (comma-separated)")
    args = ap.parse_args(argv)
    built = build(args.cache_dir / ("quick" if args.quick else "full") / "sensevoice", args.quick)
    res = measure(built, args.quick, peers=tuple(p for p in args.peers.split(",") if p))
    doc = {"machine": machine(), "summary": summary(res), "results": res}
    text = json.dumps(strip_private(doc), indent=2)
    print(text)
    print("\n".join(markdown(res, doc["summary"])))
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
