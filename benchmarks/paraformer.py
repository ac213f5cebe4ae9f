#!/usr/bin/env python3
"""Paraformer-zh at the real size: Tingji's engine beside sherpa-onnx and funasr, same random weights.

    python benchmarks/paraformer.py [--quick] [--peers sherpa,funasr]   # this family alone; prints the summary
    python benchmarks/run.py                                             # everything, Paraformer included

Builds (once, cached under benchmarks/.cache/{full,quick}/paraformer/) a
random-weight BiCifParaformer checkpoint (paraformer-zh, with the timestamp
head) and a CT-Transformer punctuation checkpoint at the releases' sizes,
Tingji's int8 export of each, and - when sherpa-onnx and funasr are
installed - funasr's own ONNX export of the same checkpoint, which
sherpa-onnx runs (sherpa_paraformer.py). Each stage runs in its own child
process with 2 threads:

* Tingji: a 3 s utterance as dictation runs it (live lane, VAD included, no
  timestamps: a take's text is pasted), one full 60 s window through the recognizer (features, encoder, CIF,
  decoder, timestamps), 60 s of speech through `Engine.transcribe`;
* a file: Paraformer with the punctuation model transcribing the 5-minute
  espeak-ng file: peak RSS and the punctuation's share of the time;
* sherpa-onnx (`OfflineRecognizer.from_paraformer`, funasr's int8
  `model_quant.onnx`) and funasr's torch model (`AutoModel`, dither 0,
  OMP_WAIT_POLICY=PASSIVE), each in one process with Tingji, the two taking
  turns on the same audio: the ratios are medians of those back-to-back pairs.
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

from common import (  # noqa: E402
    BENCH,
    REFERENCE_ENV,
    build_checkpoint,
    build_sherpa_peer,
    export_is_current,
    goals_met,
    machine,
    paired,
    read_audio,
    rss_now_mb,
    run_child,
    strip_private,
    timed,
    timed_summary,
    vm_hwm_mb,
    write_latest,
)
from flops import sanm_encoder_flops  # noqa: E402
from limits import stage_gemm  # noqa: E402

THREADS = 2
SAMPLE_RATE = 16000
GOALS = {  # issue 36; checked only when the key was measured (the peers are optional)
    "paraformer_speedup_vs_sherpa_60s": (">=", 2.0),
    "paraformer_speedup_vs_sherpa_3s": (">=", 2.0),
    "paraformer_speedup_vs_funasr_60s": (">=", 3.0),
    "paraformer_peak_rss_mb": ("<=", 700.0),
    "punctuation_share_of_file": ("<=", 0.05),
}
# -- building ---------------------------------------------------------------------------


def _export(ckpt: Path, cache: Path, what: str, log: Callable[[str], None]) -> tuple[Path, dict[str, Any]]:
    """Tingji's int8 export of `ckpt` into `cache/int8` (cached), and its export figures."""
    from export_probe import probe_export

    model, stats_path = cache / "int8", cache / "export-int8.json"
    if not export_is_current(model, "int8") or not stats_path.is_file():
        shutil.rmtree(model, ignore_errors=True)
        log(f"exporting {what} (int8)")
        stats = probe_export(ckpt, model, "int8", "f16")  # the decoder quantisation does not apply here
        if stats["returncode"] != 0:
            raise RuntimeError(f"{what} export failed:\n" + "\n".join(stats.get("stderr_tail", [])))
        stats_path.write_text(json.dumps(stats, indent=2))
    return model, json.loads(stats_path.read_text())


def build(
    cache: Path, quick: bool, log: Callable[[str], None] = print, long_audio: Path | None = None
) -> dict[str, Any]:
    """Checkpoints, Tingji's int8 exports, funasr's export for sherpa-onnx (if it can run), the audio.

    Args:
        cache: this family's cache folder.
        quick: tiny models instead of the releases' sizes.
        log: where progress lines go.
        long_audio: the file for the peak-RSS and punctuation figures (run.py passes its 5-minute
            file); None: one is made here (5 minutes, 40 s with `quick`).
    """
    import sherpa_paraformer
    import tiny_ct_punc
    import tiny_paraformer
    from speech import make_long

    make = functools.partial(tiny_paraformer.make_checkpoint, variant="bicif")
    ckpt = build_checkpoint(cache, make, quick, "Paraformer-zh", log)
    punc_ckpt = build_checkpoint(cache / "ct-punc", tiny_ct_punc.make_checkpoint, quick, "CT-Transformer", log)
    model, export = _export(ckpt, cache, "Paraformer-zh", log)
    punc_model, punc_export = _export(punc_ckpt, cache / "ct-punc", "CT-Transformer punctuation", log)
    if long_audio is None:
        seconds = 40 if quick else 300
        long_audio = make_long(cache / f"long{seconds}.wav", seconds)
    built: dict[str, Any] = {
        "checkpoint": str(ckpt),
        "model": str(model),
        "punctuation": str(punc_model),
        "export": export,
        "punctuation_export": punc_export,
        "audio": str(make_long(cache / "long60.wav", 60)),
        "file": str(long_audio),
    }
    build_sherpa_peer(
        sherpa_paraformer, ckpt, cache / "sherpa", built, log, "funasr's Paraformer export for sherpa-onnx"
    )
    return built


