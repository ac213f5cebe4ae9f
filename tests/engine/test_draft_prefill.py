"""The first draft tokens ride in the prompt's batch (engine/generation.py `_prefill`): plain tokens, exact cells.

A short answer the draft holds whole is then decoded with no block of its own.
Whatever the draft, the tokens are plain greedy decoding's, and after the
prompt's batch the KV cache holds the prompt and the accepted draft tokens
only: the next step's logits are a fresh token-by-token decode's of them.
Real llama.cpp on the tiny random Nano decoder (exact mode, where a block's
rows and one token's agree to ~1e-6); the trained demo model's clips, drafted
this way by default, are tests/engine/test_draft.py's proof 1.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tingji.engine.decoder import LlamaContext, open_decoder
from tingji.engine.draft import Drafter, DraftPolicy, best_first_length, block_cost, prefill_costs, tail_costs
from tingji.engine.generation import DecodeOptions, _prefill
from tingji.engine.manifest import load_manifest

# The tests' own block costs (2026-11-28's measurement, pip's llama.cpp build): under them the prior's
# acceptance (0.9) puts a 12-token answer but its last in the prompt's batch. The engine's table is a
# measurement (engine/draft.py BLOCK_COST) and moves with llama.cpp; what is tested here does not.
POLICY = DraftPolicy(costs=((1, 1.0), (2, 2.04), (4, 2.97), (8, 4.57), (16, 5.15), (32, 8.23), (63, 13.69)))


def _prompt(ctx: LlamaContext, seed: int, rows: int = 12) -> tuple[list[int], np.ndarray, list[int]]:
    before = ctx.tokenize("<|im_start|>user\n")
    after = ctx.tokenize("<|im_end|>\n<|im_start|>assistant\n")
    audio = np.random.default_rng(seed).standard_normal((rows, ctx.n_embd)).astype(np.float32)
    return before, audio, after


@pytest.fixture(scope="module")
def tiny_ctx(tiny_model: Path):
    gguf = tiny_model / load_manifest(tiny_model).files["decoder"].path
    ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=512, exact=True)
    assert ctx.model.token_rows is not None  # the prompt is one batch of rows: the path under test
    yield ctx
    ctx.close()


def _drafts(plain: list[int], n_vocab: int) -> dict[str, list[int]]:
    wrong = lambda t: (t + 1) % n_vocab  # noqa: E731 - another token, never the plain one
    return {
        "perfect": list(plain),
        "wrong first": [wrong(plain[0]), *plain[1:]],
        "wrong in the middle": [*plain[:5], wrong(plain[5]), *plain[6:]],
    }


def _accepted(name: str) -> int:
    """Draft tokens the prompt's batch should accept: up to the first wrong one."""
    return {"perfect": 11, "wrong first": 0, "wrong in the middle": 5}[name]


