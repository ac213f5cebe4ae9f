"""Draft-verified decoding (engine/generation.py, engine/draft.py): the LLM's own greedy tokens, in blocks.

The proofs of issue 46: the demo model (trained CTC head and LLM) says the same
tokens with and without its CTC draft; on random weights a perfect draft
changes nothing but near-ties that batched logits may tip (counted and
printed), a useless draft changes nothing and is switched off within the first
blocks, and a rollback leaves the KV cache holding exactly the accepted
positions. Figures are printed (`-s`); speed is benchmarks/draft.py's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.support.paths import ROOT
from tingji.engine.decoder import LlamaContext, open_decoder
from tingji.engine.draft import (
    BLOCK_COST,
    Drafter,
    DraftPolicy,
    best_draft_length,
    block_cost,
    ctc_text,
    expected_tokens,
)
from tingji.engine.generation import DecodeOptions
from tingji.engine.manifest import load_manifest
from tingji.errors import Cancelled

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"

from demo_model import speech  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)

# The block a perfect draft goes in: the measured size with the most rows per step (draft.BLOCK_COST).
BEST_BLOCK = max(BLOCK_COST, key=lambda size: size / BLOCK_COST[size])


def _prompt(ctx: LlamaContext, seed: int, rows: int = 12) -> tuple[list[int], np.ndarray, list[int]]:
    before = ctx.tokenize("<|im_start|>user\n")
    after = ctx.tokenize("<|im_end|>\n<|im_start|>assistant\n")
    audio = np.random.default_rng(seed).standard_normal((rows, ctx.n_embd)).astype(np.float32)
    return before, audio, after


def _gguf(tiny_model: Path) -> Path:
    return tiny_model / load_manifest(tiny_model).files["decoder"].path


def _margins(logits: np.ndarray) -> np.ndarray:
    top = np.sort(logits, axis=1)[:, -2:]
    return top[:, 1] - top[:, 0]


# -- the policy, without a model ------------------------------------------------------------------


def test_block_size_follows_acceptance_and_plain_steps_win_below_break_even() -> None:
    sizes = [best_draft_length(p, 1000) for p in (0.0, 0.3, 0.6, 0.8, 0.9, 0.97, 1.0)]
    print("draft tokens per block at acceptance 0, .3, .6, .8, .9, .97, 1:", sizes)
    assert sizes[0] == 0 and sizes[1] == 0  # nothing pays: one token per step
    assert sizes == sorted(sizes)  # more acceptance, longer blocks
    assert sizes[-1] == BEST_BLOCK - 1  # a perfect draft: the block with the most rows per step
    assert best_draft_length(1.0, 5) == 5  # never past the draft's end or the budget
    assert expected_tokens(1.0, 7) == 8 and expected_tokens(0.0, 7) == 1
    assert block_cost(1) == 1.0 and block_cost(3) > block_cost(2)


def test_tie_margin_follows_the_differences_seen_in_blocks_at_least_as_long() -> None:
    """The guard starts at the policy's margin and then follows what re-decoded positions showed, per block length."""
    policy = DraftPolicy()
    d = Drafter([1, 2, 3], lambda _: b"x", policy)
    assert d.tie_margin(63) == policy.tie_margin  # nothing seen yet
    d.observe(63, 0.001)  # a trained decoder: rows barely differ
    assert d.tie_margin(63) == d.tie_margin(8) == policy.tie_floor  # never under the floor
    d.observe(16, 0.1)  # a random one's blocks of 16 rows
    assert d.tie_margin(8) == pytest.approx(policy.tie_safety * 0.1)  # the worst of blocks >= 8 rows
    assert d.tie_margin(63) == policy.tie_floor  # a block of 16 says nothing of 63 rows
    assert d.tie_margin(64) == policy.tie_margin  # nor one of 63 of 64 (another attention kernel)