# -- the systems, as each stage runs them ------------------------------------------------------


def _tingji(a: dict[str, Any], punctuation: bool = False) -> Any:
    from tingji.engine import Engine

    return Engine(a["model"], provider="cpu", threads=THREADS, punctuation=a["punctuation"] if punctuation else None)


def _dictation(engine: Any) -> Callable[[np.ndarray], Any]:
    """A take as the app's dictation runs it (tingji.dictation.takes): the live lane, no timestamps."""
    from tingji.engine.options import TranscribeOptions

    options = TranscribeOptions(timestamps=False)
    return lambda samples: engine.live.transcribe(samples, options)


def _tingji_window(engine: Any) -> Callable[[np.ndarray], Any]:
    """One window through the recognizer alone (what a 60 s window costs, no VAD or segmenting)."""
    from tingji.engine.options import TranscribeOptions

    options, lane = TranscribeOptions(), engine.files.state
    return lambda samples: engine.recognizer.recognize(samples, options, lane)


def _sherpa(model: str, tokens: str) -> Callable[[np.ndarray], None]:
    import sherpa_onnx

    rec = sherpa_onnx.OfflineRecognizer.from_paraformer(paraformer=model, tokens=tokens, num_threads=THREADS)

    def decode(samples: np.ndarray) -> None:
        stream = rec.create_stream()
        stream.accept_waveform(SAMPLE_RATE, samples)
        rec.decode_stream(stream)  # the text of random weights is not read

    return decode


def _funasr(checkpoint: str) -> Callable[[np.ndarray], Any]:
    """funasr's BiCifParaformer through `inference`, frontend dither 0 (tests.support.reference_paraformer)."""
    import torch

    from tests.support.reference_paraformer import ParaformerReference

    ref = ParaformerReference(Path(checkpoint))
    torch.set_num_threads(THREADS)  # after loading: funasr's loader sets its own count
    return ref.run


# -- stages (each in its own child process) ------------------------------------------------


