"""How tokens are generated after a prefilled prompt: greedy steps, verified drafts, the loop guard.

Decoding is greedy, as the reference's `generate()` is. Greedy decoding can
fall into a loop; with the guard on, a run whose recent tokens cycle through a
handful of ids is stopped and retried with a little temperature, as peers do.
`guard=False` is the reference mode.

With a draft (`draft.Drafter`: for Fun-ASR-Nano the window's CTC text in the
LLM's tokens) a greedy attempt goes in blocks: the token the LLM chose and
the draft's next k tokens are fed in one `LlamaContext.decode_block`, which
gives logits at every position. The longest prefix of the draft that equals
the LLM's own argmax is accepted, the argmax after it is the next token, and
the rejected positions leave the KV cache (`LlamaContext.rollback`). Every
emitted token is the LLM's greedy choice, so the text is plain decoding's;
the eos, loop and limit checks run token by token as in plain decoding. The
first draft tokens ride in the prompt's batch (`_prefill`): the prompt's last
row chooses the first token and the draft rows verify as a block's would, so
an answer the draft holds whole takes no block of its own. A
block's logits differ from one token's in the last bits (other kernels), so
a choice whose top two logits are closer than `Drafter.tie_margin` is
taken from that position decoded alone, as plain decoding takes it (the
margin starts wide and then follows the differences those re-decodes
show); that decode runs on a second sequence over the same cells, so the
block's later rows still stand when it chooses as the block did. The
block size follows the draft's recent acceptance, down to plain one-token
steps where drafts do not pay (`draft.DraftPolicy`).

The functions take the `LlamaContext` that holds the KV cache (decoder.py); it
keeps thin delegates (`LlamaContext.generate`, `forward_logits`) for callers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..errors import Cancelled

if TYPE_CHECKING:
    from .decoder import LlamaContext
    from .draft import Drafter

CancelCheck = Callable[[], bool]


@dataclass(frozen=True)
class DecodeOptions:
    max_tokens: int = 512
    guard: bool = True
    ignore_eos: bool = False  # generate exactly max_tokens (work-matched benchmark runs)
    loop_window: int = 30  # a loop: the last `loop_window` tokens hold
    loop_distinct: int = 3  # at most this many distinct ids
    retries: int = 2
    retry_temperature: float = 0.4
    seed: int = 1234


@dataclass
class DecodeResult:
    tokens: list[int]
    text: str
    stop: str  # "eos", "limit", "loop"
    prompt_tokens: int
    reused_tokens: int
    prefill_s: float
    generate_s: float
    retries: int = 0
    attempts: list[list[int]] = field(default_factory=list)
    drafted: int = 0  # draft tokens fed for verification
    accepted: int = 0  # of those, the ones the LLM agreed with
    blocks: list[int] = field(default_factory=list)  # the size of each verified block, in order
    ties: int = 0  # choices in a block too close to call, made from one token's logits instead
    prefill_drafted: int = 0  # of `drafted`, those fed in the prompt's batch (no block of their own)


def generate(
    ctx: LlamaContext,
    before: Sequence[int],
    audio: np.ndarray,
    after: Sequence[int],
    opts: DecodeOptions = DecodeOptions(),
    cancel: CancelCheck | None = None,
    drafter: Drafter | None = None,
) -> DecodeResult:
    """Prefill the prompt around `audio` and generate; `drafter` (optional) speeds up the greedy attempt.

    Args:
        ctx: The lane's context; its KV cache is reused for the common prompt prefix.
        before: Prompt token ids before the audio rows.
        audio: Audio embedding rows [n, n_embd].
        after: Prompt token ids after the audio rows.
        opts: Token budget, loop guard and its retries.
        cancel: Polled before every step or block; True raises `Cancelled`.
        drafter: A draft of the answer; the output does not depend on it, only the speed.
    """
    # Room for the prompt and the first tokens at once: growing copies the cells, holding both
    # contexts at its peak; generation grows it further as it goes.
    ctx.ensure_context(len(before) + len(audio) + len(after) + 1 + min(opts.max_tokens, 128))
    t0 = time.perf_counter()
    start = _prefill(ctx, before, audio, after, opts, drafter)
    t1 = time.perf_counter()
    attempts, result_tokens, stop = _attempts(ctx, start, opts, cancel, drafter)
    t2 = time.perf_counter()
    return DecodeResult(
        tokens=result_tokens,
        text=ctx.detokenize([t for t in result_tokens if t not in ctx.eos_ids]),
        stop=stop,
        prompt_tokens=start.n_prompt,
        reused_tokens=start.reused,
        prefill_s=t1 - t0,
        generate_s=t2 - t1,
        retries=len(attempts) - 1,
        attempts=attempts,
        drafted=drafter.drafted if drafter else 0,
        accepted=drafter.accepted if drafter else 0,
        blocks=list(drafter.blocks) if drafter else [],
        ties=drafter.ties if drafter else 0,
        prefill_drafted=drafter.in_prefill if drafter else 0,
    )


def _attempts(
    ctx: LlamaContext, start: _Start, opts: DecodeOptions, cancel: CancelCheck | None, drafter: Drafter | None
) -> tuple[list[list[int]], list[int], str]:
    """The greedy attempt after the prompt, then (loop guard on) sampled retries while each loops; returns every
    attempt's tokens, the answer's tokens and why it stopped (when all looped: the longest text before a loop)."""
    n_prompt = start.n_prompt
    attempts: list[list[int]] = []
    rng = np.random.default_rng(opts.seed)
    result_tokens, stop = [], "limit"
    for attempt in range(opts.retries + 1 if opts.guard else 1):
        temperature = 0.0 if attempt == 0 else opts.retry_temperature
        if attempt:
            ctx.rollback(n_prompt)
        # Drafts verify greedy choices only: a sampled retry goes one token at a time.
        if attempt:
            tokens, stop = _run(ctx, start.prompt_logits, n_prompt, opts, temperature, rng, cancel)
        else:
            tokens, stop = _run(
                ctx, start.logits, n_prompt + len(start.accepted), opts, 0.0, rng, cancel, drafter, start.accepted
            )
        attempts.append(tokens)
        result_tokens = tokens
        if stop != "loop":
            break
    if stop == "loop":
        # Every attempt looped: keep the one with the most text before its loop took over.
        result_tokens = max((_cut_loop(a, opts.loop_window) for a in attempts), key=len)
    return attempts, result_tokens, stop


@dataclass
class _Start:
    """Where an answer starts after the prompt's batch."""

    n_prompt: int  # the prompt's length: positions 0..n_prompt-1 hold it
    reused: int  # of those, the cached prefix's
    prompt_logits: np.ndarray  # the prompt's last row: the first choice (a sampled retry starts from it)
    logits: np.ndarray  # the row after `accepted`: the next choice
    accepted: list[int] = field(default_factory=list)  # draft tokens the LLM chose, in the cache after the prompt


