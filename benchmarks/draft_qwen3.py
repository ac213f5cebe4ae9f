#!/usr/bin/env python3
"""Qwen3-ASR-1.7B drafted by a CTC model (issue 46): generation speed by forced acceptance.

    nice python3 benchmarks/draft_qwen3.py [--quick] [--tokens 240] [--rounds 2] [--threads 2] [--rows 780]
        [--no-write] [--quiet-below CORES]

Generation only: a 60 s window's prompt (Qwen3-ASR's ChatML, `--rows` audio
rows: 780 for 60 s, random at the embeddings' scale, the language forced so the
answer is text only), then `--tokens` greedy tokens (EOS off, no guard), plain
and with a draft. The decoder has Qwen3-ASR-1.7B's text-model shapes (hidden
2048, MLP 6144, 28 layers, 16 / 8 heads of 128, vocabulary 151,936) and
draft_model's decisive weights (every tensor of the shape and type a real one
has, so llama.cpp spends the same time, with greedy choices as decisive as the
trained demo model's), q5_k, cached under
benchmarks/.cache/full/draft-qwen3-decisive-<version>/ (about 1.3 GB; the build
takes minutes and ~6 GB of memory once). `--quick`: a small one, plumbing only.

Random weights give random drafts, so the acceptance is forced as
benchmarks/draft.py forces it: the plain greedy output is the draft, a random
other token at 0, 10, 25, 50 and 100 % of positions (what a SenseVoice draft
with that acceptance gives the same `Drafter` and verifier that
`engine.draft_sources` feeds). Speedup = plain generation seconds / drafted,
per round, rounds interleaved; the tokens must be plain decoding's.

Before it, this decoder's block costs (`draft.block_costs`: a block of k rows relative to one
step, with logits at every row and at the last only), to compare with `engine.draft.BLOCK_COST`,
the 0.6B's, by which the policy sizes blocks.

Results: benchmarks/results/draft-qwen3-<date>.json (with the CPU flags), and
latest.json's `qwen3_draft_gen_speedup_{100,90,75,50,0}` and section `draft_qwen3`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, add_quiet_options, machine, use_quiet_options, wait_for_quiet, write_latest  # noqa: E402
from draft import ACCEPTANCE, block_costs, corrupt  # noqa: E402
from draft_model import VERSION as DECISIVE_VERSION  # noqa: E402

# Qwen3-ASR-1.7B's text model (tools/tiny_qwen3_asr.SIZES["1.7b"] and FULL_TEXT): what differs from Qwen3-0.6B.
SHAPE_1_7B = dict(hidden_size=2048, intermediate_size=6144)
GOALS = {"qwen3_draft_gen_speedup_90": (">=", 1.7)}


def build_decoder(cache: Path, quick: bool) -> Path:
    """decoder.q5_k.gguf, built once into `cache`: draft_model's decisive weights at Qwen3-ASR-1.7B's shapes."""
    from draft_model import decisive_weights
    from make_tiny_checkpoint import llm_config, write_llm_folder
    from tiny_qwen3_asr import tokenizer

    from tingji.export.gguf_tools import quantize_gguf, write_gguf

    cache.mkdir(parents=True, exist_ok=True)
    out = cache / "decoder.q5_k.gguf"
    if out.is_file():
        return out
    tok = tokenizer(not quick)  # Qwen3-ASR's specials (<|audio_start|>, <asr_text>): its prompt tokenises
    cfg = llm_config(tok, full_size=not quick) | (SHAPE_1_7B if not quick else {})
    write_llm_folder(cache / "llm", tok, cfg)
    f16 = cache / "decoder.f16.gguf"
    t = time.perf_counter()
    weights = decisive_weights(cfg, 0, tok.get_vocab_size(with_added_tokens=True))
    write_gguf(weights, cfg, cache / "llm" / "tokenizer.json", f16, dtype="f16", name="draft-qwen3-bench")
    del weights
    print(f"  wrote {f16.name} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    t = time.perf_counter()
    quantize_gguf(f16, out, "q5_k", threads=2)
    print(f"  quantised {out.name} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    f16.unlink()
    return out


def _prompt(ctx, rows: int) -> tuple[list[int], np.ndarray, list[int]]:
    """Qwen3-ASR's prompt around `rows` audio rows, the language forced (the answer is the text alone)."""
    from tingji.engine.families.qwen3_asr.prompt import build_prompt

    prompt = build_prompt(language_name="English")
    audio = np.random.default_rng(0).standard_normal((rows, ctx.n_embd)).astype(np.float32) / ctx.n_embd**0.5
    return ctx.tokenize(prompt.before), audio, ctx.tokenize(prompt.after)