def stage_tingji(a: dict[str, Any]) -> dict[str, Any]:
    """Load + warm, dictation of a 3 s utterance, one full window, 60 s of speech; peak RSS."""
    from speech import make_utterance

    t0 = time.perf_counter()
    engine = _tingji(a)
    out: dict[str, Any] = {
        "load_and_warm_s": round(time.perf_counter() - t0, 3),
        "threads": THREADS,
        "rss_after_load_mb": rss_now_mb(),
        "window_seconds": engine.manifest.window_seconds,
    }
    utt, dictate = make_utterance(3.0), _dictation(engine)
    runs = []
    for _ in range(a["reps_short"] + 1):  # the first is a warm-up
        t = time.perf_counter()
        tr = dictate(utt)
        runs.append((time.perf_counter() - t, tr))
    runs = sorted(runs[1:], key=lambda r: r[0])
    median = runs[len(runs) // 2]
    out["dictation_3s"] = {
        "median_s": median[0],
        "all_s": [round(r[0], 4) for r in runs],
        "tokens": len(median[1].window_tokens[0]) if median[1].window_tokens else 0,
        "timings_of_median": {k: round(v, 4) for k, v in median[1].timings.items()},
    }
    speech = read_audio(a["audio"], 60.0)
    window = speech[: int(engine.manifest.window_seconds * SAMPLE_RATE)]
    recognize = _tingji_window(engine)
    w = timed(functools.partial(recognize, window), a["reps_long"])
    out["window_60s"] = {
        **timed_summary(w),
        "tokens": len(w["_result"].tokens),
        "timings": {k: round(v, 4) for k, v in w["_result"].timings.items()},
    }
    t = timed(functools.partial(engine.transcribe, speech), a["reps_long"])
    out["audio_60s"] = {
        **timed_summary(t),
        "windows": t["_result"].windows,
        "timings": {k: round(v, 3) for k, v in t["_result"].timings.items()},
    }
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    engine.close()
    return out


def stage_file(a: dict[str, Any]) -> dict[str, Any]:
    """Paraformer + punctuation loaded as the app loads them, transcribing the long file: peak RSS and
    how much of the file's time the punctuation took."""
    t0 = time.perf_counter()
    engine = _tingji(a, punctuation=True)
    out: dict[str, Any] = {
        "load_and_warm_s": round(time.perf_counter() - t0, 3),
        "rss_after_load_mb": rss_now_mb(),
        "punctuation_loaded": engine.punctuator is not None,
    }
    runs = []
    for _ in range(a["file_runs"]):
        t = time.perf_counter()
        tr = engine.transcribe(a["file"])
        runs.append((time.perf_counter() - t, tr))
    wall, tr = min(runs, key=lambda r: r[0])  # the least disturbed run (the first pays first-file costs)
    import soundfile as sf

    info = sf.info(a["file"])
    punct = tr.timings.get("punctuation", 0.0)
    out.update(
        audio_s=round(info.frames / info.samplerate, 2),
        all_s=[round(r[0], 3) for r in runs],
        wall_s=round(wall, 3),
        rtf=wall / (info.frames / info.samplerate),
        windows=tr.windows,
        characters=len(tr.text),
        timings={k: round(v, 4) for k, v in tr.timings.items()},
        punctuation_s=round(punct, 4),
        punctuation_share=punct / wall,
        peak_rss_mb=round(vm_hwm_mb(), 1),
        rss_end_mb=rss_now_mb(),
    )
    engine.close()
    return out


def stage_sherpa(a: dict[str, Any]) -> dict[str, Any]:
    """sherpa-onnx alone on funasr's int8 export: load, 3 s and 60 s (one pass each), peak RSS."""
    from speech import make_utterance

    t0 = time.perf_counter()
    decode = _sherpa(a["sherpa_model"], a["tokens"])
    out: dict[str, Any] = {"load_s": round(time.perf_counter() - t0, 3), "threads": THREADS}
    out["dictation_3s"] = timed_summary(timed(functools.partial(decode, make_utterance(3.0)), a["reps_short"]))
    out["audio_60s"] = timed_summary(timed(functools.partial(decode, read_audio(a["audio"], 60.0)), a["reps_long"]))
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    return out


def stage_paired(a: dict[str, Any]) -> dict[str, Any]:
    """Tingji and a peer (`a["peer"]`: sherpa or funasr) in one process, taking turns on the same audio.

    On a shared machine the load changes from minute to minute; the ratio of
    two runs made back to back is steadier than that of two stages made
    minutes apart. 3 s: Tingji's dictation lane against the peer's one pass;
    60 s: one full window through Tingji's recognizer against the peer's one
    pass over the same samples. Each side runs once untimed first.
    """
    from speech import make_utterance

    engine = _tingji(a)
    if a["peer"] == "sherpa":
        peer = _sherpa(a["sherpa_model"], a["tokens"])
    else:
        peer = _funasr(a["checkpoint"])
    speech = read_audio(a["audio"], 60.0)
    window = speech[: int(engine.manifest.window_seconds * SAMPLE_RATE)]
    cases = {
        "3s": (make_utterance(3.0), _dictation(engine), a["reps_short"]),
        "60s": (window, _tingji_window(engine), a["reps_long"]),
    }
    out: dict[str, Any] = {"peer": a["peer"], "threads": THREADS, "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY")}
    for name, (samples, tingji, reps) in cases.items():
        out[name] = paired(tingji, peer, samples, reps, "peer")
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    engine.close()
    return out


STAGES = {
    "pf_gemm": stage_gemm,  # limits.py
    "pf_tingji": stage_tingji,
    "pf_file": stage_file,
    "pf_sherpa": stage_sherpa,
    "pf_paired": stage_paired,
}


# -- measuring and reporting -----------------------------------------------------------------