def _plain_start(ctx: LlamaContext, n_prompt: int, reused: int) -> _Start:
    """An answer's start after the prompt alone: its last row is the first choice."""
    logits = ctx.last_logits().copy()
    return _Start(n_prompt, reused, logits, logits)


def _prefill(
    ctx: LlamaContext,
    before: Sequence[int],
    audio: np.ndarray,
    after: Sequence[int],
    opts: DecodeOptions,
    drafter: Drafter | None,
) -> _Start:
    """The prompt's batch; with a drafter, its first draft tokens ride in it and are verified as a block's.

    The rows [prompt's last, d0, d1, ...] verify as a block [token, d0, ...] does, the prompt's last row
    in the token's place. A near tie there is made again from the prompt alone, as plain decoding's
    prefill gives it (the draft's cells then go); a near tie at a draft row, from that row decoded
    alone (`_check_ties`).
    """
    if drafter is None or not drafter.policy.in_prefill:
        return _plain_start(ctx, *ctx.prefill(before, audio, after))
    # The last token comes from the row after the draft, so at most max_tokens - 1 draft tokens.
    n_prompt, reused, draft, rows = ctx.prefill_drafted(
        before, audio, after, lambda prompt_rows: drafter.propose_first(opts.max_tokens - 1, prompt_rows)
    )
    if rows is None:
        return _plain_start(ctx, n_prompt, reused)
    rows = ctx.check_finite(rows)
    chosen = rows.argmax(axis=1)
    batch = n_prompt - reused + len(draft)
    if _first_near_tie(rows[:1], chosen[:1], drafter.tie_margin(batch)) is not None:
        drafter.ties += 1
        ctx.rollback(reused)  # the prompt's own batch, from the same cached prefix
        return _plain_start(ctx, ctx.prefill(before, audio, after)[0], reused)
    agreed = 0
    while agreed < len(draft) and int(chosen[agreed]) == draft[agreed]:
        agreed += 1
    # block[i] sits at n_prompt - 1 + i; the prompt's row (0) was checked above, so its entry goes unread.
    block = [-1, *draft]
    agreed, alone = _check_ties(ctx, drafter, n_prompt - 1, block, rows, chosen, agreed, start=1, batch=batch)
    if alone is None:
        ctx.rollback(n_prompt + agreed)
        logits = rows[agreed]
    else:
        ctx.end_aside(adopt=True)
        logits = alone
    drafter.record(agreed)
    return _Start(n_prompt, reused, rows[0], logits, draft[:agreed])