@pytest.mark.parametrize("name", ["perfect", "wrong first", "wrong in the middle"])
def test_draft_in_the_prompts_batch_gives_plain_tokens(tiny_ctx: LlamaContext, name: str) -> None:
    """(a) a perfect draft: a 12-token answer in the prompt's batch alone, no block; (b) a draft wrong at
    its first token and (c) one wrong in the middle: the same tokens as plain decoding, the rows up to the
    wrong token accepted."""
    ctx = tiny_ctx
    before, audio, after = _prompt(ctx, seed=21)
    opts = DecodeOptions(max_tokens=12, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    draft = _drafts(plain.tokens, ctx.n_vocab)[name]
    drafted = ctx.generate(before, audio, after, opts, drafter=Drafter(draft, ctx.model.token_bytes, POLICY))
    unfed = ctx.generate(
        before, audio, after, opts, drafter=Drafter(draft, ctx.model.token_bytes, replace(POLICY, in_prefill=False))
    )
    print(
        f"\n{name}: in the prompt's batch {drafted.prefill_drafted}, accepted {drafted.accepted}/{drafted.drafted}, "
        f"blocks after it {drafted.blocks} (first block after the prompt's: {unfed.blocks}), ties {drafted.ties}"
    )
    assert drafted.tokens == unfed.tokens == plain.tokens
    assert drafted.prefill_drafted == 11  # the prior's acceptance (0.9): the whole 12-token answer but its last
    if name == "perfect":
        assert drafted.accepted == 11 and drafted.blocks == []  # no block of its own
        assert len(unfed.blocks) == 1
    else:
        assert len(drafted.blocks) <= len(unfed.blocks)
    assert drafted.reused_tokens == len(before)  # the previous run's prefix: draft cells never cached


@pytest.mark.parametrize("name", ["perfect", "wrong first", "wrong in the middle"])
def test_cache_after_the_prompts_batch_holds_exactly_the_accepted_positions(
    tiny_ctx: LlamaContext, tiny_model: Path, name: str
) -> None:
    """After the prompt's batch with draft rows: the cache ends at the last accepted draft token, the second
    sequence is empty, the cached prefix is the prompt's tokens before the audio, and the next step's
    logits equal a fresh decode (another context, token by token) of the prompt and the accepted prefix."""
    ctx = tiny_ctx
    before, audio, after = _prompt(ctx, seed=22)
    opts = DecodeOptions(max_tokens=12, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts).tokens
    ctx.rollback(0)  # a prompt with nothing cached: every row in the batch
    drafter = Drafter(_drafts(plain, ctx.n_vocab)[name], ctx.model.token_bytes, POLICY)
    start = _prefill(ctx, before, audio, after, opts, drafter)
    keep = _accepted(name)
    mem = ctx._ll.llama_get_memory(ctx._ctx)
    assert start.accepted == plain[:keep]
    assert int(ctx._ll.llama_memory_seq_pos_max(mem, 0)) == start.n_prompt + keep - 1
    assert int(ctx._ll.llama_memory_seq_pos_max(mem, 1)) == -1
    assert ctx._cached == before and drafter.place == keep
    nxt = plain[keep]
    assert int(np.argmax(start.logits)) == nxt
    stepped = ctx.decode_block(start.n_prompt + keep, [nxt])[0]

    gguf = tiny_model / load_manifest(tiny_model).files["decoder"].path
    fresh = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=512, exact=True)
    try:
        single = fresh.forward_logits(before, audio, after, plain[: keep + 1])
    finally:
        fresh.close()
    scale = float(np.abs(single).max())
    here, there = float(np.abs(start.logits - single[keep]).max()), float(np.abs(stepped - single[keep + 1]).max())
    print(f"\n{name}: the row after the accepted prefix {here:.2e}, the next step {there:.2e} (scale {scale:.1f})")
    assert here < 1e-3 * scale and there < 1e-3 * scale


def test_a_prompt_split_into_batches_keeps_the_draft_rows_logits(tiny_model: Path) -> None:
    """A context whose batches hold 8 rows: the prompt and its draft rows go in several `llama_decode`s, and
    the logits from the prompt's last row on are those of the rows that asked for them."""
    gguf = tiny_model / load_manifest(tiny_model).files["decoder"].path
    ctx = open_decoder(gguf, eos_ids=[], n_threads=2, n_ctx=512, n_batch=8, exact=True)
    try:
        before, audio, after = _prompt(ctx, seed=25)
        opts = DecodeOptions(max_tokens=12, guard=False, ignore_eos=True)
        plain = ctx.generate(before, audio, after, opts).tokens
        ctx.rollback(0)
        # No tie guard: the tiny random model's near ties would send the prompt's row to be made again.
        drafter = Drafter(plain, ctx.model.token_bytes, replace(POLICY, tie_margin=0.0))
        n_prompt, _, draft, rows = ctx.prefill_drafted(before, audio, after, lambda _: plain[:11])
        assert draft == plain[:11] and n_prompt > 8 and rows is not None and rows.shape == (12, ctx.n_vocab)
        assert rows.argmax(axis=1).tolist() == plain  # row i chooses the token after draft[i - 1]
        ctx.rollback(0)
        assert _prefill(ctx, before, audio, after, opts, drafter).accepted == plain[:11]
    finally:
        ctx.close()


def test_a_near_tie_at_the_prompts_row_is_made_from_the_prompt_alone(tiny_ctx: LlamaContext) -> None:
    """Every choice a near tie (margin wider than any logit gap): the prompt's row is taken from the prompt's
    batch without the draft, bit for bit what plain prefill gives, and the draft's cells are gone."""
    ctx = tiny_ctx
    before, audio, after = _prompt(ctx, seed=23)
    opts = DecodeOptions(max_tokens=12, guard=False, ignore_eos=True)
    ctx.rollback(0)
    ctx.prefill(before, audio, after)
    plain_row = ctx.last_logits().copy()
    plain = ctx.generate(before, audio, after, opts).tokens
    ctx.rollback(0)
    drafter = Drafter(plain, ctx.model.token_bytes, replace(POLICY, tie_margin=1e9))
    start = _prefill(ctx, before, audio, after, opts, drafter)
    mem = ctx._ll.llama_get_memory(ctx._ctx)
    assert drafter.in_prefill > 0 and drafter.ties == 1 and start.accepted == []
    assert np.array_equal(start.logits, plain_row)
    assert int(ctx._ll.llama_memory_seq_pos_max(mem, 0)) == start.n_prompt - 1
    ctx.rollback(0)
    drafted = ctx.generate(before, audio, after, opts, drafter=Drafter(plain, ctx.model.token_bytes, POLICY))
    assert drafted.tokens == plain


