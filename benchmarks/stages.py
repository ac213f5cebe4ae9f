"""The measured stages; each runs in its own child process (see common.run_child).

Each function takes the JSON-able argument dict the parent passed and
returns a JSON-able dict. Only the funasr stage imports torch: the Tingji
stages import what the app imports, so their peak RSS is the app's.
"""

from __future__ import annotations

import functools
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import (
    ROOT,
    read_audio,
    reference_windows,
    rss_now_mb,
    run_windows,
    strip_private,
    timed,
    timed_summary,
    usable_cores,
    vm_hwm_mb,
)

SAMPLE_RATE = 16000
# -- machine limits -------------------------------------------------------------


def limits(a: dict[str, Any]) -> dict[str, Any]:
    import limits as lim

    return {**lim.measure(usable_cores(), quick=a["quick"]), "peak_rss_mb": round(vm_hwm_mb(), 1)}


# -- encoder ----------------------------------------------------------------------


def encoder(a: dict[str, Any]) -> dict[str, Any]:
    """Encoder+adaptor time per window length, real length (dynamic) and padded (fixed buckets)."""
    from tingji.engine.families.fun_asr_nano.encoder import SHORT_BUCKET_FRAMES, NanoEncoder
    from tingji.engine.frontend import features
    from tingji.engine.manifest import load_manifest
    from tingji.engine.options import LoadOptions

    m = load_manifest(a["model"])
    win = m.window_frames
    audio = read_audio(a["audio"], 60.0)
    feats = {s: features(audio[: int(s * SAMPLE_RATE)]) for s in (3, 10, 60)}
    t = time.perf_counter()
    dyn = NanoEncoder(m, LoadOptions(provider="cpu", policy="dynamic"))
    t_dyn = time.perf_counter() - t
    t = time.perf_counter()
    fixed = NanoEncoder(m, LoadOptions(provider="cpu", policy="fixed", buckets=(SHORT_BUCKET_FRAMES, win)))
    t_fixed = time.perf_counter() - t
    r_long, r_short = a["reps_long"], a["reps_short"]
    out: dict[str, Any] = {
        "window_frames": win,
        "short_bucket_frames": SHORT_BUCKET_FRAMES,
        "frames": {f"{s}s": int(f.shape[0]) for s, f in feats.items()},
        "session_create_s": {"dynamic": round(t_dyn, 3), "fixed_buckets": round(t_fixed, 3)},
        "threads": dyn.graphs.threads or usable_cores(),
    }
    cases = {
        "3s_real": (dyn, feats[3], r_short),
        "3s_bucket": (fixed, feats[3], r_short),
        "10s_real": (dyn, feats[10], r_short),
        "10s_bucket": (fixed, feats[10], r_short),
        "60s_real": (dyn, feats[60], r_long),
        "60s_fixed": (fixed, feats[60], r_long),
    }
    for name, (enc, f, reps) in cases.items():
        if name == "60s_fixed":
            continue
        out[name] = timed_summary(timed(functools.partial(enc.encode, f), reps))
    # The 60 s window paired with a GEMM probe just before each run: the same load hits both,
    # so their ratio (the fraction of the GEMM limit) is steadier than either alone.
    import limits as lim

    fixed.encode(feats[60])
    pairs = []
    for _ in range(r_long):
        gflops = lim.gemm_gflops_numpy(a.get("probe_n", 3072), reps=2)
        time.sleep(0.3)  # let BLAS worker threads stop spinning before ONNX Runtime starts
        t = time.perf_counter()
        fixed.encode(feats[60])
        pairs.append((time.perf_counter() - t, gflops))
    times = [p[0] for p in pairs]
    out["60s_fixed"] = {
        "median_s": float(np.median(times)),
        "min_s": min(times),
        "max_s": max(times),
        "reps": len(times),
        "all_s": [round(x, 4) for x in times],
    }
    out["gemm_probe_gflops"] = [round(p[1], 1) for p in pairs]
    out["flops_60s"] = a["flops_60s"]
    out["fraction_of_paired_gemm"] = float(np.median([a["flops_60s"] / t / (g * 1e9) for t, g in pairs]))
    if dyn.has_ctc:
        enc60 = dyn.encode(feats[60]).enc
        out["ctc_60s_real"] = timed_summary(timed(functools.partial(dyn.ctc, enc60), r_long))
        enc3 = dyn.encode(feats[3]).enc
        out["ctc_3s_real"] = timed_summary(timed(functools.partial(dyn.ctc, enc3), r_short))
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    return out