class _Tokens:
    """The tokens of one attempt, with plain decoding's stop checks applied as each one is added."""

    def __init__(self, ctx: LlamaContext, opts: DecodeOptions) -> None:
        self.ids: list[int] = []
        self.stop: str | None = None
        self._eos = frozenset() if opts.ignore_eos else ctx.eos_ids
        self._opts = opts

    def add(self, token: int) -> bool:
        """Add `token` unless it ends the answer; False once the attempt is over (`stop` says why)."""
        opts = self._opts
        if token in self._eos:
            self.stop = "eos"
            return False
        self.ids.append(token)
        if opts.guard and _is_loop(self.ids, opts.loop_window, opts.loop_distinct):
            self.stop = "loop"
            return False
        if len(self.ids) >= opts.max_tokens:
            self.stop = "limit"
            return False
        return True


def _run(
    ctx: LlamaContext,
    logits: np.ndarray,
    pos: int,
    opts: DecodeOptions,
    temperature: float,
    rng: np.random.Generator,
    cancel: CancelCheck | None,
    drafter: Drafter | None = None,
    accepted: Sequence[int] = (),
) -> tuple[list[int], str]:
    """One attempt from `logits` at KV position `pos`, after the draft tokens `accepted` in the prompt's
    batch (`_prefill`); returns (tokens, stop)."""
    out = _Tokens(ctx, opts)
    if opts.max_tokens <= 0:
        return [], "limit"
    for t in accepted:
        if not out.add(t):
            return out.ids, out.stop or "limit"
    while True:
        if cancel is not None and cancel():
            raise Cancelled()
        if temperature > 0:
            z = logits.astype(np.float64) / temperature
            p = np.exp(z - z.max())
            token = int(rng.choice(len(p), p=p / p.sum()))
        else:
            token = int(np.argmax(logits))
        if not out.add(token):
            return out.ids, out.stop or "limit"
        proposal = drafter.propose(token, opts.max_tokens - len(out.ids)) if drafter is not None else []
        ctx.ensure_context(pos + 1 + len(proposal))
        if not proposal:
            logits = _step(ctx, pos, token)
            pos += 1
            continue
        block = [token, *proposal]
        rows = ctx.decode_block(pos, block)
        # rows[i] predicts what follows block[i]; proposal[i] is block[i + 1].
        chosen = rows.argmax(axis=1)
        agreed = 0
        while agreed < len(proposal) and int(chosen[agreed]) == proposal[agreed]:
            agreed += 1
        agreed, alone = _check_ties(ctx, drafter, pos, block, rows, chosen, agreed)
        if alone is None:
            ctx.rollback(pos + 1 + agreed)
            logits = rows[agreed]
        else:  # the choice after block[agreed] is the one decoded alone, in its cells
            ctx.end_aside(adopt=True)
            logits = alone
        drafter.record(agreed)
        for t in proposal[:agreed]:
            if not out.add(t):
                return out.ids, out.stop or "limit"
        pos += 1 + agreed


