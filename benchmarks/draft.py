#!/usr/bin/env python3
"""Draft-verified decoding (issue 46): block costs, parallel sequences, and generation speed by acceptance.

    nice python3 benchmarks/draft.py [--quick] [--tokens 240] [--rounds 2] [--threads 2] [--no-write]
        [--parts blocks,tiled,exactness,sequences,generation,realign,policy,demo] [--quiet-below CORES]

Full size: a Qwen3-0.6B-shaped decoder (hidden 1024, 28 layers, vocabulary
151,936) with draft_model's synthetic weights - every tensor of the shape and
type a real one has, so llama.cpp spends the same time, but greedy choices as
decisive as the trained demo model's (plain random weights are near ties at
most positions, and no draft can be followed through them) - written from
NumPy by Tingji's GGUF writer and quantised by llama.cpp to q5_k (and q8_0 for
the parallel-sequences figure), cached under
benchmarks/.cache/full/draft-decisive-<version>/. `--quick` uses a small one
(plumbing only).

- **blocks**: one sequence, `--threads` threads: ms per token for one
  `LlamaContext.decode_block` of k = 1, 2, 4, 8, 16, 32, 64 tokens (logits at every
  position) after a 60 s window's prompt, each followed by a rollback. The
  relative costs are what `engine.draft.BLOCK_COST` holds.
- **tiled**: 1-, 8- and 16-row blocks with llama.cpp's tiled K-quant kernel as
  it chooses, switched off (`GGML_CPU_TILED_MM=0`) and forced on at every size
  (`GGML_CPU_TILED_MM_FORCE=1`), each in a process of its own: what a block's
  layers cost in unpacking the quantised weights into tiles on every product.
- **exactness**: the largest |block logits - one-token logits| by block size
  over 126 greedy tokens (bit for bit below 4 rows on q5_k; see draft.BLOCK_COST).
- **sequences**: one thread, S = 1, 4, 8 sequences in one context, one token
  each per `llama_decode`: tokens per second relative to S = 1 (batching windows).
- **generation**: `--tokens` greedy tokens (EOS off, no guard) after a prompt
  with random audio rows; then the same with the plain output as the draft,
  corrupted (a random other token) at 0, 10, 25, 50 and 100 % of positions:
  forced acceptance 100, 90, 75, 50 and 0 %. A substitute is a random id of
  the 151,936, nearly always one of the synthetic vocabulary's padding
  tokens, which have no text; the engine's re-alignment takes a token in
  place of one of its own kind for a substitution and moves the draft's
  place on by one, as a corrected word in a real draft. Speedup = plain generation
  seconds / drafted, per round, rounds interleaved (`modelled_speedup`: what
  the run's blocks would give at `draft.BLOCK_COST`); the tokens must be plain
  decoding's (a differing position is reported with its top-2 margin).
  The model's top-2 margins are printed (`median_top2_margin`, `near_tie_share`:
  the share under the tie guard's margin).
- **realign**: acceptance and speed at 90 % for each re-alignment rule, with
  corruptions that are substitutions, insertions and deletions in equal parts.
- **policy**: the same curve on paper (benchmarks/draft_policy.py: the real
  `Drafter`, block costs from `draft.BLOCK_COST`, no model) at near-tie shares
  0, 2 %, 3.3 % and the model's: what the policy reaches where costs hold.
- **demo**: the demo model's CTC drafts on test_demo_model's 40 held-out clips:
  acceptance for each rule (the real draft a trained CTC head gives), and the
  top-2 margins of its greedy choices (draft_model's target).

Results: benchmarks/results/draft-<date>.json, and latest.json's
`draft_gen_speedup_{100,90,75,50,0}`, `demo_draft_acceptance` and section `draft`.
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
from common import (  # noqa: E402
    BENCH,
    ROOT,
    add_quiet_options,
    machine,
    run_child,
    use_quiet_options,
    wait_for_quiet,
    write_latest,
)
from draft_model import VERSION as DECISIVE_VERSION  # noqa: E402
from draft_policy import policy_curve  # noqa: E402

ACCEPTANCE = (100, 90, 75, 50, 0)
BLOCKS = (1, 2, 4, 8, 16, 17, 24, 32, 48, 63, 64)  # 63: the longest block drafting uses (draft.BLOCK_COST)
GOALS = {"draft_gen_speedup_100": (">=", 3.0), "draft_gen_speedup_90": (">=", 1.7), "draft_gen_speedup_0": (">=", 0.95)}


# -- the model ---------------------------------------------------------------------------------------------


def build_decoders(cache: Path, quick: bool, quants: tuple[str, ...]) -> dict[str, Path]:
    """decoder.<quant>.gguf for each quant, built once into `cache` (draft_model's decisive weights, seed 0)."""
    from draft_model import decisive_weights
    from make_tiny_checkpoint import build_tokenizer, llm_config, write_llm_folder

    from tingji.export.gguf_tools import quantize_gguf, write_gguf

    cache.mkdir(parents=True, exist_ok=True)
    paths = {q: cache / f"decoder.{q}.gguf" for q in quants}
    if all(p.is_file() for p in paths.values()):
        return paths
    tok = build_tokenizer(vocab_size=1200 if not quick else 700)
    cfg = llm_config(tok, full_size=not quick)
    write_llm_folder(cache / "llm", tok, cfg)
    f16 = cache / "decoder.f16.gguf"
    if not f16.is_file():
        t = time.perf_counter()
        weights = decisive_weights(cfg, 0, tok.get_vocab_size(with_added_tokens=True))
        write_gguf(weights, cfg, cache / "llm" / "tokenizer.json", f16, dtype="f16", name="draft-bench")
        print(f"  wrote {f16.name} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    for q, p in paths.items():
        if not p.is_file():
            t = time.perf_counter()
            quantize_gguf(f16, p, q, threads=2)
            print(f"  quantised {p.name} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    f16.unlink()
    return paths


def _prompt(ctx, rows: int, seed: int = 0) -> tuple[list[int], np.ndarray, list[int]]:
    """A 60 s window's prompt shape: ChatML around `rows` audio rows (random, at the embeddings' scale)."""
    before = ctx.tokenize("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n语音转写：")
    after = ctx.tokenize("<|im_end|>\n<|im_start|>assistant\n")
    audio = np.random.default_rng(seed).standard_normal((rows, ctx.n_embd)).astype(np.float32) / ctx.n_embd**0.5
    return before, audio, after


# -- parts -----------------------------------------------------------------------------------------------------


def block_costs(gguf: Path, threads: int, reps: int, sizes: tuple[int, ...] = BLOCKS) -> dict[str, Any]:
    """Each block size's cost, as verifying needs it (logits at every row) and with the last row's only.

    The difference is the output layer's share (and the finite check of its rows): with logits at every
    row it runs once per row, over the whole vocabulary (151,936 x 1,024 here).
    """
    from tingji.engine.decoder import open_decoder

    ctx = open_decoder(gguf, eos_ids=[], n_threads=threads, n_ctx=512)
    before, audio, after = _prompt(ctx, 125)
    pos, _ = ctx.prefill(before, audio, after)
    rng = np.random.default_rng(1)
    times: dict[tuple[int, bool], list[float]] = {(k, every): [] for k in sizes for every in (True, False)}
    for _ in range(reps):  # sizes interleaved, so load on the machine hits all alike
        for k, every in times:
            tokens = rng.integers(0, ctx.n_vocab, k).tolist()
            t = time.perf_counter()
            if every:
                ctx.decode_block(pos, tokens)
            else:
                ctx._decode(pos, tokens=tokens)  # decode_block's call, logits for the last row only
            times[k, every].append(time.perf_counter() - t)
            ctx.rollback(pos)
    ctx.close()
    ms = {key: 1000 * statistics.median(v) / key[0] for key, v in times.items()}
    one = ms[1, True]
    return {
        "ms_per_token": {str(k): round(ms[k, True], 2) for k in sizes},
        "relative_block_cost": {str(k): round(ms[k, True] * k / one, 2) for k in sizes},
        "relative_block_cost_last_row_logits": {str(k): round(ms[k, False] * k / one, 2) for k in sizes},
        "reps": reps,
        "threads": threads,
    }


TILED_SIZES = (1, 8, 16)
TILED_MODES = {"stock": {}, "tiled_off": {"GGML_CPU_TILED_MM": "0"}, "tiled_forced": {"GGML_CPU_TILED_MM_FORCE": "1"}}


def tiled_kernel(gguf: Path, threads: int, reps: int) -> dict[str, Any]:
    """Block costs with llama.cpp's tiled K-quant kernel as it chooses (4 rows and more), off, and forced on.

    The tiled kernel (ggml-cpu/tiled) unpacks each 256-row window of Q5_K/Q6_K weights into int8 tiles on
    every product, then multiplies them with AVX-512 VNNI (or AVX2). Forced on at one row, its cost is that
    unpacking; off, a 16-row block is 16 dot products per weight row. Each mode runs in its own process,
    since llama.cpp reads the switches once.
    """
    out: dict[str, Any] = {}
    for mode, env in TILED_MODES.items():
        args = {"gguf": str(gguf), "threads": threads, "reps": reps, "sizes": list(TILED_SIZES)}
        costs = run_child("draft_blocks", args, env=env, log=lambda m: print(m, file=sys.stderr))
        out[mode] = {"ms_per_block": {k: round(v * int(k), 1) for k, v in costs["ms_per_token"].items()}}
    step = out["stock"]["ms_per_block"]["1"]  # every mode's blocks in plain decoding's steps
    for mode in TILED_MODES:
        out[mode]["steps"] = {k: round(v / step, 2) for k, v in out[mode]["ms_per_block"].items()}
    return out


def stage_blocks(a: dict[str, Any]) -> dict[str, Any]:
    """run.py's child stage `draft_blocks`: `block_costs` in a process of its own (its environment's switches)."""
    return block_costs(Path(a["gguf"]), a["threads"], a["reps"], tuple(a["sizes"]))


STAGES = {"draft_blocks": stage_blocks}


def exactness(gguf: Path, threads: int, n: int = 126) -> dict[str, Any]:
    """Largest |block logits - one-token logits| over `n` greedy tokens fed in blocks of each size."""
    from tingji.engine.decoder import open_decoder
    from tingji.engine.generation import DecodeOptions

    ctx = open_decoder(gguf, eos_ids=[], n_threads=threads, n_ctx=512)
    before, audio, after = _prompt(ctx, 40, seed=3)
    plain = ctx.generate(before, audio, after, DecodeOptions(max_tokens=n, guard=False, ignore_eos=True))
    single = ctx.forward_logits(before, audio, after, plain.tokens)[1 : n + 1]
    out = {}
    for k in BLOCKS[1:]:
        pos, _ = ctx.prefill(before, audio, after)
        rows = np.concatenate([ctx.decode_block(pos + s, plain.tokens[s : s + k]) for s in range(0, n, k)])
        out[str(k)] = float(np.abs(rows - single).max())
    ctx.close()
    return {"max_abs_logit_difference": out, "logit_scale": float(np.abs(single).max()), "tokens": n}


def parallel_sequences(gguf: Path, steps: int) -> dict[str, Any]:
    """Tokens/s of S sequences decoded together (one token each per batch), 1 thread, relative to S = 1."""
    import llama_cpp

    from tingji.engine.decoder import LlamaModel

    model = LlamaModel(gguf)
    out: dict[str, float] = {}
    for seqs in (1, 4, 8):
        params = llama_cpp.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch, params.n_seq_max = 256 * seqs, 64, 64, seqs
        params.n_threads = params.n_threads_batch = 1
        params.no_perf = True
        ctx = llama_cpp.llama_init_from_model(model._model, params)
        prompt = model.tokenize("<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n")
        batch = llama_cpp.llama_batch_init(max(len(prompt), seqs), 0, seqs)

        for s in range(seqs):
            _feed(ctx, batch, [(t, p, s) for p, t in enumerate(prompt)])
        rng = np.random.default_rng(seqs)
        t = time.perf_counter()
        for step in range(steps):
            _feed(ctx, batch, [(int(rng.integers(0, model.n_vocab)), len(prompt) + step, s) for s in range(seqs)])
        out[str(seqs)] = seqs * steps / (time.perf_counter() - t)
        llama_cpp.llama_batch_free(batch)
        llama_cpp.llama_free(ctx)
    model.close()
    return {
        "tokens_per_s": {k: round(v, 2) for k, v in out.items()},
        "vs_one": {k: round(v / out["1"], 2) for k, v in out.items()},
    }


def _feed(ctx, batch, items: list[tuple[int, int, int]]) -> None:
    """One llama_decode of (token, position, sequence) items, logits for each."""
    import llama_cpp

    for j, (token, pos, seq) in enumerate(items):
        batch.token[j], batch.pos[j], batch.n_seq_id[j], batch.seq_id[j][0] = token, pos, 1, seq
        batch.logits[j] = 1
    batch.n_tokens = len(items)
    if llama_cpp.llama_decode(ctx, batch) != 0:
        raise RuntimeError("llama_decode failed")


def corrupt(
    tokens: list[int], fraction: float, n_vocab: int, seed: int, kinds: tuple[str, ...] = ("sub",)
) -> list[int]:
    """`tokens` with `fraction` of positions wrong: a random other token (sub), an extra token before it
    (ins), or the token dropped (del), the kind drawn from `kinds`."""
    rng = np.random.default_rng(seed)
    out: list[int] = []
    for t in tokens:
        if rng.random() >= fraction:
            out.append(t)
            continue
        kind = kinds[int(rng.integers(len(kinds)))]
        other = int(rng.integers(0, n_vocab - 1))
        other += other >= t
        if kind == "sub":
            out.append(other)
        elif kind == "ins":
            out += [other, t]
    return out


def generation(gguf: Path, threads: int, n_tokens: int, rounds: int, rules: tuple[str, ...]) -> dict[str, Any]:
    from tingji.engine.decoder import open_decoder
    from tingji.engine.draft import Drafter, DraftPolicy
    from tingji.engine.generation import DecodeOptions

    ctx = open_decoder(gguf, eos_ids=[], n_threads=threads, n_ctx=1024)
    before, audio, after = _prompt(ctx, 125)
    opts = DecodeOptions(max_tokens=n_tokens, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    logits = ctx.forward_logits(before, audio, after, plain.tokens)[:n_tokens]
    top = np.sort(logits, axis=1)[:, -2:]
    margins = top[:, 1] - top[:, 0]
    cases: dict[str, tuple[list[int], DraftPolicy]] = {
        f"{a}": (corrupt(plain.tokens, 1 - a / 100, ctx.n_vocab, seed=a), DraftPolicy()) for a in ACCEPTANCE
    }
    # The same perfect draft without the tie guard: what blocks alone give (the tokens may then differ).
    cases["100-unguarded"] = (plain.tokens, DraftPolicy(tie_margin=0.0))
    mixed = corrupt(plain.tokens, 0.1, ctx.n_vocab, seed=7, kinds=("sub", "ins", "del"))
    for rule in rules:
        cases[f"90-mixed-{rule}"] = (mixed, DraftPolicy(realign=rule))
    plain_s: list[float] = []
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    info: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        wait_for_quiet(lambda m: print(m, file=sys.stderr))
        ref = ctx.generate(before, audio, after, opts)
        plain_s.append(ref.generate_s)
        for name, (draft, policy) in cases.items():
            drafter = Drafter(draft, ctx.model.token_bytes, policy)
            out = ctx.generate(before, audio, after, opts, drafter=drafter)
            # The first draft rows ride in the prompt's batch: what they add to it is generation's.
            seconds[name].append(out.generate_s + max(out.prefill_s - ref.prefill_s, 0.0) * bool(out.prefill_drafted))
            differ = [i for i, (a, b) in enumerate(zip(plain.tokens, out.tokens)) if a != b]
            info[name] = {
                "accepted": out.accepted,
                "drafted": out.drafted,
                "acceptance": round(out.accepted / max(out.drafted, 1), 3),
                "blocks": {str(k): out.blocks.count(k) for k in sorted(set(out.blocks))},
                "ties": out.ties,
                "in_prefill": out.prefill_drafted,
                "modelled_speedup": modelled_speedup(
                    n_tokens,
                    out.accepted,
                    out.blocks,
                    out.ties,
                    out.prefill_drafted,
                    ref.prompt_tokens - ref.reused_tokens,
                ),
                "tie_margin_at_end": round(drafter.tie_margin(max(out.blocks, default=1)), 4),
                "same_tokens": not differ,
                "first_difference": None
                if not differ
                else {"position": differ[0], "top2_margin": float(margins[differ[0]])},
            }
    ctx.close()
    p = statistics.median(plain_s)
    for name in cases:
        info[name]["generate_s"] = round(statistics.median(seconds[name]), 3)
        info[name]["speedup"] = round(statistics.median(a / b for a, b in zip(plain_s, seconds[name])), 2)
    return {
        "tokens": n_tokens,
        "threads": threads,
        "plain_generate_s": round(p, 3),
        "near_ties": int((margins <= DraftPolicy().tie_margin).sum()),  # plain's choices within the tie margin
        "near_tie_share": round(float((margins <= DraftPolicy().tie_margin).mean()), 4),
        "median_top2_margin": round(float(np.median(margins)), 2),
        "cases": info,
        "rounds": rounds,
    }


def modelled_speedup(
    n_tokens: int, accepted: int, blocks: list[int], ties: int, in_prefill: int = 0, prompt_rows: int = 0
) -> float:
    """A drafted run's speedup if its blocks cost `draft.BLOCK_COST` and Python nothing: beside the measured
    one, it tells a shortfall of the machine (costs, overhead) from one of the policy. Draft rows in the
    prompt's batch (`in_prefill`) cost what they add to its `prompt_rows`."""
    from tingji.engine.draft import block_cost

    steps = n_tokens - 1 - accepted - len(blocks)  # tokens fed alone (the first comes from the prompt)
    rows = block_cost(prompt_rows + in_prefill) - block_cost(prompt_rows) if in_prefill else 0.0
    return round((n_tokens - 1) / (sum(block_cost(b) for b in blocks) + ties + steps + rows), 2)


def demo_acceptance(rules: tuple[str, ...]) -> dict[str, Any]:
    """The demo model's CTC drafts on the held-out clips: acceptance (draft tokens accepted / fed) per rule."""
    from demo_model import speech

    from tingji.engine import Engine
    from tingji.engine.draft import DraftPolicy
    from tingji.engine.options import TranscribeOptions

    clips = [u.samples for u in speech.held_out_set(40, seed=424242)]
    engine = Engine(ROOT / "tests" / "fixtures" / "models" / "demo", threads=2)
    out: dict[str, Any] = {"margins": _demo_margins(engine, clips)}
    try:
        for rule in rules:
            engine.recognizer.draft_policy = DraftPolicy(realign=rule)
            fed = accepted = 0
            with engine.files.lock:
                for clip in clips:
                    timings = engine.recognizer.recognize(clip, TranscribeOptions(), engine.files.state).timings
                    fed += int(timings.get("draft_tokens", 0))
                    accepted += int(timings.get("draft_accepted", 0))
            out[rule] = {"fed": fed, "accepted": accepted, "acceptance": round(accepted / max(fed, 1), 3)}
    finally:
        engine.close()
    return out


def _demo_margins(engine, clips: list[np.ndarray]) -> dict[str, Any]:
    """Top-2 margins of the demo model's greedy choices on `clips` (draft_model's target for a trained model)."""
    from tingji.engine.draft import DraftPolicy
    from tingji.engine.options import TranscribeOptions

    margins: list[float] = []
    with engine.files.lock:
        lane = engine.files.state
        generate = lane.generate

        def generate_and_score(before, rows, after, *args, **kwargs):  # the real call; its choices scored
            result = generate(before, rows, after, *args, **kwargs)
            top = np.sort(lane.forward_logits(before, rows, after, result.tokens), axis=1)[:, -2:]
            margins.extend((top[:, 1] - top[:, 0]).tolist())
            return result

        lane.generate = generate_and_score
        try:
            for clip in clips:
                engine.recognizer.recognize(clip, TranscribeOptions(), lane)
        finally:
            del lane.generate
    m = np.array(margins)
    return {
        "positions": len(m),
        "median_top2_margin": round(float(np.median(m)), 2),
        "near_tie_share": round(float((m <= DraftPolicy().tie_margin).mean()), 4),
    }


# -- main --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    from tingji.engine.draft import REALIGN_RULES, DraftPolicy

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small random decoder: plumbing only")
    ap.add_argument("--tokens", type=int, default=240, help="tokens per generation (a 60 s window's worth)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5, help="repetitions per block size")
    ap.add_argument("--parts", default="blocks,tiled,exactness,sequences,generation,realign,policy,demo")
    ap.add_argument("--no-write", action="store_true", help="print only; write no results")
    add_quiet_options(ap)
    args = ap.parse_args(argv)
    use_quiet_options(args)
    parts = set(args.parts.split(","))
    quants = ("q5_k", "q8_0") if "sequences" in parts else ("q5_k",)
    cache = BENCH / ".cache" / ("quick" if args.quick else "full") / f"draft-decisive-{DECISIVE_VERSION}"
    needs_model = bool(parts & {"blocks", "tiled", "exactness", "sequences", "generation"})
    paths = build_decoders(cache, args.quick, quants) if needs_model else {}
    doc: dict[str, Any] = {"model": "random Qwen3-0.6B-shaped" if not args.quick else "random small Qwen3"}
    doc["machine"] = machine()
    doc["date"] = time.strftime("%Y-%m-%d %H:%M")
    doc["default_policy"] = {"realign": DraftPolicy().realign, "block_cost": dict(DraftPolicy().costs)}
    doc["load_before"] = wait_for_quiet(lambda m: print(m, file=sys.stderr))
    if "blocks" in parts:
        doc["blocks_q5_k"] = block_costs(paths["q5_k"], args.threads, args.reps)
        print(json.dumps(doc["blocks_q5_k"]), file=sys.stderr)
    if "tiled" in parts:
        doc["tiled_q5_k"] = tiled_kernel(paths["q5_k"], args.threads, args.reps)
        print(json.dumps(doc["tiled_q5_k"]), file=sys.stderr)
    if "exactness" in parts:
        doc["exactness_q5_k"] = exactness(paths["q5_k"], args.threads)
        print(json.dumps(doc["exactness_q5_k"]), file=sys.stderr)
    if "sequences" in parts:
        doc["sequences"] = {q: parallel_sequences(paths[q], steps=16) for q in ("q5_k", "q8_0")}
        print(json.dumps(doc["sequences"]), file=sys.stderr)
    if "generation" in parts:
        rules = REALIGN_RULES if "realign" in parts else ()
        doc["generation_q5_k"] = gen = generation(paths["q5_k"], args.threads, args.tokens, args.rounds, rules)
        print(json.dumps(gen, indent=1), file=sys.stderr)
    if "policy" in parts:
        shares = (0.0, 0.02, 0.033, doc.get("generation_q5_k", {}).get("near_tie_share", 0.03))
        doc["policy"] = policy_curve(ACCEPTANCE, tuple(sorted(set(shares))), args.tokens, corrupt)
        print(json.dumps(doc["policy"]), file=sys.stderr)
    if "demo" in parts:
        doc["demo"] = demo_acceptance(REALIGN_RULES)
        print(json.dumps(doc["demo"]), file=sys.stderr)
    doc["load_after"] = wait_for_quiet(lambda m: print(m, file=sys.stderr))
    summary: dict[str, Any] = {}
    if "generation_q5_k" in doc:
        for a in ACCEPTANCE:
            summary[f"draft_gen_speedup_{a}"] = doc["generation_q5_k"]["cases"][str(a)]["speedup"]
    if "demo" in doc:
        summary["demo_draft_acceptance"] = doc["demo"][DraftPolicy().realign]["acceptance"]
    doc["summary"] = summary
    doc["goals"] = {
        k: {"value": summary[k], "goal": f"{op} {v}", "met": summary[k] >= v}
        for k, (op, v) in GOALS.items()
        if k in summary
    }
    text = json.dumps(doc, indent=2, default=str)
    print(text)
    if not args.no_write and not args.quick:
        (BENCH / "results" / f"draft-{time.strftime('%Y-%m-%d')}.json").write_text(text + "\n")
        write_latest(summary, "draft", doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