# -- decoder ----------------------------------------------------------------------


def decoder(a: dict[str, Any]) -> dict[str, Any]:
    """llama.cpp prefill and generation speed with a forced token count (EOS disabled, no loop guard)."""
    from tingji.engine.decoder import LlamaContext, open_decoder
    from tingji.engine.families.fun_asr_nano.prompt import build_prompt
    from tingji.engine.generation import DecodeOptions
    from tingji.engine.manifest import load_manifest

    m = load_manifest(a["model"])
    prompt = build_prompt(m.section.prompt)
    t = time.perf_counter()
    dec = open_decoder(a["gguf"], eos_ids=[], n_ctx=1024)
    load_s = time.perf_counter() - t
    before, after = dec.tokenize(prompt.before), dec.tokenize(prompt.after)
    audio = np.random.default_rng(0).standard_normal((a["n_audio"], dec.n_embd)).astype(np.float32)
    n_prompt = len(before) + len(audio) + len(after)

    def cold() -> None:
        dec._cached = []  # forget the cached prefix: the whole prompt is computed
        dec.prefill(before, audio, after)

    def warm() -> None:  # the per-window case: system prompt + task already in the KV cache
        dec.prefill(before, audio, after)

    cold_t = timed(cold, a["reps"])
    dec.prefill(before, audio, after)
    warm_t = timed(warm, a["reps"])
    # llama.cpp's own batch speed for the same rows: all n_prompt rows as embeddings in one
    # llama_decode, on a context made like the engine's (threads, KV type, batch size). The
    # engine's prefill is one such batch too (the text tokens as their table rows, token_rows.py)
    # plus assembling it; a GGUF whose table it cannot read goes as three batches (text, audio, text).
    rows = np.random.default_rng(1).standard_normal((n_prompt, dec.n_embd)).astype(np.float32)
    one = LlamaContext(dec.model, eos_ids=[], n_ctx=1024, n_threads=dec.n_threads, n_batch=max(dec.n_batch, n_prompt))

    def one_batch() -> None:
        one._truncate(0)
        one._decode(0, embd=rows)

    batch_t = timed(one_batch, a["reps"])
    one.close()
    n = a["gen_tokens"]
    opts = DecodeOptions(max_tokens=n, guard=False)
    import limits as lim
    from flops import decoder_bytes_per_token

    steps = n - 1  # the first token comes from the prefill's logits
    per_token = decoder_bytes_per_token(a["gguf"], n_prompt + n / 2)["total"]
    dec.generate(before, audio, after, opts)
    gen_times, probes = [], []
    for _ in range(a["reps"]):
        # Copy bandwidth just before each run: same load for both, so the ratio is steadier.
        probes.append(lim.copy_bandwidth_gbs(a.get("probe_mb", 512), reps=3, threads=usable_cores()))
        r = dec.generate(before, audio, after, opts)
        assert len(r.tokens) == n, (len(r.tokens), r.stop)
        gen_times.append(r.generate_s)
    gen_s = float(np.median(gen_times))

    def fixed_threads_gen_s(threads: int) -> float:
        """Median generation time on a decoder held at `threads` threads (one warm-up run)."""
        fixed = open_decoder(a["gguf"], eos_ids=[], n_ctx=1024, n_threads=threads)
        fixed.generate(before, audio, after, opts)
        times = [fixed.generate(before, audio, after, opts).generate_s for _ in range(a["reps"])]
        fixed.close()
        return float(np.median(times))

    # The engine tunes its thread count per token (tingji.engine.threads); the same
    # generation fixed on every usable core, for the record, and on one thread: the
    # kernel's own speed. Cores x that is what perfect thread scaling could reach; if
    # it is below the bandwidth bound, the decoder is compute-bound on this machine
    # and no thread setting reaches the bound.
    all_cores_s, one_thread_s = fixed_threads_gen_s(usable_cores()), fixed_threads_gen_s(1)
    return {
        "gguf": Path(a["gguf"]).name,
        "threads": dec.n_threads,
        "threads_batch": dec.n_threads,  # llama.cpp's batch threads follow the generation count
        "thread_tuner": dec.tuner.summary() if dec.tuner is not None else None,
        "gen_tok_s_all_cores": steps / all_cores_s,
        "all_cores_threads": usable_cores(),
        "gen_tok_s_one_thread": steps / one_thread_s,
        "n_batch": dec.n_batch,
        "kv_type": "f16" if not dec.exact else "f32",
        "load_s": round(load_s, 3),
        "prompt_tokens": n_prompt,
        "prompt_text_tokens": len(before) + len(after),
        "prefill_cold": timed_summary(cold_t),
        "prefill_cold_tok_s": n_prompt / cold_t["median_s"],
        "prefill_reused_prefix": timed_summary(warm_t),
        "llama_batch": {
            "rows": n_prompt,
            "threads": dec.n_threads,
            **timed_summary(batch_t),
            "rows_s": n_prompt / batch_t["median_s"],
        },
        "prefill_reused_tokens": len(before),
        "prefill_reused_prefix_s_saved": cold_t["median_s"] - warm_t["median_s"],
        "gen_tokens": n,
        "gen_s_all": [round(x, 4) for x in gen_times],
        "gen_s_median": gen_s,
        "gen_tok_s": steps / gen_s,
        "gen_mean_position": n_prompt + n / 2,
        "bandwidth_probe_gbs": [round(b, 2) for b in probes],
        "fraction_of_paired_bandwidth": float(
            np.median([steps / g * per_token / (b * 1e9) for g, b in zip(gen_times, probes)])
        ),
        "peak_rss_mb": round(vm_hwm_mb(), 1),
    }