def _check_ties(
    ctx: LlamaContext,
    drafter: Drafter,
    pos: int,
    block: list[int],
    rows: np.ndarray,
    chosen: np.ndarray,
    agreed: int,
    *,
    start: int = 0,
    batch: int | None = None,
) -> tuple[int, np.ndarray | None]:
    """Re-decode a block's near ties alone: (draft tokens accepted, the logits decoded alone where they
    chose otherwise, None when every tie chose as the block did).

    A block's logits differ from one token's in the last bits: where two choices are that close, the
    choice is made from that position decoded alone, as plain decoding makes it. That decode runs
    aside (`LlamaContext.decode_aside`), so when it agrees the block's later rows still stand.
    `block[i]` sits at `pos + i`; rows before `start` are the caller's to check; `batch` is the
    rows the batch decoded (the block's, unless it rode in the prompt's batch).
    """
    batch = batch or len(block)
    while (
        tie := _first_near_tie(rows[start : agreed + 1], chosen[start : agreed + 1], drafter.tie_margin(batch))
    ) is not None:
        tie += start
        drafter.ties += 1
        alone = ctx.decode_aside(pos + tie, block[tie])
        # The same position over the same cells, alone and in the block: this model's own difference.
        drafter.observe(batch, float(np.abs(alone - rows[tie]).max()))
        if int(np.argmax(alone)) != int(chosen[tie]):
            return tie, alone  # an aside still held: the caller adopts it
        ctx.end_aside(adopt=False)
        start = tie + 1
    return agreed, None


def _first_near_tie(rows: np.ndarray, chosen: np.ndarray, margin: float) -> int | None:
    """The first row whose best logit is within `margin` of another, or None."""
    best = rows[np.arange(len(rows)), chosen]
    close = (rows >= (best - margin)[:, None]).sum(axis=1) > 1
    return int(np.argmax(close)) if close.any() else None


def _step(ctx: LlamaContext, pos: int, token: int) -> np.ndarray:
    """One plain generation step: the logits after `token` at `pos` (on the tuned thread count)."""
    tuner = ctx.tuner
    if tuner is None:
        return ctx.decode_block(pos, [token])[0]
    start = time.perf_counter()
    ctx.set_threads(tuner.next_threads(start))
    threads = ctx.n_threads
    logits = ctx.decode_block(pos, [token])[0]
    end = time.perf_counter()
    tuner.record(threads, end - start, end)
    return logits


def forward_logits(
    ctx: LlamaContext, before: Sequence[int], audio: np.ndarray, after: Sequence[int], forced: Sequence[int]
) -> np.ndarray:
    """Logits at every step of a forced continuation, one token at a time (for equivalence tests and scoring)."""
    ctx.ensure_context(len(before) + len(audio) + len(after) + len(forced) + 1)
    pos, _ = ctx.prefill(before, audio, after)
    rows = [ctx.last_logits().copy()]
    for token in forced:
        rows.append(ctx.decode_block(pos, [int(token)])[0])
        pos += 1
    return np.stack(rows)


def _is_loop(tokens: list[int], window: int, distinct: int) -> bool:
    return len(tokens) >= window and len(set(tokens[-window:])) <= distinct


def _cut_loop(tokens: list[int], window: int) -> list[int]:
    """Drop the repeating tail: keep tokens up to the first occurrence of the looping pattern."""
    tail = set(tokens[-window:])
    cut = len(tokens)
    while cut > 0 and tokens[cut - 1] in tail:
        cut -= 1
    # Keep one pass of the repeated material: it is usually a real word said once.
    return tokens[: cut + len(tail)]
