#!/usr/bin/env python3
"""Speaker labels: their cost beside a transcription, a 60-minute file's speakers, and the voice-match threshold.

    python benchmarks/diarization.py [--quick] [--write]   # this step alone; prints the summary
    python benchmarks/diarization.py --voices [--write]    # same/different-voice scores of the demo speaker model
    python benchmarks/run.py                               # everything, speakers included

Builds (once, cached under benchmarks/.cache/{full,quick}/campplus/) a
random-weight CAM++ checkpoint (the release's sizes; tiny with --quick) and
its export. Each stage runs in its own child process with 2 threads:

* the file: Fun-ASR-Nano int8 transcribing the 5-minute espeak-ng file (run.py's; 40 s with --quick), once
  without a speaker model and once with it and speakers "auto": the speakers step's time (embedding each
  window's speech as it goes by, clustering and labelling at the end) as a share of the plain
  transcription's wall time, and the difference of the two processes' peak RSS;
* 60 minutes: the same file twelve times over (two with --quick), cut into windows by the engine's VAD as
  `Engine.transcribe` does, through the speakers step alone (`SpeakerLabels`: embeddings, then auto-count
  clustering of every window): its time, how much of it the clustering took, windows and ms per window;
* FunASR side by side (issue 45): the file twice over (10 minutes; 80 s with --quick), the same VAD spans,
  through Tingji's speakers step and through FunASR's own pipeline - funasr's torch `CAMPPlus` on its
  `sv_chunk` windows of each VAD segment, one batch per segment, as `AutoModel.inference_with_vad` runs
  it (torch on 2 threads, OMP_WAIT_POLICY=PASSIVE), then its spectral `ClusterBackend`;
* the floor: a window's FLOPs (the fixed one-window graph's convolutions and matrix products, counted from
  its static shapes) at the fastest GEMM measured in the same run (`limits.stage_gemm`: ONNX Runtime
  fp32 and int8, torch fp32, on 2 threads), divided by the measured time per window.

Random weights time the work the real model does (same graph, same window
count); their labels mean nothing. `--voices` uses the trained demo speaker
model (tests/fixtures/models/speaker-demo) on calibration voices instead
(`calibration_voices`: the held-out espeak-ng variants at accents and pitches
the tests' voices do not use, in recordings of another seed): voice prints of
each voice in three recordings, the cosine of every same-voice and
different-voice pair, and the voice library's threshold chosen from them
(midway between the highest different-voice score and the lowest same-voice
score; above the highest different-voice score, so no calibration voice is
taken for another).
"""

from __future__ import annotations

import argparse
import itertools
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

from campplus_products import stage_products, twin_shapes  # noqa: E402
from common import (  # noqa: E402
    BENCH,
    REFERENCE_ENV,
    build_checkpoint,
    goals_met,
    machine,
    rss_now_mb,
    run_child,
    strip_private,
    vm_hwm_mb,
    write_latest,
)
from limits import stage_gemm  # noqa: E402

THREADS = 2
SAMPLE_RATE = 16000
GOALS = {  # issue 33's share and memory; issue 45's hour (on AVX-512 VNNI or AMX), floor and FunASR ratio
    "diarization_share_of_file": ("<=", 0.05),
    "diarization_peak_rss_delta_mb": ("<=", 60.0),
    "diarization_60min_s": ("<=", 60.0),
    "diarization_floor_fraction": (">=", 0.7),
    "diarization_speedup_vs_funasr": (">=", 2.5),
}
ROOT = Path(__file__).resolve().parents[1]
SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"


# -- building ---------------------------------------------------------------------------------