def measure(
    built: dict[str, Any],
    quick: bool,
    log: Callable[[str], None] = print,
    peers: tuple[str, ...] = ("sherpa", "funasr"),
    reps_override: int | None = None,
) -> dict[str, Any]:
    """Tingji's stages, then each of `peers` that can run here, paired with Tingji.

    Args:
        reps_override: every stage's timed repetitions and pairs (one run of the long file when set);
            None: 1 with `quick`, else the counts the README gives.
    """

    def n(full: int) -> int:
        return reps_override if reps_override is not None else 1 if quick else full

    reps = {"reps_short": n(9), "reps_long": n(3)}
    base = {"model": built["model"], "punctuation": built["punctuation"], "audio": built["audio"]}
    res: dict[str, Any] = {
        "weights": "tiny" if quick else "full-size",
        "export": built["export"],
        "punctuation_export": built["punctuation_export"],
    }
    from tingji.engine.frontend import num_lfr_frames

    log("Paraformer: the machine's GEMM throughput")
    res["gemm"] = run_child("pf_gemm", {"threads": THREADS, "reps": 3 if quick else 10}, log=log)
    res["encoder_gflop"] = {
        name: sanm_encoder_flops(built["checkpoint"], num_lfr_frames(int(seconds * SAMPLE_RATE)))["total"] / 1e9
        for name, seconds in (("3s", 3.0), ("60s", 60.0))
    }
    log("Paraformer: tingji")
    res["tingji"] = run_child("pf_tingji", {**base, **reps}, log=log)
    log("Paraformer + punctuation: the long file")
    res["file"] = run_child(
        "pf_file", {**base, "file": built["file"], "file_runs": 1 if quick or reps_override else 2}, log=log
    )
    pairs = {"reps_short": n(15), "reps_long": n(5)}
    if "sherpa" in peers and "sherpa" in built:
        sherpa = {"sherpa_model": built["sherpa"]["model_int8"], "tokens": built["sherpa"]["tokens"]}
        log("Paraformer: sherpa-onnx")
        res["sherpa"] = run_child("pf_sherpa", {**base, **sherpa, **reps}, log=log)
        log("Paraformer: Tingji and sherpa-onnx taking turns")
        res["paired_sherpa"] = run_child("pf_paired", {**base, **sherpa, **pairs, "peer": "sherpa"}, log=log)
    elif "sherpa" in peers:
        res["sherpa_skipped"] = built["sherpa_skipped"]
    if "funasr" in peers:
        log("Paraformer: Tingji and funasr (torch) taking turns")
        res["paired_funasr"] = run_child(
            "pf_paired",
            {
                **base,
                "checkpoint": built["checkpoint"],
                "reps_short": n(7),
                "reps_long": n(3),
                "peer": "funasr",
            },
            env=REFERENCE_ENV,
            log=log,
        )
    return res


def summary(res: dict[str, Any]) -> dict[str, Any]:
    """The figures latest.json carries at the top level (ratios from back-to-back pairs in this run)."""
    tj, f = res["tingji"], res["file"]
    out: dict[str, Any] = {
        "paraformer_60s_s": tj["window_60s"]["median_s"],
        "paraformer_3s_s": tj["dictation_3s"]["median_s"],
        "paraformer_peak_rss_mb": f["peak_rss_mb"],
        "punctuation_share_of_file": f["punctuation_share"],
        "paraformer_60s_engine_s": tj["audio_60s"]["median_s"],
        "paraformer_load_and_warm_s": tj["load_and_warm_s"],
        "paraformer_peak_rss_mb_without_punctuation": tj["peak_rss_mb"],
        "paraformer_file_rtf": f["rtf"],
    }
    # The floor: the encoder's arithmetic alone at the fastest GEMM this machine ran at the same threads.
    limit = res["gemm"]["limit_gops"]
    floor = {case: gflop / limit for case, gflop in res["encoder_gflop"].items()}
    out["paraformer_gemm_limit_gops"] = limit
    out["paraformer_60s_encoder_floor_s"] = floor["60s"]
    out["paraformer_60s_floor_fraction"] = floor["60s"] / out["paraformer_60s_s"]
    for peer in ("sherpa", "funasr"):
        if f"paired_{peer}" in res:
            p = res[f"paired_{peer}"]
            for case in ("60s", "3s"):
                out[f"paraformer_speedup_vs_{peer}_{case}"] = p[case]["speedup_median"]
                # The most any runtime doing the encoder's arithmetic could gain over this peer here.
                out[f"paraformer_speedup_vs_{peer}_{case}_ceiling"] = p[case]["peer_median_s"] / floor[case]
    if "sherpa" in res:
        out["paraformer_sherpa_peak_rss_mb"] = res["sherpa"]["peak_rss_mb"]
    return out


def goals(summ: dict[str, Any]) -> dict[str, Any]:
    """Each measured goal: value, goal and whether it was met."""
    return goals_met(summ, GOALS)


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f}"