def test_draft_place_after_a_difference() -> None:
    """Insertions (punctuation) keep the draft's place; substitutions move it on; `search` finds skips."""
    pieces = {1: b"a", 2: b" b", 3: b" c", 4: b" d", 9: b",", 7: b" x"}
    draft = [1, 2, 3, 4]
    rule = DraftPolicy(realign="search")
    d = Drafter(draft, pieces.__getitem__, rule)
    d.propose(1, 10)
    assert d.place == 1
    d.propose(9, 10)  # a comma the CTC text lacks: " b" is still next
    assert d.place == 1
    d.propose(7, 10)  # " x" for " b": a substitution
    assert d.place == 2
    d.propose(2, 10)  # it was an insertion after all: " b" follows
    assert d.place == 2
    d = Drafter(draft, pieces.__getitem__, rule)
    d.propose(1, 10)
    d.propose(4, 10)  # the LLM skipped " b c": found ahead
    assert d.place == 4
    sure = {"prior_weight": 40.0}  # still drafting after one difference
    kept = Drafter(draft, pieces.__getitem__, DraftPolicy(realign="keep", **sure)).propose(7, 10)
    assert kept and kept == draft[: len(kept)]
    moved = Drafter(draft, pieces.__getitem__, DraftPolicy(realign="advance", **sure)).propose(9, 10)
    assert moved and moved == draft[1 : 1 + len(moved)]
    # Punctuation for punctuation, or a token with no text for another (benchmarks/draft.py's random
    # substitutes of the synthetic vocabulary's padding), is a substitution: the place moves on.
    pieces |= {5: b".", 6: b"", 8: b""}
    for expected, said in ((5, 9), (6, 8)):
        d = Drafter([1, expected, 3, 4], pieces.__getitem__, rule)
        d.propose(1, 10)
        d.propose(said, 10)
        assert d.place == 2, (expected, said)
    with pytest.raises(ValueError):
        DraftPolicy(realign="sideways")


def test_ctc_text_collapses_repeats_and_drops_blanks_and_tags() -> None:
    pieces = [b" he", b"llo", b" w", b"<|tag|>", b""]
    best = np.array([4, 0, 0, 4, 1, 1, 3, 4, 2, 2])
    assert ctc_text(best, blank=4, pieces=pieces, text_tokens=3) == "hello w"
    assert ctc_text(best, blank=4, pieces=pieces) == "hello<|tag|> w"


# -- proof 3, 4: random weights ----------------------------------------------------------------------


def _calibrated_difference(ctx: LlamaContext, seed: int, n: int) -> float:
    """Largest |block logits - one-token logits| over a greedy run of `n` tokens fed as blocks of 4..63."""
    before, audio, after = _prompt(ctx, seed)
    plain = ctx.generate(before, audio, after, DecodeOptions(max_tokens=n, guard=False, ignore_eos=True))
    single = ctx.forward_logits(before, audio, after, plain.tokens)
    worst = 0.0
    for size in (4, 16, 63):
        pos, _ = ctx.prefill(before, audio, after)
        rows = []
        for start in range(0, n, size):
            rows.append(ctx.decode_block(pos + start, plain.tokens[start : start + size]))
        batched = np.concatenate(rows)
        worst = max(worst, float(np.abs(batched - single[1 : n + 1]).max()))
    return worst