def build(cache: Path, quick: bool, file: Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    """The CAM++ checkpoint and export (cached), and the long file repeated to 60 minutes (2 copies with quick).

    Args:
        cache: this step's cache folder.
        quick: the tiny CAM++ instead of the release's size.
        file: the file whose transcription the speakers step is compared with (run.py's 5-minute file).
        log: where progress lines go.
    """
    import soundfile as sf
    from tiny_campplus import WEIGHTS_NAME, make_checkpoint

    ckpt = cache / "checkpoint"
    if not (ckpt / WEIGHTS_NAME).is_file():  # common.build_checkpoint looks for a model.pt, which CAM++ has not
        log(f"building {'tiny' if quick else 'full-size'} CAM++ checkpoint in {ckpt}")
        shutil.rmtree(ckpt, ignore_errors=True)
        make_checkpoint(ckpt, seed=0, full_size=not quick)
    model = cache / "model"
    made_by = model / "exporter-sources.txt"  # a cached export from older exporter sources is made again
    digest = campplus_sources()
    if not (model / "manifest.json").is_file() or not made_by.is_file() or made_by.read_text() != digest:
        shutil.rmtree(model, ignore_errors=True)
        log("exporting CAM++")
        import subprocess

        # int8: the fp32 graphs and the int8 CPU graph beside them; the engine picks by CPU (issue 45)
        cmd = [sys.executable, "-m", "tingji", "export-model", "--source", str(ckpt), "--out", str(model)]
        cmd += ["--precision", "int8"]
        subprocess.run(cmd, check=True, capture_output=True)
        made_by.write_text(digest)
    paths = {}
    for name, copies in (("long", 2 if quick else 12), ("pair", 2)):
        paths[name] = cache / f"long-x{copies}.wav"
        if not paths[name].is_file():
            x, sr = sf.read(str(file), dtype="float32")
            sf.write(str(paths[name]), np.tile(x, copies), sr)
    built = {"model": str(model), "checkpoint": str(ckpt), "file": str(file), "quick": quick}
    return {**built, "long": str(paths["long"]), "pair": str(paths["pair"])}


def campplus_sources() -> str:
    """SHA-256 of the CAM++ exporter's sources (its graph's definition)."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((ROOT / "app" / "tingji" / "export" / "campplus").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


# -- stages (child processes) -----------------------------------------------------------------


def stage_file(a: dict[str, Any]) -> dict[str, Any]:
    """Fun-ASR-Nano transcribing the file, with (speakers "auto") or without a speaker model."""
    from tingji.engine import Engine, TranscribeOptions

    engine = Engine(a["nano"], provider="cpu", threads=THREADS, speaker_model=a.get("speaker_model"))
    options = TranscribeOptions(speakers="auto" if a.get("speaker_model") else "off")
    t = time.perf_counter()
    tr = engine.transcribe(a["file"], options)
    wall = time.perf_counter() - t
    out = {
        "wall_s": round(wall, 3),
        "audio_s": round(tr.duration, 2),
        "speakers_s": round(tr.timings.get("speakers", 0.0), 4),
        "speakers": len(tr.speakers),
        "timings": {k: round(v, 4) for k, v in tr.timings.items()},
        "peak_rss_mb": round(vm_hwm_mb(), 1),
        "rss_end_mb": rss_now_mb(),
    }
    engine.close()
    return out


def stage_hour(a: dict[str, Any]) -> dict[str, Any]:
    """The speakers step alone over the long file's VAD windows, as `Engine.transcribe` feeds it."""
    import soundfile as sf

    from tingji.engine.speakers.labels import SpeakerLabels
    from tingji.engine.speakers.model import SpeakerModel
    from tingji.engine.transcript import Segment

    samples, _ = sf.read(a["long"], dtype="float32")
    windows = vad_windows(samples)
    # int8 None: the engine's own choice (the int8 graph where this CPU sums int8 in int32); False: fp32
    model = SpeakerModel(a["model"], provider="cpu", threads=THREADS, int8=a.get("int8"))
    labels = SpeakerLabels(model)
    t = time.perf_counter()
    for w in windows:
        labels.add(w.samples, w.start, w.speech)
    embed_s = time.perf_counter() - t
    segments = [Segment(w.start_s + s, w.start_s + e, "x") for w in windows for s, e in w.speech]
    t = time.perf_counter()
    names, _ = labels.label(segments)
    label_s = time.perf_counter() - t
    return {
        "audio_s": round(len(samples) / SAMPLE_RATE, 1),
        "graph": model.role,  # embedder (fp32) or embedder_int8
        "windows": len(labels.windows),
        "speech_s": round(labels.speech_s, 1),
        "embed_s": round(embed_s, 3),
        "cluster_and_label_s": round(label_s, 3),
        "total_s": round(embed_s + label_s, 3),
        "speakers": len(names),
        "window_flops": window_flops(Path(a["model"])),
        "peak_rss_mb": round(vm_hwm_mb(), 1),
    }


def vad_windows(samples: np.ndarray) -> list:
    """The engine's VAD windows (at most 60 s, with their speech spans) of a whole file, as `Engine.transcribe`
    cuts them."""
    from tingji.engine.vad import SileroVad
    from tingji.engine.windows import WindowPlanner

    planner = WindowPlanner(SileroVad(), max_s=60.0)
    return [*planner.feed(samples), *planner.finish()]


def stage_funasr(a: dict[str, Any]) -> dict[str, Any]:
    """FunASR's own speaker pipeline on the same VAD spans: funasr's torch CAMPPlus over each segment's
    `sv_chunk` windows, one batch per segment (`AutoModel.inference_with_vad`), then `ClusterBackend`."""
    import soundfile as sf
    import torch
    from funasr.auto.auto_model import AutoModel
    from funasr.models.campplus.cluster_backend import ClusterBackend
    from funasr.models.campplus.utils import sv_chunk

    torch.set_num_threads(THREADS)
    samples, _ = sf.read(a["long"], dtype="float32")
    spans = [
        (w.start + round(s * SAMPLE_RATE), w.start + round(e * SAMPLE_RATE))
        for w in vad_windows(samples)
        for s, e in w.speech
    ]
    # AutoModel sets torch's threads to its `ncpu` (4 unless told)
    auto = AutoModel(model=a["checkpoint"], device="cpu", ncpu=THREADS, disable_update=True, log_level="ERROR")
    torch.set_num_threads(THREADS)
    model = auto.model.eval()
    embeddings, windows = [], 0
    t = time.perf_counter()
    with torch.no_grad():
        for first, end in spans:
            chunks = sv_chunk([[first / SAMPLE_RATE, end / SAMPLE_RATE, samples[first:end]]], SAMPLE_RATE)
            windows += len(chunks)
            results, _ = model.inference([torch.from_numpy(np.ascontiguousarray(c[2])) for c in chunks], device="cpu")
            embeddings.append(results[0]["spk_embedding"])
        embed_s = time.perf_counter() - t
        np.random.seed(0)  # funasr's k-means draws from numpy's global generator
        labels = ClusterBackend()(torch.cat(embeddings).numpy().astype(np.float64))
    total = time.perf_counter() - t
    return {
        "audio_s": round(len(samples) / SAMPLE_RATE, 1),
        "windows": windows,
        "embed_s": round(embed_s, 3),
        "cluster_s": round(total - embed_s, 3),
        "total_s": round(total, 3),
        "speakers": int(len(set(np.asarray(labels).tolist()))),
        "torch_threads": torch.get_num_threads(),
        "peak_rss_mb": round(vm_hwm_mb(), 1),
    }


def window_flops(model: Path) -> float:
    """Multiply-adds x 2 of one window through the speaker graph: its fixed twin's Conv, MatMul and Gemm nodes,
    with the shapes ONNX shape inference gives (all static in that graph), over the twin's rows (the batch
    twin's `fixed_batch` windows; a folder made before it has a one-window twin)."""
    graph, shapes = twin_shapes(model)
    macs = 0
    for node in graph.node:
        if node.op_type == "Conv":
            out, w = shapes[node.output[0]], shapes[node.input[1]]
            macs += int(np.prod(out)) * int(np.prod(w[1:]))  # each output: in-channels/group x kernel
        elif node.op_type in ("MatMul", "Gemm"):
            x, w = shapes[node.input[0]], shapes[node.input[1]]
            k = x[-1]
            macs += int(np.prod(shapes[node.output[0]])) * k
    return float(2 * macs) / shapes[graph.input[0].name][0]


STAGES = {
    "dz_file": stage_file,
    "dz_hour": stage_hour,
    "dz_funasr": stage_funasr,
    "dz_gemm": stage_gemm,
    "dz_products": stage_products,
}


# -- measuring and reporting ------------------------------------------------------------------


def nano_int8(cache: Path, quick: bool, build_model: bool = True) -> tuple[Path | None, Path]:
    """Fun-ASR-Nano's int8 export (run.py's PRIMARY, in run.py's cache folders; None without `build_model`) and
    its long file, for a run of this step alone: the other two configurations are not built."""
    import run
    from export_probe import probe_export
    from make_tiny_checkpoint import make_checkpoint
    from speech import make_long

    seconds = 40 if quick else 300
    audio = make_long(cache / "audio" / f"long{seconds}.wav", seconds)
    if not build_model:
        return None, audio
    ckpt = build_checkpoint(cache, make_checkpoint, quick, "Fun-ASR-Nano", run.log)
    folder = cache / run.PRIMARY
    precision, quant = run.CONFIGS[run.PRIMARY]
    if not run.export_is_current(folder, precision):
        shutil.rmtree(folder, ignore_errors=True)
        run.log(f"exporting {run.PRIMARY}")
        stats = probe_export(ckpt, folder, precision, quant)
        if stats["returncode"] != 0:
            raise RuntimeError("export failed:\n" + "\n".join(stats.get("stderr_tail", [])))
    return folder, audio


def measure(
    built: dict[str, Any], nano: Path | None, log: Callable[[str], None] = print, hour_only: bool = False
) -> dict[str, Any]:
    """The three stages; `nano` is the Fun-ASR-Nano int8 model folder (with `hour_only`, the 60-minute stage only)."""
    res: dict[str, Any] = {"weights": "tiny" if built["quick"] else "full-size"}
    if not hour_only:
        base = {"nano": str(nano), "file": built["file"]}
        log("speakers: the file without speakers")
        res["plain"] = run_child("dz_file", base, log=log)
        log("speakers: the file with speakers (auto)")
        res["labelled"] = run_child("dz_file", {**base, "speaker_model": built["model"]}, log=log)
    log("speakers: the long file, speakers step alone")
    res["hour"] = run_child("dz_hour", {"model": built["model"], "long": built["long"]}, log=log)
    log("speakers: the long file, speakers step alone, fp32 graph")
    res["hour_fp32"] = run_child("dz_hour", {"model": built["model"], "long": built["long"], "int8": False}, log=log)
    log("speakers: GEMM limits")
    res["gemm"] = run_child("dz_gemm", {"threads": THREADS, "reps": 3 if built["quick"] else 5}, log=log)
    log("speakers: the window's products alone")
    res["products"] = run_child("dz_products", {"model": built["model"], "rounds": 3 if built["quick"] else 9}, log=log)
    log("speakers: FunASR's pipeline and Tingji's on the same file")
    res["pair_tingji"] = run_child("dz_hour", {"model": built["model"], "long": built["pair"]}, log=log)
    pair = {"checkpoint": built["checkpoint"], "long": built["pair"]}
    res["pair_funasr"] = run_child("dz_funasr", pair, env=REFERENCE_ENV, log=log)
    return res


def summary(res: dict[str, Any]) -> dict[str, Any]:
    """The figures latest.json carries at the top level; the 60-minute figure scaled from 2 copies with quick."""
    hour = res["hour"]
    per_hour = 3600.0 / hour["audio_s"]
    ms_per_window = 1000 * hour["embed_s"] / hour["windows"]
    # the fastest GEMM of the run: limits' shape, or one of the window's own products where that was faster
    limit_gops = max(res["gemm"]["limit_gops"], res.get("products", {}).get("fastest_gops", 0.0))
    floor_ms = 1000 * hour["window_flops"] / (limit_gops * 1e9)
    out = {
        "diarization_60min_s": hour["total_s"] * per_hour,
        "diarization_60min_cluster_s": hour["cluster_and_label_s"] * per_hour,
        "diarization_windows_per_hour": round(hour["windows"] * per_hour),
        "diarization_ms_per_window": ms_per_window,
        "diarization_floor_ms_per_window": floor_ms,
        "diarization_limit_gops": limit_gops,
        "diarization_floor_fraction": floor_ms / ms_per_window,
        "diarization_speedup_vs_funasr": res["pair_funasr"]["total_s"] / res["pair_tingji"]["total_s"],
        "diarization_graph": hour.get("graph", "embedder"),
    }
    if "products" in res:  # the most of the floor a graph of these products can reach (campplus_products.py)
        products_ms = res["products"]["products_ms_per_window"]
        out["diarization_products_ms_per_window"] = products_ms
        out["diarization_products_floor_fraction"] = floor_ms / products_ms
        goal = GOALS["diarization_floor_fraction"][1]
        out["diarization_ms_beside_products_at_goal"] = floor_ms / goal - products_ms
    if "hour_fp32" in res:  # the same windows through the fp32 graph, same run
        fp32 = res["hour_fp32"]
        out["diarization_ms_per_window_fp32"] = 1000 * fp32["embed_s"] / fp32["windows"]
        out["diarization_int8_speedup"] = out["diarization_ms_per_window_fp32"] / ms_per_window
    if "plain" in res:
        plain, labelled = res["plain"], res["labelled"]
        out["diarization_share_of_file"] = labelled["speakers_s"] / plain["wall_s"]
        out["diarization_peak_rss_delta_mb"] = labelled["peak_rss_mb"] - plain["peak_rss_mb"]
    return out


def goals(summ: dict[str, Any]) -> dict[str, Any]:
    """Each measured goal: value, goal and whether it was met."""
    return goals_met(summ, GOALS)


def markdown(res: dict[str, Any], summ: dict[str, Any]) -> list[str]:
    hour = res["hour"]
    lines = ["", f"## Speaker labels (CAM++, {res['weights']} random weights, 2 threads)", ""]
    if "plain" in res:
        plain, labelled = res["plain"], res["labelled"]
        lines.append(
            f"The {plain['audio_s']:.0f} s file with Fun-ASR-Nano int8: {plain['wall_s']:.2f} s without speakers; "
            f"with speakers (auto) the speakers step took {labelled['speakers_s']:.2f} s = "
            f"{summ['diarization_share_of_file']:.1%} of that; peak RSS {plain['peak_rss_mb']:.0f} -> "
            f"{labelled['peak_rss_mb']:.0f} MB ({summ['diarization_peak_rss_delta_mb']:+.0f} MB)."
        )
    lines.append(
        f"{hour['audio_s']:.0f} s of audio ({hour['windows']} windows): embeddings {hour['embed_s']:.2f} s, "
        f"clustering and labels {hour['cluster_and_label_s']:.2f} s; 60 minutes: "
        f"{summ['diarization_60min_s']:.1f} s (clustering {summ['diarization_60min_cluster_s']:.1f} s)."
    )
    ours, peer = res["pair_tingji"], res["pair_funasr"]
    lines.append(
        f"{summ['diarization_ms_per_window']:.1f} ms per window; "
        f"floor {summ['diarization_floor_ms_per_window']:.1f} ms "
        f"({hour['window_flops'] / 1e9:.2f} GFLOP at {summ['diarization_limit_gops']:.0f} GOP/s): "
        f"{summ['diarization_floor_fraction']:.2f} of the floor."
    )
    if "diarization_products_ms_per_window" in summ:
        prod = res["products"]
        lines.append(
            f"The window's {prod['convolutions']} convolutions as GEMMs alone, the faster of ONNX Runtime's fp32 and "
            f"u8 x s8 products each: {summ['diarization_products_ms_per_window']:.2f} ms "
            f"({prod['products_gops']:.0f} GOP/s; fp32 only {prod['products_fp32_ms_per_window']:.2f}, int8 only "
            f"{prod['products_int8_ms_per_window']:.2f}) = {summ['diarization_products_floor_fraction']:.2f} of the "
            f"floor with nothing else; at the goal, {summ['diarization_ms_beside_products_at_goal']:.2f} ms a window "
            f"would be left for everything else (the 2-D front's patches alone: "
            f"{prod['front_patch_mb_per_window']:.1f} MB a window)."
        )
    if "diarization_ms_per_window_fp32" in summ:
        lines.append(
            f"Graph {summ['diarization_graph']}; the same windows through the fp32 graph in the same run: "
            f"{summ['diarization_ms_per_window_fp32']:.1f} ms per window ({summ['diarization_int8_speedup']:.2f}x)."
        )
    lines.append(
        f"FunASR's pipeline on the same {peer['audio_s']:.0f} s ({peer['windows']} windows): {peer['total_s']:.2f} s "
        f"(embeddings {peer['embed_s']:.2f} s); Tingji {ours['total_s']:.2f} s ({ours['windows']} windows): "
        f"{summ['diarization_speedup_vs_funasr']:.2f}x."
    )
    return lines


# -- the voice-match threshold (the trained demo speaker model) -------------------------------


CALIBRATION_SEED = 105  # the recordings' texts and noise: not the tests' (seed 5)


def calibration_voices() -> list:
    """The voices the threshold is fitted on: each held-out espeak-ng variant (never heard in training) at two
    accents and pitches that `voices.held_out_voices()` - the voices tests/engine/test_speaker_demo.py scores -
    does not use, so the tests judge the threshold on recordings it was not fitted on (issue 45)."""
    from demo_model.recipe import HELD_OUT_VARIANTS
    from demo_model.speech import Speaker
    from speaker_demo.voices import BASES

    out = []
    for i, variant in enumerate(HELD_OUT_VARIANTS):
        out.append(Speaker(BASES[13 + i % 7], variant, 158 + 3 * i, 40 + 3 * i, 1))
        out.append(Speaker(BASES[(i + 2) % 5], variant, 180 - 3 * i, 90 - 3 * i, 1))
    return out


def voice_scores(recordings_per_voice: int = 3, seed: int = CALIBRATION_SEED) -> dict[str, Any]:
    """Cosines of the calibration voices' prints, same voice and different voices, and the threshold they give."""
    from speaker_demo import voices

    from tingji.engine.speakers import diarize
    from tingji.engine.speakers.model import SpeakerModel
    from tingji.engine.vad import SileroVad
    from tingji.engine.windows import WindowPlanner

    model = SpeakerModel(SPEAKER_DEMO, provider="cpu", threads=THREADS)
    vad = SileroVad()
    prints, who = [], []
    held_out = calibration_voices()
    for v, recs in enumerate(voices.recordings(held_out, per_voice=recordings_per_voice, seed=seed)):
        for samples in recs:
            planner = WindowPlanner(vad, max_s=len(samples) / SAMPLE_RATE + 1)
            spans = [
                (w.start + round(a * SAMPLE_RATE), w.start + round(b * SAMPLE_RATE))
                for w in [*planner.feed(samples), *planner.finish()]
                for a, b in w.speech
            ]
            wins = diarize.windows(spans)
            emb = model.embed([diarize.window_audio(samples, w, model.window_samples) for w in wins])
            prints.append((emb / np.linalg.norm(emb, axis=1, keepdims=True)).mean(axis=0))
            who.append(v)
    unit = np.stack(prints)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    cos = unit @ unit.T
    pairs = list(itertools.combinations(range(len(who)), 2))
    same = np.array([cos[i, j] for i, j in pairs if who[i] == who[j]])
    diff = np.array([cos[i, j] for i, j in pairs if who[i] != who[j]])
    top, low = float(diff.max()), float(same.min())
    threshold = max(round(np.ceil(100 * (top + low) / 2) / 100, 2), round(np.ceil(100 * top + 1) / 100, 2))
    return {
        "voices": len(held_out),
        "recordings_per_voice": recordings_per_voice,
        "same_pairs": len(same),
        "different_pairs": len(diff),
        "same_min": round(float(same.min()), 4),
        "same_median": round(float(np.median(same)), 4),
        "different_max": round(float(diff.max()), 4),
        "different_median": round(float(np.median(diff)), 4),
        "same_histogram": np.histogram(same, bins=10, range=(-1, 1))[0].tolist(),
        "different_histogram": np.histogram(diff, bins=10, range=(-1, 1))[0].tolist(),
        "voice_match_threshold": threshold,
        "false_accepts": int((diff >= threshold).sum()),
        "false_rejects": int((same < threshold).sum()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny models, the 40 s file")
    ap.add_argument("--voices", action="store_true", help="the voice-match scores of the demo speaker model instead")
    ap.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    ap.add_argument(
        "--hour-only", action="store_true", help="only the 60-minute speakers figure (needs no Fun-ASR-Nano build)"
    )
    ap.add_argument("--write", action="store_true", help="merge the figures into results/latest.json (not --quick)")
    args = ap.parse_args(argv)
    if args.voices:
        summ = voice_scores()
        section = "voice_match"
        doc = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"), **summ}
        top = {"voice_match_threshold": summ["voice_match_threshold"]}
    else:
        import run

        cache = args.cache_dir / ("quick" if args.quick else "full")
        nano, audio = nano_int8(cache, args.quick, build_model=not args.hour_only)
        built = build(cache / "campplus", args.quick, audio, run.log)
        res = measure(built, nano, run.log, hour_only=args.hour_only)
        summ = summary(res)
        section = "diarization"
        doc = {"machine": machine(), "load": os.getloadavg(), "summary": summ, "goals": goals(summ), "results": res}
        doc["date"] = time.strftime("%Y-%m-%d %H:%M")
        top = summ
        print("\n".join(markdown(res, summ)))
    print(json.dumps(strip_private(doc), indent=2, default=str))
    if args.write and not args.quick:
        write_latest(top, section, doc)
    elif args.write:
        print("not written: --quick runs are checks, not figures", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