def generation(gguf: Path, threads: int, n_tokens: int, rounds: int, rows: int) -> dict[str, Any]:
    """Plain and drafted generation at each forced acceptance; speedups per round, medians."""
    from tingji.engine.decoder import open_decoder
    from tingji.engine.draft import Drafter, DraftPolicy
    from tingji.engine.generation import DecodeOptions

    ctx = open_decoder(gguf, eos_ids=[], n_threads=threads, n_ctx=rows + n_tokens + 256)
    before, audio, after = _prompt(ctx, rows)
    opts = DecodeOptions(max_tokens=n_tokens, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    logits = ctx.forward_logits(before, audio, after, plain.tokens)[:n_tokens]
    top = np.sort(logits, axis=1)[:, -2:]
    margins = top[:, 1] - top[:, 0]
    drafts = {a: corrupt(plain.tokens, 1 - a / 100, ctx.n_vocab, seed=a) for a in ACCEPTANCE}
    plain_s: list[float] = []
    seconds: dict[int, list[float]] = {a: [] for a in ACCEPTANCE}
    info: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        wait_for_quiet(lambda m: print(m, file=sys.stderr))
        ref = ctx.generate(before, audio, after, opts)
        plain_s.append(ref.generate_s)
        for a, draft in drafts.items():
            out = ctx.generate(before, audio, after, opts, drafter=Drafter(draft, ctx.model.token_bytes, DraftPolicy()))
            # draft rows that rode in the prompt's batch are generation's work: their share of the prefill counts
            extra = max(out.prefill_s - ref.prefill_s, 0.0) if out.prefill_drafted else 0.0
            seconds[a].append(out.generate_s + extra)
            differ = [i for i, (x, y) in enumerate(zip(plain.tokens, out.tokens)) if x != y]
            info[str(a)] = {
                "drafted": out.drafted,
                "accepted": out.accepted,
                "acceptance": round(out.accepted / max(out.drafted, 1), 3),
                "blocks": {str(k): out.blocks.count(k) for k in sorted(set(out.blocks))},
                "ties": out.ties,
                "in_prefill": out.prefill_drafted,
                "same_tokens": not differ,
                "differences": [{"position": i, "top2_margin": round(float(margins[i]), 4)} for i in differ],
            }
    ctx.close()
    for a in ACCEPTANCE:
        info[str(a)]["generate_s"] = round(statistics.median(seconds[a]), 3)
        info[str(a)]["speedup"] = round(statistics.median(p / d for p, d in zip(plain_s, seconds[a])), 2)
    return {
        "tokens": n_tokens,
        "audio_rows": rows,
        "threads": threads,
        "plain_generate_s": round(statistics.median(plain_s), 3),
        "plain_ms_per_token": round(1000 * statistics.median(plain_s) / n_tokens, 1),
        "median_top2_margin": round(float(np.median(margins)), 2),
        "near_tie_share": round(float((margins <= DraftPolicy().tie_margin).mean()), 4),
        "cases": info,
        "rounds": rounds,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small random decoder: plumbing only")
    ap.add_argument("--tokens", type=int, default=240, help="tokens per generation (a 60 s window's worth)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rows", type=int, default=780, help="audio rows in the prompt (780: a 60 s window)")
    ap.add_argument("--no-write", action="store_true", help="print only; write no results")
    add_quiet_options(ap)
    args = ap.parse_args(argv)
    use_quiet_options(args)
    cache = BENCH / ".cache" / ("quick" if args.quick else "full") / f"draft-qwen3-decisive-{DECISIVE_VERSION}"
    gguf = build_decoder(cache, args.quick)
    doc: dict[str, Any] = {
        "model": "Qwen3-ASR-1.7B-shaped decisive decoder, q5_k" if not args.quick else "small decisive decoder"
    }
    doc["machine"] = machine()
    doc["date"] = time.strftime("%Y-%m-%d %H:%M")
    doc["load_before"] = wait_for_quiet(lambda m: print(m, file=sys.stderr))
    # This decoder's own block costs, beside draft.BLOCK_COST (the 0.6B's), by which the policy sizes blocks.
    doc["blocks_q5_k"] = block_costs(gguf, args.threads, reps=3)
    print(json.dumps(doc["blocks_q5_k"]), file=sys.stderr)
    doc["generation_q5_k"] = gen = generation(gguf, args.threads, args.tokens, args.rounds, args.rows)
    doc["load_after"] = wait_for_quiet(lambda m: print(m, file=sys.stderr))
    summary = {f"qwen3_draft_gen_speedup_{a}": gen["cases"][str(a)]["speedup"] for a in ACCEPTANCE}
    doc["summary"] = summary
    doc["goals"] = {
        k: {"value": summary[k], "goal": f"{op} {v}", "met": summary[k] >= v} for k, (op, v) in GOALS.items()
    }
    text = json.dumps(doc, indent=2, default=str)
    print(text)
    if not args.no_write and not args.quick:
        (BENCH / "results" / f"draft-qwen3-{time.strftime('%Y-%m-%d')}.json").write_text(text + "\n")
        write_latest(summary, "draft_qwen3", doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