@pytest.mark.parametrize("exact", [False, True], ids=["fast", "exact"])
def test_perfect_draft_gives_plain_tokens_but_near_ties(tiny_model: Path, exact: bool) -> None:
    """Proof 3: plain greedy output as the draft is accepted whole, and the tokens are plain decoding's
    wherever the top-2 margin exceeds the batch-vs-single logit difference (measured on another prompt)."""
    ctx = open_decoder(_gguf(tiny_model), eos_ids=[], n_threads=2, n_ctx=512, exact=exact)
    n = 200
    diff = _calibrated_difference(ctx, seed=11, n=n)
    before, audio, after = _prompt(ctx, seed=5)
    opts = DecodeOptions(max_tokens=n, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    margins = _margins(ctx.forward_logits(before, audio, after, plain.tokens)[:n])
    # Unguarded (tie_margin 0): the block's own argmax at every position, as the proof states it.
    drafter = Drafter(plain.tokens, ctx.model.token_bytes, DraftPolicy(tie_margin=0.0))
    drafted = ctx.generate(before, audio, after, opts, drafter=drafter)
    close = int((margins <= diff).sum())
    differ = [i for i, (a, b) in enumerate(zip(plain.tokens, drafted.tokens)) if a != b]
    print(
        f"\n[{'exact' if exact else 'fast'}] batch-vs-single logit difference {diff:.2e}; "
        f"{close}/{n} positions with a top-2 margin within it; "
        f"accepted {drafted.accepted}/{drafted.drafted}; blocks {drafted.blocks}; "
        f"first differing position: {differ[:1]} (margin {margins[differ[0]] if differ else float('nan'):.2e})"
    )
    assert len(drafted.tokens) == n
    if differ:  # only a near-tie may tip, and everything after it follows from it
        assert margins[differ[0]] <= diff, (differ[0], margins[differ[0]], diff)
    else:
        assert drafted.accepted == drafted.drafted > 0.9 * n
        assert max(drafted.blocks) == BEST_BLOCK  # a perfect draft goes in the cheapest blocks a row
    ctx.close()


def test_perfect_draft_keeps_the_loop_guard_and_its_retries(tiny_model: Path) -> None:
    """The random tiny model loops: drafted decoding stops where plain does and retries the same way."""
    ctx = open_decoder(_gguf(tiny_model), eos_ids=[], n_threads=2, n_ctx=1024, exact=True)
    before, audio, after = _prompt(ctx, seed=0, rows=20)
    opts = DecodeOptions(guard=True)
    plain = ctx.generate(before, audio, after, opts)
    first = plain.attempts[0]
    drafted = ctx.generate(before, audio, after, opts, drafter=Drafter(first + first, ctx.model.token_bytes))
    print(f"\nplain: stop={plain.stop} retries={plain.retries}; drafted blocks {drafted.blocks}")
    assert plain.stop == "loop" or plain.retries > 0, "the random tiny model is expected to loop"
    assert drafted.attempts[0] == first
    assert (drafted.tokens, drafted.stop, drafted.retries) == (plain.tokens, plain.stop, plain.retries)
    assert drafted.blocks


def test_useless_draft_gives_plain_tokens_and_switches_itself_off(tiny_model: Path) -> None:
    """Proof 4: random tokens as the draft; the output is plain decoding's, and after the first few
    differences the estimated acceptance is below every block's break-even (plain steps from then on)."""
    ctx = open_decoder(_gguf(tiny_model), eos_ids=[], n_threads=2, n_ctx=512, exact=True)
    before, audio, after = _prompt(ctx, seed=3)
    opts = DecodeOptions(max_tokens=120, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    junk = np.random.default_rng(9).integers(0, ctx.n_vocab, 400).tolist()
    drafter = Drafter(junk, ctx.model.token_bytes)
    drafted = ctx.generate(before, audio, after, opts, drafter=drafter)
    print(f"\nuseless draft: blocks {drafted.blocks}, accepted {drafted.accepted}/{drafted.drafted}")
    assert drafted.tokens == plain.tokens
    # From the prior (0.9, weight 4) each difference lowers the estimate; five put it under the
    # break-even of the cheapest block (BLOCK_COST[2]).
    assert len(drafted.blocks) <= 5, drafted.blocks
    assert best_draft_length(drafter.acceptance, 1000) == 0
    ctx.close()


def test_cancel_stops_a_drafted_run(tiny_model: Path) -> None:
    ctx = open_decoder(_gguf(tiny_model), eos_ids=[], n_threads=2, n_ctx=512)
    before, audio, after = _prompt(ctx, seed=4)
    opts = DecodeOptions(max_tokens=200, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    calls = {"n": 0}

    def cancel() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    with pytest.raises(Cancelled):
        ctx.generate(before, audio, after, opts, cancel=cancel, drafter=Drafter(plain.tokens, ctx.model.token_bytes))
    assert calls["n"] == 4
    ctx.close()


# -- proof 5: rollback -----------------------------------------------------------------------------------


def test_rollback_leaves_exactly_the_accepted_positions(tiny_model: Path) -> None:
    """Proof 5: after a rejected block, the next step's logits are a fresh decode's of the accepted prefix;
    without the rollback they are not (the rejected cells would still be attended to)."""
    gguf = _gguf(tiny_model)
    ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=512, exact=True)
    before, audio, after = _prompt(ctx, seed=6)
    plain = ctx.generate(before, audio, after, DecodeOptions(max_tokens=12, guard=False, ignore_eos=True))
    accepted = plain.tokens[:4]
    rejected = np.random.default_rng(2).integers(0, ctx.n_vocab, 6).tolist()
    nxt = plain.tokens[4]

    def next_logits(c: LlamaContext, block: list[int], keep: int) -> np.ndarray:
        pos, _ = c.prefill(before, audio, after)
        c.decode_block(pos, block)
        c.rollback(pos + keep)
        mem = c._ll.llama_get_memory(c._ctx)
        assert int(c._ll.llama_memory_seq_pos_max(mem, 0)) == pos + keep - 1  # exactly the kept positions
        return c.decode_block(pos + keep, [nxt])[0]

    rolled = next_logits(ctx, accepted + rejected, keep=len(accepted))
    # A rollback that kept one rejected cell: the next token would see it.
    stale = next_logits(ctx, accepted + rejected, keep=len(accepted) + 1)
    fresh_ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=512, exact=True)
    fresh = next_logits(fresh_ctx, accepted, keep=len(accepted))
    close = float(np.abs(rolled - fresh).max())
    off = float(np.abs(stale - fresh).max())
    print(
        f"\nnext-step logits vs a fresh decode of the accepted prefix: {close:.2e}; "
        f"with one rejected cell kept: {off:.2e}"
    )
    assert close < 1e-3 * float(np.abs(fresh).max())
    assert off > 100 * max(close, 1e-6)
    assert int(np.argmax(rolled)) == int(np.argmax(fresh))
    ctx.close()
    fresh_ctx.close()


def test_a_tie_checked_aside_keeps_the_block_or_takes_its_place(tiny_model: Path) -> None:
    """A position re-decoded aside (the tie guard) gives one token's logits over the block's cells; dropped,
    the block's cells are as they were; adopted, the cache holds the block up to it and its own cell."""
    ctx = open_decoder(_gguf(tiny_model), eos_ids=[], n_threads=2, n_ctx=512, exact=True)
    before, audio, after = _prompt(ctx, seed=8)
    plain = ctx.generate(before, audio, after, DecodeOptions(max_tokens=12, guard=False, ignore_eos=True))
    block, mem_pos = plain.tokens[:8], ctx._ll.llama_memory_seq_pos_max

    def cache_ends(seq: int) -> int:
        return int(mem_pos(ctx._ll.llama_get_memory(ctx._ctx), seq))

    pos, _ = ctx.prefill(before, audio, after)
    ctx.decode_block(pos, block[:3])
    alone = ctx.decode_block(pos + 3, [block[3]])[0]  # what the tie guard wants: position 3 by itself
    after_alone = ctx.decode_block(pos + 4, [block[4]])[0]
    ctx.rollback(pos)
    ctx.decode_block(pos, block)
    after_block = ctx.decode_block(pos + 8, [plain.tokens[8]])[0]
    ctx.rollback(pos + 8)
    aside = ctx.decode_aside(pos + 3, block[3])
    ctx.end_aside(adopt=False)
    assert cache_ends(0) == pos + 7 and cache_ends(1) == -1  # the block's cells stay, the aside's went
    kept = ctx.decode_block(pos + 8, [plain.tokens[8]])[0]
    ctx.rollback(pos + 8)
    ctx.decode_aside(pos + 3, block[3])
    ctx.end_aside(adopt=True)
    assert cache_ends(0) == pos + 3 and cache_ends(1) == -1  # the block up to it, then its own cell
    adopted = ctx.decode_block(pos + 4, [block[4]])[0]
    scale = float(np.abs(alone).max())
    print(
        f"\naside vs alone {np.abs(aside - alone).max():.2e}; the block kept {np.abs(kept - after_block).max():.2e}; "
        f"adopted vs alone {np.abs(adopted - after_alone).max():.2e} (logit scale {scale:.1f})"
    )
    assert np.abs(aside - alone).max() < 1e-3 * scale
    assert np.abs(kept - after_block).max() < 1e-3 * scale
    assert np.abs(adopted - after_alone).max() < 1e-3 * scale
    ctx.close()


# -- proof 1: the demo model -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_engine():
    from tingji.engine import Engine

    eng = Engine(DEMO, threads=2)
    yield eng
    eng.close()


def test_demo_model_tokens_are_the_same_with_and_without_its_ctc_draft(demo_engine) -> None:
    """Proof 1: every held-out clip (test_demo_model's 40, and those 40 as one long window) decodes to the
    same tokens with drafting as without; the acceptance and the block sizes are printed."""
    from tingji.engine.options import TranscribeOptions

    recognizer = demo_engine.recognizer
    clips = [u.samples for u in speech.held_out_set(40, seed=424242)]
    clips.append(np.concatenate([np.concatenate([c, np.zeros(4000, np.float32)]) for c in clips[:14]]))
    drafted = accepted = 0
    blocks: list[int] = []
    differing = []
    with demo_engine.files.lock:
        lane = demo_engine.files.state
        generate = lane.generate

        def generate_and_keep_blocks(*args, **kwargs):  # the real call; its block sizes noted
            result = generate(*args, **kwargs)
            blocks.extend(result.blocks)
            return result

        lane.generate = generate_and_keep_blocks
        try:
            for i, clip in enumerate(clips):
                recognizer.drafting = False
                plain = recognizer.recognize(clip, TranscribeOptions(), lane)
                recognizer.drafting = True
                with_draft = recognizer.recognize(clip, TranscribeOptions(), lane)
                drafted += int(with_draft.timings["draft_tokens"])
                accepted += int(with_draft.timings["draft_accepted"])
                if with_draft.tokens != plain.tokens:
                    differing.append((i, plain.text, with_draft.text))
        finally:
            recognizer.drafting = True
            del lane.generate
    sizes = {size: blocks.count(size) for size in sorted(set(blocks))}
    print(
        f"\ndemo model: {len(clips)} clips, draft tokens fed {drafted}, accepted {accepted} "
        f"({accepted / max(drafted, 1):.1%}); blocks by size {sizes}; long window: {plain.text!r}"
    )
    assert not differing, differing
    assert accepted > 0.5 * drafted > 0  # the trained CTC head drafts well, so blocks are used
