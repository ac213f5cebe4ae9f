"""Qwen3-ASR's benchmark stages: both sizes at full size against transformers' native qwen3_asr.

`run.py` calls `build` and `measure` after Fun-ASR-Nano's stages (and its
`--child` dispatch knows `STAGES` below); alone, for development:

    python benchmarks/qwen3_asr.py --quick                 # tiny models, a few minutes
    python benchmarks/qwen3_asr.py --sizes 0.6b [--seconds 120]

which prints the results instead of writing results/latest.*.

Per size: a random-weight checkpoint at the release's shapes
(`tools/tiny_qwen3_asr.py`), exported int8 encoder + q5_k decoder (the small
configuration the memory goal names). Stages, each in its own process:

* `q3_tingji`: `Engine` load + warm, one 60 s window split into features /
  encoder / prefill / generation, llama.cpp's own batch throughput for a
  prompt of the same length (token ids through the same context, what
  `llama-bench`'s pp test measures), the 5-minute file with a forced token
  budget per window, peak RSS; then 3 s dictation takes - with Nano's model,
  Nano's engine loaded beside it and the two taking turns - and both
  decoders' generation at Nano's prompt length, also in turns;
* `q3_reference`: transformers (fp32, the same weights) on the windows
  Tingji's planner cuts, trimmed as Tingji trims them, with the same forced
  budget (`min_new_tokens` = `max_new_tokens`), plus the same 60 s split.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
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
    add_quiet_options,
    export_is_current,
    machine,
    reference_windows,
    rss_now_mb,
    run_child,
    run_windows,
    timed,
    use_quiet_options,
    vm_hwm_mb,
)

SIZES = ("0.6b", "1.7b")
PRECISION, QUANT = "int8", "q5_k"
SAMPLE_RATE = 16000
GOALS = {  # per size: key suffix -> (op, target); from issue 22
    "0.6b": {
        "speedup_vs_reference_e2e": (">=", 2.5),
        "peak_rss_mb": ("<=", 1100.0),
        "prefill_60s_fraction_of_llama_batch": (">=", 0.8),
        "dictation_3s_vs_nano": ("<=", 1.2),
        "gen_vs_nano_same_positions": (">=", 1.0),
    },
    "1.7b": {"speedup_vs_reference_e2e": (">=", 2.5), "peak_rss_mb": ("<=", 2200.0)},
}


def key(size: str, name: str) -> str:
    return f"qwen3_asr_{size.replace('.', '_')}_{name}"


# -- building ---------------------------------------------------------------------------------


def build(
    cache: Path, quick: bool, sizes: tuple[str, ...] = SIZES, log: Callable[[str], None] = print
) -> dict[str, dict[str, Any]]:
    """Per size a checkpoint and its int8 + q5_k export, built once under `cache/qwen3-<size>/`.

    Both are made in child processes (a full-size 1.7B checkpoint passes through several GB),
    the export through `export_probe` for its time and memory figures. A tiny checkpoint has
    the same sizes whatever the size asked for (tools/tiny_qwen3_asr.py's TINY), its files the
    same bytes, so --quick builds and exports it once, in `cache/qwen3-tiny/`, for every size.
    """
    from export_probe import probe_export

    built = {}
    for size in sizes:
        root = cache / ("qwen3-tiny" if quick else f"qwen3-{size}")
        ckpt, model, stats_path = root / "checkpoint", root / f"{PRECISION}-{QUANT}", root / "export.json"
        if not (ckpt / "model.safetensors").is_file():
            log(f"building {'tiny' if quick else 'full-size'} Qwen3-ASR-{size} checkpoint in {ckpt}")
            partial = root / "checkpoint.partial"
            shutil.rmtree(partial, ignore_errors=True)
            cmd = [
                sys.executable,
                str(BENCH.parent / "tools" / "make_tiny_checkpoint.py"),
                "--family",
                "qwen3-asr",
                "--size",
                size,
                "--out",
                str(partial),
            ] + ([] if quick else ["--full-size"])
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            partial.rename(ckpt)
        if not export_is_current(model, PRECISION) or not stats_path.is_file():
            log(f"exporting Qwen3-ASR-{size} (encoder {PRECISION}, decoder {QUANT})")
            shutil.rmtree(model, ignore_errors=True)
            stats = probe_export(ckpt, model, PRECISION, QUANT)
            if stats["returncode"] != 0:
                raise RuntimeError(f"export of Qwen3-ASR-{size} failed:\n" + "\n".join(stats.get("stderr_tail", [])))
            stats_path.write_text(json.dumps(stats, indent=2))
        built[size] = {"checkpoint": ckpt, "model": model, "export": json.loads(stats_path.read_text())}
    return built


# -- stages (child processes) --------------------------------------------------------------------


def _audio(path: str, seconds: float | None = None) -> np.ndarray:
    import soundfile as sf

    x, sr = sf.read(path, dtype="float32", frames=-1 if seconds is None else int(seconds * SAMPLE_RATE))
    assert sr == SAMPLE_RATE
    return x


def _median_run(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    """`fn` run `reps` times in a row: the median wall time and that run's result."""
    return _median(_in_turns({"run": fn}, reps, lambda _result, wall: wall)["run"])


def _window_split(engine, samples: np.ndarray, budget: int) -> dict[str, Any]:
    """One window through the recognizer, cold prefill (no cached prefix): seconds per stage.

    Timed after one untimed run of the same window, as the reference's split is (`q3_reference`).
    """
    from tingji.engine.families.qwen3_asr.encoder import num_tower_rows
    from tingji.engine.mel import num_frames
    from tingji.engine.options import TranscribeOptions

    lane = engine.files.state
    options = TranscribeOptions(max_tokens=budget, ignore_eos=True)
    for _ in range(2):
        lane._cached = []
        result = engine.recognizer.recognize(samples, options, lane)
    before, after = engine.recognizer._prompt(options)
    rows = num_tower_rows(num_frames(len(samples)))
    prompt = len(before) + rows + len(after)
    t = result.timings
    return {
        "audio_s": len(samples) / SAMPLE_RATE,
        "audio_rows": rows,
        "prompt_rows": prompt,
        "tokens": len(result.tokens),
        **{k: round(v, 4) for k, v in t.items()},
        "prefill_tok_s": prompt / t["prefill"],
        "gen_tok_s": (len(result.tokens) - 1) / t["generate"],
    }


def _llama_batch(lane, n: int, reps: int) -> dict[str, Any]:
    """llama.cpp's own prompt throughput at length n: token ids decoded in batches, same context and threads."""
    ids = np.random.default_rng(0).integers(0, min(lane.n_vocab, 150000), n).tolist()
    lane.ensure_context(n + 8)

    def once() -> None:
        lane._truncate(0)
        lane._cached = []
        lane._decode(0, tokens=ids)

    t = timed(once, reps)
    return {"tokens": n, "median_s": t["median_s"], "tok_s": n / t["median_s"], "threads": lane.n_threads}


def _in_turns(
    runs: dict[str, Callable[[], Any]], pairs: int, seconds: Callable[[Any, float], float]
) -> dict[str, list[tuple[float, Any]]]:
    """Every run once per pair, the order swapped every pair: drift in the machine's speed falls on all alike.

    Measured in blocks one after the other, the same code read 1.11 and 1.37 for the 3 s take
    ratio in two quiet runs, and two decoders of the same shape differed by up to 8% either way.
    `seconds(result, wall)` is the figure kept per run, beside the result.
    """
    times: dict[str, list[tuple[float, Any]]] = {name: [] for name in runs}
    for i in range(pairs):
        for name in list(runs) if i % 2 == 0 else list(runs)[::-1]:
            t = time.perf_counter()
            result = runs[name]()
            times[name].append((seconds(result, time.perf_counter() - t), result))
    return times


def _median(runs: list[tuple[float, Any]]) -> tuple[float, Any]:
    ordered = sorted(runs, key=lambda r: r[0])
    return ordered[len(ordered) // 2]


def _gen_pairs(
    ggufs: dict[str, str], prompt_rows: int, tokens: int, pairs: int, threads: int | None
) -> dict[str, float]:
    """Generation steps/s of each decoder after a prompt of `prompt_rows` embedding rows (forced tokens),
    both decoders open, in turns."""
    from tingji.engine.decoder import open_decoder
    from tingji.engine.generation import DecodeOptions

    opts = DecodeOptions(max_tokens=tokens, guard=False, ignore_eos=True)
    decoders = {name: open_decoder(path, eos_ids=[], n_ctx=1024, n_threads=threads) for name, path in ggufs.items()}
    rows = {
        name: np.random.default_rng(0).standard_normal((prompt_rows, dec.n_embd)).astype(np.float32) * 0.02
        for name, dec in decoders.items()
    }
    for name, dec in decoders.items():
        dec.generate([], rows[name], [], opts)  # warm: pages of the weights, the compute buffers
    runs = {name: (lambda d=dec, r=rows[name]: d.generate([], r, [], opts)) for name, dec in decoders.items()}
    times = _in_turns(runs, pairs, lambda result, _wall: result.generate_s)
    for dec in decoders.values():
        dec.close()
    return {name: (tokens - 1) / _median(t)[0] for name, t in times.items()}


def q3_tingji(a: dict[str, Any]) -> dict[str, Any]:
    from speech import make_utterance

    t0 = time.perf_counter()
    from tingji.engine import Engine, TranscribeOptions

    engine = Engine(a["model"], provider="cpu")
    out: dict[str, Any] = {"load_and_warm_s": round(time.perf_counter() - t0, 3), "rss_after_load_mb": rss_now_mb()}
    utt, k = make_utterance(3.0), a["dict_tokens"]

    def take(eng):  # as the app's dictation: the live lane, text only
        return eng.live.transcribe(utt, TranscribeOptions(max_tokens=k, ignore_eos=True, timestamps=False))

    take(engine)
    window = _audio(a["audio"], 60.0)
    out["window_60s"] = _window_split(engine, window, a["budget"])
    out["llama_batch"] = _llama_batch(engine.files.state, out["window_60s"]["prompt_rows"], a["reps"])
    out["prefill_60s_fraction_of_llama_batch"] = out["window_60s"]["prefill_tok_s"] / out["llama_batch"]["tok_s"]
    t = time.perf_counter()
    tr = engine.transcribe(a["audio"], TranscribeOptions(max_tokens=a["budget"], ignore_eos=True))
    wall = time.perf_counter() - t
    tokens = [len(x) for x in tr.window_tokens]
    out["e2e"] = {
        "wall_s": wall,
        "audio_s": tr.duration,
        "rtf": wall / tr.duration,
        "windows": tr.windows,
        "tokens_per_window": tokens,
        "tokens_total": sum(tokens),
        "timings": {x: round(v, 3) for x, v in tr.timings.items()},
    }
    threads = engine.files.state.n_threads
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)  # before Nano's engine joins it
    engines = {"qwen3": engine}
    if a.get("nano_model"):
        engines["nano"] = Engine(a["nano_model"], provider="cpu")
        take(engines["nano"])
    # The 3 s takes: with Nano's model, both engines loaded and taking turns (the goal is a ratio).
    takes = _in_turns(
        {name: (lambda e=eng: take(e)) for name, eng in engines.items()}, a["take_pairs"], lambda _result, wall: wall
    )
    med, tr = _median(takes["qwen3"])
    out["dictation_3s"] = {
        "tokens": k,
        "median_s": med,
        "timings": {x: round(v, 4) for x, v in tr.timings.items()},
        "runs_s": [round(w, 4) for w, _ in takes["qwen3"]],
    }
    engine.close()
    if "nano" in engines:
        nano = engines["nano"]
        med, tr = _median(takes["nano"])
        out["nano_dictation_3s_s"] = med
        out["nano_dictation_3s"] = {
            "median_s": med,
            "timings": {x: round(v, 4) for x, v in tr.timings.items()},
            "runs_s": [round(w, 4) for w, _ in takes["nano"]],
        }
        nano_gguf = str(nano.manifest.file("decoder"))
        nano.close()
        from tingji.engine.manifest import load_manifest

        ours = str(load_manifest(a["model"]).file("decoder"))
        n = a["gen_tokens"]
        speed = _gen_pairs({"qwen3": ours, "nano": nano_gguf}, 147, n, a["gen_pairs"], threads)
        out["gen_same_positions"] = {
            "prompt_rows": 147,
            "tokens": n,
            "threads": threads,
            "pairs": a["gen_pairs"],
            "qwen3_tok_s": speed["qwen3"],
            "nano_tok_s": speed["nano"],
        }
    return out


def q3_reference(a: dict[str, Any]) -> dict[str, Any]:
    import torch
    from speech import make_utterance

    from tests.support.reference_qwen3 import Qwen3Reference

    t0 = time.perf_counter()
    ref = Qwen3Reference(Path(a["checkpoint"]))
    out: dict[str, Any] = {
        "load_s": round(time.perf_counter() - t0, 2),
        "torch_threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
    }
    model = ref.model

    def generate(samples: np.ndarray, n: int) -> int:
        inputs = ref.inputs(samples)
        with torch.no_grad():
            ids = model.generate(**inputs, max_new_tokens=n, min_new_tokens=n, do_sample=False)
        return int(ids.shape[1] - inputs["input_ids"].shape[1])

    utt, k = make_utterance(3.0), a["dict_tokens"]
    generate(utt, k)
    out["dictation_3s_s"], _ = _median_run(lambda: generate(utt, k), a["reps_dict_ref"])
    # One 60 s window: encoder, prefill (one forward, minus the encoder), generation; each timed after
    # an untimed run of the same shape (timed's warm-up), as Tingji's split is (`_window_split`).
    window = _audio(a["audio"], 60.0)
    inputs = ref.inputs(window)
    with torch.no_grad():
        enc = timed(
            lambda: model.get_audio_features(inputs["input_features"], inputs["input_features_mask"]), a["reps_ref"]
        )
        fwd = timed(lambda: model(**inputs, use_cache=True, logits_to_keep=1), a["reps_ref"])
    t = time.perf_counter()
    n = generate(window, a["budget"])
    gen_s = time.perf_counter() - t - fwd["median_s"]
    prompt = int(inputs["input_ids"].shape[1])
    out["window_60s"] = {
        "prompt_rows": prompt,
        "encode": enc["median_s"],
        "prefill": fwd["median_s"] - enc["median_s"],
        "prefill_tok_s": prompt / (fwd["median_s"] - enc["median_s"]),
        "tokens": n,
        "gen_tok_s": (n - 1) / gen_s,
    }
    # The 5-minute file: Tingji's windows, trimmed as Tingji trims them, the same forced budget.
    samples = _audio(a["audio"])
    windows, cut = reference_windows(samples, a["window_s"])
    e2e = run_windows(windows, lambda w: {"tokens": generate(w, a["budget"])})
    out["e2e"] = {
        "wall_s": e2e["wall_s"],
        "audio_s": len(samples) / SAMPLE_RATE,
        "rtf": e2e["wall_s"] * SAMPLE_RATE / len(samples),
        "windows": cut,
        "per_window": e2e["per_window"],
        "tokens_total": sum(w["tokens"] for w in e2e["per_window"]),
    }
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    return out


STAGES = {"q3_tingji": q3_tingji, "q3_reference": q3_reference}


# -- measuring and reporting -------------------------------------------------------------------------


def measure(
    built: dict[str, dict[str, Path]],
    audio: Path,
    quick: bool,
    window_s: float,
    nano_model: Path | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Both stages per size; returns {"results": per size, "summary": latest.json keys, "goals": ...}."""
    budget, dict_tokens = (8, 4) if quick else (200, 12)
    results: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    for size, paths in built.items():
        log(f"Qwen3-ASR-{size}: Tingji ({PRECISION} + {QUANT})")
        tj = run_child(
            "q3_tingji",
            {
                "model": str(paths["model"]),
                "audio": str(audio),
                "budget": budget,
                "dict_tokens": dict_tokens,
                "take_pairs": 3 if quick else 9,
                "reps": 2 if quick else 3,
                "gen_tokens": 8 if quick else 64,
                "gen_pairs": 2 if quick else 7,
                "nano_model": str(nano_model) if nano_model else None,
            },
            log=log,
        )
        log(f"Qwen3-ASR-{size}: transformers reference (fp32)")
        ref = run_child(
            "q3_reference",
            {
                "checkpoint": str(paths["checkpoint"]),
                "audio": str(audio),
                "budget": budget,
                "dict_tokens": dict_tokens,
                "reps_dict_ref": 2 if quick else 3,
                "reps_ref": 1 if quick else 2,
                "window_s": window_s,
            },
            env=REFERENCE_ENV,
            log=log,
        )
        results[size] = {"tingji": tj, "reference": ref, "export": paths["export"]}
        w, rw = tj["window_60s"], ref["window_60s"]
        summary.update(
            {
                key(size, "speedup_vs_reference_e2e"): ref["e2e"]["wall_s"] / tj["e2e"]["wall_s"],
                key(size, "peak_rss_mb"): tj["peak_rss_mb"],
                key(size, "rtf_5min"): tj["e2e"]["rtf"],
                key(size, "encoder_60s_s"): w["encode"],
                key(size, "reference_encoder_60s_s"): rw["encode"],
                key(size, "prefill_60s_s"): w["prefill"],
                key(size, "prefill_60s_tok_s"): w["prefill_tok_s"],
                key(size, "llama_batch_tok_s"): tj["llama_batch"]["tok_s"],
                key(size, "prefill_60s_fraction_of_llama_batch"): tj["prefill_60s_fraction_of_llama_batch"],
                key(size, "reference_prefill_60s_s"): rw["prefill"],
                key(size, "gen_tok_s"): w["gen_tok_s"],
                key(size, "reference_gen_tok_s"): rw["gen_tok_s"],
                key(size, "dictation_3s_s"): tj["dictation_3s"]["median_s"],
                key(size, "reference_dictation_3s_s"): ref["dictation_3s_s"],
            }
        )
        if "nano_dictation_3s_s" in tj:
            summary[key(size, "dictation_3s_vs_nano")] = tj["dictation_3s"]["median_s"] / tj["nano_dictation_3s_s"]
            g = tj["gen_same_positions"]
            summary[key(size, "gen_vs_nano_same_positions")] = g["qwen3_tok_s"] / g["nano_tok_s"]
    return {"results": results, "summary": summary, "goals": goals(summary)}


def goals(summary: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for size, table in GOALS.items():
        for name, (op, target) in table.items():
            v = summary.get(key(size, name))
            if v is not None:
                out[key(size, name)] = {
                    "value": v,
                    "goal": f"{op} {target}",
                    "met": bool(v >= target if op == ">=" else v <= target),
                }
    return out


def markdown(q3: dict[str, Any]) -> str:
    """The Qwen3-ASR section of latest.md: stage rows per size beside the reference."""
    lines = [
        "## Qwen3-ASR (int8 encoder + q5_k decoder; reference: transformers fp32)",
        "",
        "Goals: in the table at the top (`qwen3_asr_*`).",
        "",
        "| size | system | 5 min wall s | RTF | 60 s: encode s | prefill s (rows) | generate tok/s "
        "| 3 s dictation s | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size, r in q3["results"].items():
        tj, ref = r["tingji"], r["reference"]
        w, rw = tj["window_60s"], ref["window_60s"]
        lines.append(
            f"| {size} | Tingji | {tj['e2e']['wall_s']:.1f} | {tj['e2e']['rtf']:.3f} | {w['encode']:.2f} | "
            f"{w['prefill']:.2f} ({w['prompt_rows']}) | {w['gen_tok_s']:.1f} | "
            f"{tj['dictation_3s']['median_s']:.3f} | {tj['peak_rss_mb']:.0f} |"
        )
        lines.append(
            f"| {size} | transformers | {ref['e2e']['wall_s']:.1f} | {ref['e2e']['rtf']:.3f} | "
            f"{rw['encode']:.2f} | {rw['prefill']:.2f} ({rw['prompt_rows']}) | {rw['gen_tok_s']:.1f} | "
            f"{ref['dictation_3s_s']:.3f} | {ref['peak_rss_mb']:.0f} |"
        )
        lines.append(
            f"| {size} | llama.cpp batch, same length | | | | "
            f"{tj['llama_batch']['median_s']:.2f} ({tj['llama_batch']['tokens']}) | | | |"
        )
    lines += [
        "",
        "Every window generates exactly the budget (EOS disabled, loop guard off) in both systems; "
        "the reference runs on the windows Tingji's planner cuts, trimmed the same way.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny models")
    ap.add_argument("--sizes", nargs="+", choices=SIZES, default=list(SIZES))
    ap.add_argument("--seconds", type=float, default=None, help="length of the long file (default 300, quick 40)")
    ap.add_argument("--nano-model", type=Path, default=None, help="a Nano model folder for the same-run comparisons")
    ap.add_argument("--cache-dir", type=Path, default=BENCH / ".cache")
    add_quiet_options(ap)
    ap.add_argument("--json", type=Path, default=None, help="also write every figure here")
    args = ap.parse_args(argv)
    from speech import make_long

    use_quiet_options(args)

    cache = args.cache_dir / ("quick" if args.quick else "full")
    seconds = args.seconds or (40 if args.quick else 300)
    audio = make_long(cache / "audio" / f"long{seconds:g}.wav", seconds)
    built = build(cache, args.quick, tuple(args.sizes))
    res = measure(built, audio, args.quick, 60.0, args.nano_model)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), **res}, indent=2, default=str) + "\n")
    print(json.dumps({"summary": res["summary"], "goals": res["goals"]}, indent=2))
    print(markdown(res))
    for k, g in res["goals"].items():
        print(f"{k}: {g['value']:.3f} (goal {g['goal']}: {'met' if g['met'] else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