def test_without_token_rows_the_prompt_goes_as_before(tiny_ctx: LlamaContext) -> None:
    """A GGUF whose token table has no exact rows: the prompt is several batches, no draft rides in it."""
    ctx = tiny_ctx
    before, audio, after = _prompt(ctx, seed=24)
    opts = DecodeOptions(max_tokens=12, guard=False, ignore_eos=True)
    plain = ctx.generate(before, audio, after, opts)
    rows, ctx.model.token_rows = ctx.model.token_rows, None
    try:
        drafted = ctx.generate(before, audio, after, opts, drafter=Drafter(plain.tokens, ctx.model.token_bytes, POLICY))
    finally:
        ctx.model.token_rows = rows
    assert drafted.tokens == plain.tokens
    assert drafted.prefill_drafted == 0 and drafted.blocks  # the first block follows the prompt's


def test_rows_in_the_prompts_batch_pay_for_what_they_save() -> None:
    """The prompt's batch takes as many draft rows as the blocks after it would cost more for."""
    print("\n", {p: [best_first_length(a, 11, p, POLICY) for a in (0.0, 0.5, 0.9, 1.0)] for p in (20, 60, 200)})
    assert best_first_length(0.0, 11, 60, POLICY) == 0  # a useless draft adds nothing to the prompt
    assert best_first_length(1.0, 11, 60, POLICY) == 11  # a perfect one: the whole short answer
    assert best_first_length(1.0, 0, 60, POLICY) == 0
    assert best_first_length(0.9, 11, 60, POLICY) <= best_first_length(1.0, 11, 60, POLICY)
    assert best_first_length(1.0, 500, 60, POLICY) <= 62  # not past the longest measured block


def _simulated_costs(accept: float, limit: int, prompt_rows: int, n: int, policy: DraftPolicy, rng, answers: int):
    """Answers of `limit` + 1 tokens decoded as `generation` would: n draft rows in the prompt's batch, then
    for each step the choice `tail_costs` rates cheapest, acceptances drawn token by token."""
    tail = tail_costs(accept, limit, policy)
    steps = sorted({size - 1 for size, _ in policy.costs if size > 1})
    choice = [0] * (limit + 1)  # the draft tokens of the step taken with `left` tokens to go (0: a plain step)
    for left in range(1, limit + 1):
        rated = {0: 1.0 + tail[left - 1]}
        for k in {min(k, left) for k in steps}:
            p = np.array([accept**j * (1 - accept) for j in range(k)] + [accept**k])
            rated[k] = block_cost(k + 1, policy.costs) + float(p @ tail[np.maximum(left - np.arange(k + 1) - 1, 0)])
        choice[left] = min(rated, key=rated.get)

    def accepted(k: int) -> int:
        j = 0
        while j < k and rng.random() < accept:
            j += 1
        return j

    added = block_cost(prompt_rows + n, policy.costs) - block_cost(prompt_rows, policy.costs) if n else 0.0
    out = np.empty(answers)
    for i in range(answers):
        cost, left = added, limit - accepted(n)
        while left > 0:
            k = choice[left]
            cost += 1.0 if k == 0 else block_cost(k + 1, policy.costs)
            left -= 1 if k == 0 else accepted(k) + 1
        out[i] = cost
    return out


@pytest.mark.parametrize("accept", [0.5, 0.9, 1.0])
def test_the_prompts_batch_is_priced_at_what_decoding_the_answer_costs(accept: float) -> None:
    """`prefill_costs` against the process it models, simulated: 6,000 answers of 12 tokens for each length
    of the draft in the prompt's batch, with the engine's block costs; each expected cost within four
    standard errors of the simulated mean."""
    policy, limit, rows = DraftPolicy(), 11, 25
    expected = prefill_costs(accept, limit, rows, policy)
    rng = np.random.default_rng(7)
    runs = [_simulated_costs(accept, limit, rows, n, policy, rng, 6000) for n in range(limit + 1)]
    mean = np.array([r.mean() for r in runs])
    error = np.array([r.std() / len(r) ** 0.5 for r in runs])
    print(f"\nacceptance {accept}: expected {np.round(expected, 2).tolist()}")
    print(f"  simulated {np.round(mean, 2).tolist()} (standard errors up to {error.max():.3f})")
    assert np.all(np.abs(mean - expected) <= 4 * error + 1e-9)
