#!/usr/bin/env python3
"""Experiment: llama.cpp context settings for the decoder, A/B against the engine's own.

    python benchmarks/exp_decoder.py --model benchmarks/.cache/full/int8-q5_k [--gguf PATH]
        [--variants baseline,threads1,...] [--rounds 3] [--gen 32]

Each variant is a `LlamaContext` (the app's class) whose context is rebuilt
with one setting changed: threads, n_batch/n_ubatch, flash attention, KV
cache type. The model file is memory-mapped once by the OS, so the variants
share its pages. Per round and variant: a cold prefill (the whole prompt:
system + task tokens, 125 audio rows of a 60 s window, assistant header), a
prefill with the prompt prefix reused from the cache (what every window after
the first costs), and `--gen` forced greedy tokens (EOS disabled, no guard).
Rounds interleave the variants so other jobs' load hits all alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, emit_json  # noqa: E402,F401


def make(change: str, gguf: Path):
    import llama_cpp

    from tingji.engine.decoder import open_decoder

    kw = {}
    if change == "threads1":
        kw["n_threads"] = 1
    if change.startswith("batch"):
        kw["n_batch"] = int(change[len("batch") :])
    dec = open_decoder(gguf, eos_ids=[], n_ctx=1024, **kw)
    rebuild = True
    if change == "flash_off":
        dec.flash_attn = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    elif change == "flash_on":
        dec.flash_attn = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED
    elif change == "kv_q8_0":  # quantised V needs flash attention
        dec.kv_type = llama_cpp.GGML_TYPE_Q8_0
        dec.flash_attn = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED
    elif change == "kv_f32":
        dec.kv_type = llama_cpp.GGML_TYPE_F32
    else:
        rebuild = False
    if rebuild:
        dec._new_context(1024)
    return dec


VARIANTS = ["baseline", "threads1", "flash_off", "flash_on", "kv_q8_0", "kv_f32", "batch64", "batch128", "batch256"]


def main(argv: list[str] | None = None) -> int:
    from tingji.engine.families.fun_asr_nano.prompt import build_prompt
    from tingji.engine.generation import DecodeOptions
    from tingji.engine.manifest import load_manifest

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--gguf", type=Path)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gen", type=int, default=32)
    ap.add_argument("--n-audio", type=int, default=125)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    m = load_manifest(args.model)
    gguf = args.gguf or m.file("decoder")
    prompt = build_prompt(m.section.prompt)
    variants = args.variants.split(",")
    decs = {v: make(v, gguf) for v in variants}
    any_dec = decs[variants[0]]
    before, after = any_dec.tokenize(prompt.before), any_dec.tokenize(prompt.after)
    audio = np.random.default_rng(0).standard_normal((args.n_audio, any_dec.n_embd)).astype(np.float32)
    n_prompt = len(before) + len(audio) + len(after)
    opts = DecodeOptions(max_tokens=args.gen, guard=False)
    for d in decs.values():  # warm: allocate compute buffers
        d.generate(before, audio, after, DecodeOptions(max_tokens=2, guard=False))
    res: dict = {
        "gguf": Path(gguf).name,
        "prompt_tokens": n_prompt,
        "gen_tokens": args.gen,
        "loadavg_start": os.getloadavg(),
    }
    t: dict[str, dict[str, list[float]]] = {v: {"cold": [], "reused": [], "gen": []} for v in variants}
    tokens: dict[str, list[int]] = {}
    for r in range(args.rounds):
        for v in variants if r % 2 == 0 else variants[::-1]:
            d = decs[v]
            d._cached = []
            s = time.perf_counter()
            d.prefill(before, audio, after)
            t[v]["cold"].append(time.perf_counter() - s)
            s = time.perf_counter()
            d.prefill(before, audio, after)
            t[v]["reused"].append(time.perf_counter() - s)
            out = d.generate(before, audio, after, opts)
            t[v]["gen"].append(out.generate_s)
            tokens[v] = out.tokens
    base = variants[0]
    med = {v: {k: statistics.median(x) for k, x in d.items()} for v, d in t.items()}
    res["variants"] = {
        v: {
            "prefill_cold_s": med[v]["cold"],
            "prefill_cold_tok_s": n_prompt / med[v]["cold"],
            "prefill_reused_s": med[v]["reused"],
            "gen_tok_s": (args.gen - 1) / med[v]["gen"],
            "prefill_ratio_to_first": med[v]["cold"] / med[base]["cold"],
            "gen_speed_ratio_to_first": med[base]["gen"] / med[v]["gen"],
            "same_tokens_as_first": tokens[v] == tokens[base],
            "raw": {k: [round(x, 4) for x in xs] for k, xs in t[v].items()},
        }
        for v in variants
    }
    res["loadavg_end"] = os.getloadavg()
    emit_json(res, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