# -- Tingji end to end ------------------------------------------------------------------


def _transcript_summary(tr, wall: float, duration: float) -> dict[str, Any]:
    tokens = [len(t) for t in tr.window_tokens]
    return {
        "wall_s": round(wall, 3),
        "rtf": wall / duration,
        "windows": tr.windows,
        "skipped_windows": tr.skipped_windows,
        "tokens_per_window": tokens,
        "tokens_total": sum(tokens),
        "timings": {k: round(v, 3) for k, v in tr.timings.items()},
    }


def tingji(a: dict[str, Any]) -> dict[str, Any]:
    """Load + warm-up, dictation latency and 5-minute end to end through Engine, plus peak RSS."""
    from speech import make_utterance

    t0 = time.perf_counter()
    from tingji.engine import Engine, TranscribeOptions

    import_s = time.perf_counter() - t0
    engine = Engine(a["model"], provider="cpu", graph_cache=a.get("graph_cache"))
    load_total = time.perf_counter() - t0
    out: dict[str, Any] = {
        "model": Path(a["model"]).name,
        "import_s": round(import_s, 3),
        "engine_load_s": round(engine.load_s, 3),  # manifest, sessions, VAD, decoder, warm-up
        "load_and_warm_s": round(load_total, 3),  # from `import tingji` to ready
        "rss_after_load_mb": rss_now_mb(),
    }
    utt = make_utterance(3.0)
    if a.get("dictation", True):  # on the live lane, as the app's dictation runs: its own KV cache
        k = a["dict_tokens"]
        t = time.perf_counter()
        first = engine.live.transcribe(utt, TranscribeOptions(max_tokens=k, ignore_eos=True, timestamps=False))
        first_s = time.perf_counter() - t
        out["rss_after_dictation_mb"] = rss_now_mb()
        runs = []
        for _ in range(a["reps_dict"]):
            t = time.perf_counter()
            tr = engine.live.transcribe(utt, TranscribeOptions(max_tokens=k, ignore_eos=True, timestamps=False))
            runs.append((time.perf_counter() - t, tr))
        runs.sort(key=lambda x: x[0])
        med_s, med_tr = runs[len(runs) // 2]
        out["dictation_3s"] = {
            "tokens": k,
            "first_call_s": round(first_s, 4),
            "median_s": med_s,
            "all_s": [round(x[0], 4) for x in runs],
            "timings_of_median": {kk: round(v, 4) for kk, v in med_tr.timings.items()},
            "tokens_generated": [len(t) for t in first.window_tokens],
        }
    duration = len(read_audio(a["audio"])) / SAMPLE_RATE
    out["audio_s"] = duration
    for name, budget, forced in a["e2e_runs"]:
        t = time.perf_counter()
        tr = engine.transcribe(a["audio"], TranscribeOptions(max_tokens=budget, ignore_eos=forced))
        wall = time.perf_counter() - t
        out[name] = {"max_tokens": budget, "forced_budget": forced, **_transcript_summary(tr, wall, duration)}
    out["rss_end_mb"] = rss_now_mb()
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    engine.close()
    return out


def first_result(a: dict[str, Any]) -> dict[str, Any]:
    """Process start to a finished 3 s dictation take, in fresh processes (benchmarks/first_result.py).

    One untimed process first: it builds the graph cache (as the model
    manager's install check does), writes the bytecode of Tingji's modules
    (an installed app has it) and brings the model files into the page cache
    (a warm start, the same for every process after it).
    """
    import os
    import subprocess
    import sys
    import tempfile

    import soundfile as sf
    from speech import make_utterance

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # This checkout's engine, not whichever `tingji` happens to be installed (as export_probe.py does).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "app"), env.get("PYTHONPATH", "")) if p)
    script = str(Path(__file__).with_name("first_result.py"))
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        take = Path(tmp) / "take3s.wav"
        sf.write(take, make_utterance(3.0), SAMPLE_RATE, subtype="FLOAT")
        for i in range(1 + a["reps"]):
            t0 = time.monotonic()
            proc = subprocess.run(
                [sys.executable, script, a["model"], str(take), str(a["tokens"]), "--graph-cache", a["graph_cache"]],
                capture_output=True,
                text=True,
                env=env,
                timeout=600,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"first_result.py failed: {proc.stderr[-2000:]}")
            d = json.loads(proc.stdout.strip().splitlines()[-1])
            if i == 0:
                continue
            runs.append(
                {
                    "total_s": d["done"] - t0,
                    "python_start_s": d["started"] - t0,
                    "imported_s": d["imported"] - t0,
                    "ready_s": d["ready"] - t0,
                    "take_s": d["done"] - d["ready"],
                    "take_timings": {k: round(v, 4) for k, v in d["timings"].items()},
                }
            )
    runs.sort(key=lambda r: r["total_s"])
    median = runs[len(runs) // 2]
    return {
        "reps": len(runs),
        "tokens": a["tokens"],
        "median_s": median["total_s"],
        "median_run": median,
        "all_s": [round(r["total_s"], 3) for r in runs],
        "ready_median_s": float(np.median([r["ready_s"] for r in runs])),
        "take_median_s": float(np.median([r["take_s"] for r in runs])),
        "peak_rss_mb": round(vm_hwm_mb(), 1),
    }


# -- funasr reference ------------------------------------------------------------------


def funasr(a: dict[str, Any]) -> dict[str, Any]:
    """funasr's FunASRNano (PyTorch CPU) on the same windows with the same forced token budget."""
    import torch
    from speech import make_utterance

    from tests.support.reference_nano import Reference

    t0 = time.perf_counter()
    ref = Reference(Path(a["checkpoint"]))
    load_s = time.perf_counter() - t0
    model = ref.model
    spent: dict[str, float] = {}

    def timing(name, fn):
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t

        return wrapper

    model.encode = timing("encode", model.encode)
    model.audio_adaptor.forward = timing("adaptor", model.audio_adaptor.forward)
    if model.ctc_decoder is not None:
        model.ctc_decoder.forward = timing("ctc", model.ctc_decoder.forward)
    model.llm.generate = timing("llm_generate", model.llm.generate)

    def run(samples: np.ndarray, budget: int) -> dict[str, Any]:
        spent.clear()
        t = time.perf_counter()
        res = ref.run(samples, max_length=budget, llm_kwargs={"min_new_tokens": budget})
        wall = time.perf_counter() - t
        return {"wall_s": wall, "tokens": len(ref._captured["ids"]), "stages": dict(spent), "embeds": res["embeds"]}

    out: dict[str, Any] = {
        "load_s": round(load_s, 3),
        "torch_threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "llm_dtype": str(next(model.llm.parameters()).dtype),
    }
    # Dictation: the same 3 s utterance and token count as Tingji's.
    utt = make_utterance(3.0)
    run(utt, a["dict_tokens"])  # warm
    dict_runs = [run(utt, a["dict_tokens"]) for _ in range(a["reps_dict"])]
    walls = sorted(r["wall_s"] for r in dict_runs)
    out["dictation_3s"] = {
        "tokens": a["dict_tokens"],
        "median_s": walls[len(walls) // 2],
        "all_s": walls,
        "stages_of_first": {k: round(v, 4) for k, v in dict_runs[0]["stages"].items()},
    }

    # 5 minutes: the windows Tingji's planner cuts, trimmed to speech as Tingji trims them.
    samples = read_audio(a["audio"])
    duration = len(samples) / SAMPLE_RATE
    windows, cut = reference_windows(samples, a["window_s"])
    last: dict[str, Any] = {}

    def one_window(w: np.ndarray) -> dict[str, Any]:
        last.update(run(w, a["budget"]))
        return {"tokens": last["tokens"], "stages": {k: round(v, 3) for k, v in last["stages"].items()}}

    e2e = run_windows(windows, one_window)
    per_window, total = e2e["per_window"], e2e["wall_s"]
    # Prefill alone: one forward over the last window's prompt embeddings (what generate() starts with),
    # after one untimed forward of that shape, as every timed reference figure here.
    embeds = last["embeds"]
    with torch.no_grad():
        pf = timed(lambda: model.llm(inputs_embeds=embeds, use_cache=True, logits_to_keep=1), a["reps_prefill"])
    stages = {
        k: round(sum(w["stages"].get(k, 0.0) for w in per_window), 3)
        for k in ("encode", "adaptor", "ctc", "llm_generate")
    }
    gen_tokens = sum(w["tokens"] for w in per_window)
    prefill_total = pf["median_s"] * len(per_window)  # approx.: one prefill per window
    out["e2e"] = {
        "max_tokens": a["budget"],
        "forced_budget": True,
        "wall_s": total,
        "rtf": total / duration,
        "audio_s": duration,
        "windows": cut,
        "decoded_windows": len(per_window),
        "tokens_total": gen_tokens,
        "stages": stages,
        "per_window": per_window,
    }
    n_prompt = int(embeds.shape[1])
    out["prefill"] = {"prompt_tokens": n_prompt, **timed_summary(pf), "tok_s": n_prompt / pf["median_s"]}
    gen_only = stages["llm_generate"] - prefill_total
    steps = gen_tokens - len(per_window)
    out["generation_tok_s"] = steps / gen_only if gen_only > 0 else None
    # The encoder on one full 60 s window (1000 frames), as Tingji's encoder benchmark runs it.
    feats = ref.features(samples[: 60 * SAMPLE_RATE])
    x = torch.from_numpy(feats)[None]
    lens = torch.tensor([x.shape[1]])

    def enc60():
        with torch.no_grad():
            e, ol = model.audio_encoder(x, lens)
            model.audio_adaptor(e, ol)

    out["encoder_60s"] = {"frames": int(x.shape[1]), **timed_summary(timed(enc60, a["reps_enc"]))}
    out["peak_rss_mb"] = round(vm_hwm_mb(), 1)
    return strip_private(out)


STAGES = {
    "limits": limits,
    "encoder": encoder,
    "decoder": decoder,
    "tingji": tingji,
    "first_result": first_result,
    "funasr": funasr,
}