def markdown(res: dict[str, Any], summ: dict[str, Any]) -> list[str]:
    """The results section for latest.md: one row per system, then the file and the ratios (the goals are
    in run.py's table)."""
    tj, f, sh = res["tingji"], res["file"], res.get("sherpa")
    ps, pf = res.get("paired_sherpa"), res.get("paired_funasr")
    lines = [
        "",
        f"## Paraformer-zh (2 threads, the same random {res['weights']} weights)",
        "",
        "| system | 3 s utterance | 60 s window | peak RSS MB |",
        "|---|---|---|---|",
        f"| Tingji int8 (3 s: a dictation take, VAD included, no timestamps) | {tj['dictation_3s']['median_s']:.3f} | "
        f"{tj['window_60s']['median_s']:.3f} ({tj['window_60s']['tokens']} tokens) | {tj['peak_rss_mb']:.0f} |",
    ]
    if sh is not None:
        lines.append(
            f"| sherpa-onnx int8 (funasr's model_quant.onnx) | {sh['dictation_3s']['median_s']:.3f} | "
            f"{sh['audio_60s']['median_s']:.3f} | {sh['peak_rss_mb']:.0f} |"
        )
    if pf is not None:
        lines.append(
            f"| funasr BiCifParaformer (torch fp32; paired medians) | {pf['3s']['peer_median_s']:.3f} | "
            f"{pf['60s']['peer_median_s']:.3f} | |"
        )
    lines += [
        "",
        f"60 s of speech through `Engine.transcribe`: {tj['audio_60s']['median_s']:.3f} s "
        f"({tj['audio_60s']['windows']} windows). With punctuation, the {f['audio_s']:.0f} s file: "
        f"{f['wall_s']:.2f} s (RTF {f['rtf']:.3f}), punctuation {f['punctuation_s']:.3f} s = "
        f"{f['punctuation_share']:.1%} of it, peak RSS {f['peak_rss_mb']:.0f} MB.",
    ]
    g = res["gemm"]
    lines += [
        "",
        f"The floor: the encoder's arithmetic alone ({res['encoder_gflop']['60s']:.0f} GFLOP for 60 s, "
        f"{res['encoder_gflop']['3s']:.1f} for 3 s) at the fastest GEMM this machine ran on {g['threads']} threads, "
        f"{g['limit_gops']:.0f} G/s (ONNX Runtime fp32 {g['ort_fp32_gops']:.0f}, int8 {g['ort_int8_gops']:.0f}, "
        f"torch fp32 {_f(g['torch_fp32_gops'])}; one thread: {g['ort_fp32_gops_1thread']:.1f}, "
        f"{g['ort_int8_gops_1thread']:.1f}, {_f(g['torch_fp32_gops_1thread'])}): "
        f"{summ['paraformer_60s_encoder_floor_s']:.2f} s for 60 s, which is "
        f"{summ['paraformer_60s_floor_fraction']:.0%} of Tingji's window.",
    ]
    if ps is None:
        lines += ["", f"sherpa-onnx skipped: {res.get('sherpa_skipped', 'not run')}"]
    for name, key, p in (("sherpa-onnx", "sherpa", ps), ("funasr", "funasr", pf)):
        if p is not None:
            ceiling = f"paraformer_speedup_vs_{key}"
            lines.append(
                f"Speed-up over {name} (median of back-to-back pairs): 3 s {p['3s']['speedup_median']:.2f}x, "
                f"60 s {p['60s']['speedup_median']:.2f}x; at most {summ[ceiling + '_3s_ceiling']:.2f}x and "
                f"{summ[ceiling + '_60s_ceiling']:.2f}x for any runtime at the floor."
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny models, one repetition")
    ap.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument(
        "--write",
        action="store_true",
        help="merge the figures into results/latest.json (its top-level keys and a `paraformer` section with this "
        "run's machine, load and date), as dictation_preview.py does; for a run of this family alone",
    )
    ap.add_argument("--peers", default="sherpa,funasr", help="which peers run beside Tingji (comma-separated)")
    ap.add_argument(
        "--reps", type=int, help="timed repetitions and pairs per stage (a check that it runs, not figures)"
    )
    args = ap.parse_args(argv)
    built = build(args.cache_dir / ("quick" if args.quick else "full") / "paraformer", args.quick)
    res = measure(built, args.quick, peers=tuple(p for p in args.peers.split(",") if p), reps_override=args.reps)
    summ = summary(res)
    doc = {"machine": machine(), "load": os.getloadavg(), "summary": summ, "goals": goals(summ), "results": res}
    text = json.dumps(strip_private(doc), indent=2, default=str)
    print(text)
    print("\n".join(markdown(res, summ)))
    for key, g in doc["goals"].items():
        print(f"goal {key}: {g['value']:.3f} (goal {g['goal']}) {'met' if g['met'] else 'NOT met'}")
    if args.json:
        args.json.write_text(text + "\n")
    if args.write and not args.quick and args.reps is None:
        write_latest(summ, "paraformer", doc | {"date": time.strftime("%Y-%m-%d %H:%M")})
    elif args.write:
        print("not written: --quick and --reps runs are checks, not figures", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
