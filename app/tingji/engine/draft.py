"""Drafts for verified decoding: what the LLM is likely to say next, and how much of it to feed at once.

A draft is a guess at the answer in the LLM's own tokens; for Fun-ASR-Nano
it is the window's CTC greedy text (`ctc_text`), which Tingji computes for
timestamps anyway, re-tokenised. `generation._run` feeds the token the LLM
chose plus the next k draft tokens as one block and keeps the prefix the LLM
agrees with; the output is the LLM's greedy text whatever the draft says, so
a draft only changes the speed.

`Drafter` keeps the draft's place and picks k:

- **Place.** Each token the LLM emits is compared with the draft token at
  the draft's place. Equal: the place moves on. Different: the rule
  (`DraftPolicy.realign`) decides. The LLM writes punctuation the CTC text
  lacks (an insertion: the draft keeps its place) and corrects words (a
  substitution: it moves on): `"classify"`; a token in place of one of its
  own kind (punctuation for punctuation; a token with no text for another,
  as benchmarks/draft.py's random substitutes are) is a substitution too.
  `"search"` first looks near the
  place (a few tokens back, `search` ahead) for where the draft's tokens
  end the way the LLM's last tokens do, longest match first, nearest next:
  that finds tokens the CTC text had extra or lacked, and a substitution
  that was an insertion after all. Measured in benchmarks/draft.py
  (realign); the default is the best there.
- **Block size.** Acceptance is estimated per emitted token from decayed
  counts of agreements and differences (every emitted token counts, also in
  plain steps, where comparing costs nothing). The block size maximises the
  expected tokens per block over the block's cost relative to one plain step
  (`BLOCK_COST`, measured by benchmarks/draft.py); plain steps win where no
  block pays (the break-even), and drafting comes back when the draft agrees again.
- **First rows.** Before any token, the draft's first tokens ride in the
  prompt's batch (`propose_first`), as many as make the answer's expected
  cost least: what they add to the batch, then the steps and blocks left
  (`prefill_costs`): a short answer the draft holds needs no block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# Cost of one llama_decode of a block of n tokens (logits at every position), relative to a
# single token, on the CPU: Qwen3-0.6B-shaped q5_k, 2 threads. A token alone streams all the
# weights for one row of work; a block streams them once. llama.cpp's CPU backend carries Tingji's
# patches (tools/windows/llama_patches.py; tools/llama_cpu.py builds them for Linux, the Windows DLLs
# carry them): the tiled K-quant kernel from 4 rows, on its narrow path up to 64 rows, multiplying a
# band's valid columns only, and flash attention's tiled kernel from 8 rows (benchmarks/README.md,
# "blocks of 4-64 rows"). A block's cost steps up with each 16-row band of products (16 -> 17 rows),
# so the table holds both sides of the first step. The median of five runs of `python3
# benchmarks/draft.py --parts blocks --reps 9 --quiet-below 0.3 --no-write` (2026-11-29 20:08-20:11
# UTC, 2-core AVX-512 VNNI EPYC; the large sizes spread 10.6-14.2 steps at 63 rows between runs).
# The longest block is 63: a lever for perfect drafts only.
BLOCK_COST: dict[int, float] = {
    1: 1.0,
    2: 2.09,
    4: 2.86,
    8: 2.96,
    16: 3.89,
    17: 5.2,
    24: 5.61,
    32: 6.15,
    48: 9.14,
    63: 13.42,
}

REALIGN_RULES = ("advance", "keep", "classify", "search")
_SUFFIX = 8  # the most of the LLM's last tokens "search" matches
_BACK = 2  # how far back of the place "search" looks (a token taken for a substitution was an insertion)


@dataclass(frozen=True)
class DraftPolicy:
    """How a `Drafter` estimates acceptance and sizes blocks.

    Args:
        prior: Acceptance assumed before the first token (drafting starts in blocks).
        prior_weight: How many tokens' worth of evidence the prior is.
        decay: Per-token decay of the evidence: ~1 / (1 - decay) recent tokens decide. 0.97 (~33
            tokens): with a quicker one (0.9) one difference drops the estimate under the long blocks'
            break-even, and a 90 % draft went in blocks of 2 (benchmarks/draft.py, "policy": 1.38x
            against 1.57x at 90 %).
        realign: What a difference does to the draft's place: one of `REALIGN_RULES`.
        search: How far ahead the `"search"` rule looks for the LLM's last tokens.
        costs: Relative block costs by block size (see `BLOCK_COST`).
        tie_margin: A block's choice whose top two logits are closer than this is made again from
            one token's logits (`generation`) until the window has measured its own difference
            (`Drafter.tie_margin`): above the largest batch-vs-single logit difference measured on
            any decoder: 0.14-0.19 on a full-size random q5_k one from 4 rows on, where the tiled
            kernel takes a block (benchmarks/draft.py, "exactness"; tests/engine/test_draft.py prints
            the tiny models').
        tie_safety: Once a choice was made again, the margin is this many times the largest
            difference between a block's row and the same position decoded alone seen so far (a
            top-2 margin moves by at most twice a row's largest difference; twice that again for
            rows not seen).
        tie_floor: The least margin: a row decoded bit for bit alike (blocks of up to 4 rows on the
            CPU) says little of another; 0.02 is 10x the trained demo decoder's difference (1.5e-3).
        in_prefill: The first draft tokens ride in the prompt's batch (`best_first_length`), so an
            answer the draft holds whole needs no block of its own; False: the first block follows
            the prompt's (the comparison benchmarks/draft_e2e.py measures).
    """

    prior: float = 0.9
    prior_weight: float = 4.0
    decay: float = 0.97
    realign: str = "search"
    search: int = 4
    costs: tuple[tuple[int, float], ...] = tuple(BLOCK_COST.items())
    tie_margin: float = 0.25
    tie_safety: float = 4.0
    tie_floor: float = 0.02
    in_prefill: bool = True

    def __post_init__(self) -> None:
        if self.realign not in REALIGN_RULES:
            raise ValueError(f"realign must be one of {REALIGN_RULES}, got {self.realign!r}")


def expected_tokens(accept: float, n: int) -> float:
    """Tokens one block of the chosen token + `n` draft tokens yields, at per-token acceptance `accept`."""
    if accept >= 1.0:
        return float(n + 1)
    return 1.0 + accept * (1.0 - accept**n) / (1.0 - accept)


def block_cost(size: int, costs: Sequence[tuple[int, float]] = tuple(BLOCK_COST.items())) -> float:
    """A block of `size` tokens' cost relative to one token, interpolated between measured sizes."""
    sizes, values = zip(*sorted(costs))
    return float(np.interp(size, sizes, values, right=values[-1] * size / sizes[-1]))


def best_draft_length(accept: float, limit: int, policy: DraftPolicy = DraftPolicy()) -> int:
    """How many draft tokens to verify after the chosen token (0: a plain step), at most `limit`.

    Args:
        accept: Estimated probability that a draft token equals the LLM's choice.
        limit: The most draft tokens available (what is left of the draft, of the token budget).
    """
    best_n, best_rate = 0, 1.0  # a plain step: one token for one token's cost
    for size, _ in policy.costs:
        n = min(size - 1, limit)
        if n <= 0:
            continue
        rate = expected_tokens(accept, n) / block_cost(n + 1, policy.costs)
        if rate > best_rate:
            best_n, best_rate = n, rate
    return best_n


def _outcomes(accept: float, n: int) -> np.ndarray:
    """P(the first j of n draft tokens are accepted), j = 0..n, at per-token acceptance `accept`."""
    j = np.arange(n + 1)
    p = accept**j * (1.0 - accept)
    p[n] = accept**n
    return p


def tail_costs(accept: float, limit: int, policy: DraftPolicy = DraftPolicy()) -> np.ndarray:
    """E[m], m = 0..limit: the expected cost, in plain steps, of the last m tokens of an answer whose draft
    holds them, decoded the way `generation` does: a plain step, or a block of the known token and k draft
    tokens (k one of the measured sizes' less one, at most m) that yields its accepted tokens and one more.

    Each step is priced at the cheapest choice in expectation (generation's `best_draft_length` takes the
    best tokens per step, which is the same choice but near an answer's end), so a short tail costs the
    block it really needs, not the long blocks' rate per token.
    """
    steps = sorted({size - 1 for size, _ in policy.costs if size > 1})
    tail = np.zeros(limit + 1)
    for m in range(1, limit + 1):
        best = 1.0 + tail[m - 1]
        for k in {min(k, m) for k in steps}:
            left = np.maximum(m - np.arange(k + 1) - 1, 0)
            best = min(best, block_cost(k + 1, policy.costs) + float(_outcomes(accept, k) @ tail[left]))
        tail[m] = best
    return tail


def prefill_costs(accept: float, limit: int, prompt_rows: int, policy: DraftPolicy = DraftPolicy()) -> np.ndarray:
    """The expected cost, in plain steps, of an answer of `limit` + 1 tokens whose draft holds them, with
    n = 0..limit draft tokens in the prompt's batch: what the n rows add to it, then `tail_costs` of what
    is left (j draft tokens accepted settle j + 1 tokens and leave `limit` - j)."""
    tail = tail_costs(accept, limit, policy)
    base = block_cost(prompt_rows, policy.costs)
    costs = np.empty(limit + 1)
    for n in range(limit + 1):
        added = block_cost(prompt_rows + n, policy.costs) - base if n else 0.0
        costs[n] = added + float(_outcomes(accept, n) @ tail[np.maximum(limit - np.arange(n + 1), 0)])
    return costs


def best_first_length(accept: float, limit: int, prompt_rows: int, policy: DraftPolicy = DraftPolicy()) -> int:
    """How many draft tokens to feed after the prompt in its own batch (`generation`), at most `limit`.

    Rows after a prompt cost what they add to its batch, `block_cost(prompt + n) - block_cost(prompt)`:
    the weights are streamed once for both. The length chosen has the least expected cost for the
    answer (`prefill_costs`): a short answer the draft holds whole goes in the batch whole, where a
    block after it would stream every weight again for a few tokens.

    Args:
        accept: Estimated probability that a draft token equals the LLM's choice.
        limit: The most draft tokens available (what is left of the draft, of the token budget).
        prompt_rows: The rows the prompt's batch decodes (what is not reused from the cache).
    """
    # No longer than the longest measured block: the costs past it are extrapolated.
    limit = min(limit, max(size for size, _ in policy.costs) - 1)
    if limit <= 0:
        return 0
    costs = prefill_costs(accept, limit, prompt_rows, policy)
    return int(np.argmin(costs + 1e-9 * np.arange(limit + 1)))  # the fewest rows among equals


class Drafter:
    """One window's draft: its place, the acceptance seen so far, and what was fed and accepted.

    Args:
        draft: The draft in the LLM's token ids.
        piece: A token id's bytes (`LlamaModel.token_bytes`): tells punctuation from words.
        policy: Estimation and block-size settings.
    """

    def __init__(
        self, draft: Sequence[int], piece: Callable[[int], bytes], policy: DraftPolicy = DraftPolicy()
    ) -> None:
        self.draft = [int(t) for t in draft]
        self.policy = policy
        self._piece = piece
        self._insertion: dict[int, bool] = {}
        self.place = 0  # the draft token expected next
        self._said: list[int] = []  # the LLM's last tokens (what "search" matches the draft against)
        self._agree = policy.prior * policy.prior_weight
        self._differ = (1.0 - policy.prior) * policy.prior_weight
        self.drafted = 0
        self.accepted = 0
        self.blocks: list[int] = []
        self.in_prefill = 0  # draft tokens fed in the prompt's batch (`propose_first`)
        self.differences = 0
        self.ties = 0  # block choices made again from one token's logits (counted by `generation`)
        self._seen: dict[int, float] = {}  # block rows -> largest |block row - the row decoded alone|

    @property
    def acceptance(self) -> float:
        """The current estimate of the probability that the next draft token is accepted."""
        return self._agree / (self._agree + self._differ)

    def _count(self, agreed: int, differed: int) -> None:
        d = self.policy.decay
        self._agree = self._agree * d**agreed + (1 - d**agreed) / (1 - d)
        self._differ *= d**agreed
        if differed:
            self._agree *= d
            self._differ = self._differ * d + 1

    def propose(self, token: int, room: int) -> list[int]:
        """The LLM chose `token`: move the draft's place past it and return the draft tokens to verify after it.

        Args:
            token: The LLM's greedy choice, about to be fed.
            room: The most tokens the answer may still add after `token`.
        """
        self._said = [*self._said[-(_SUFFIX - 1) :], token]
        if self.place < len(self.draft):
            if self.draft[self.place] == token:
                self._count(1, 0)
                self.place += 1
            else:
                self._count(0, 1)
                self.differences += 1
                self.place = self._realign(token)
        n = best_draft_length(self.acceptance, min(room, len(self.draft) - self.place), self.policy)
        if n <= 0:
            return []
        self.drafted += n
        self.blocks.append(n + 1)
        return self.draft[self.place : self.place + n]

    def propose_first(self, room: int, prompt_rows: int) -> list[int]:
        """Before any token: the draft's first tokens to feed after the prompt, in its batch (may be none).

        The first is the draft's guess at the LLM's first choice, so the rows verify from it on;
        `record` then takes the agreed ones, as after a block.

        Args:
            room: The most draft tokens the answer may hold before its last token.
            prompt_rows: The rows the prompt's batch decodes (`best_first_length`).
        """
        n = best_first_length(self.acceptance, min(room, len(self.draft) - self.place), prompt_rows, self.policy)
        self.drafted += n
        self.in_prefill = n
        return self.draft[self.place : self.place + n]

    def tie_margin(self, rows: int) -> float:
        """The top-2 margin under which a choice in a block is made again from one token's logits.

        The policy's `tie_margin` until a block at least as long has been checked against one token's
        logits (`observe`), then `tie_safety` x the largest difference seen there: a trained
        decoder's rows differ far less than the random one's the default was measured on.

        Args:
            rows: The block's row count.
        """
        seen = [d for n, d in self._seen.items() if n >= rows]
        if not seen:
            return self.policy.tie_margin
        return max(self.policy.tie_floor, self.policy.tie_safety * max(seen))

    def observe(self, rows: int, difference: float) -> None:
        """A position of a block, decoded alone, gave logits that differ from the block's row.

        Args:
            rows: The block's row count.
            difference: The largest |logit| difference between its row and the row decoded alone.
        """
        self._seen[rows] = max(self._seen.get(rows, 0.0), difference)

    def record(self, agreed: int) -> None:
        """The LLM agreed with the first `agreed` tokens of the last proposal."""
        self.accepted += agreed
        if agreed:
            self._said = [*self._said, *self.draft[self.place : self.place + agreed]][-_SUFFIX:]
            self._count(agreed, 0)
        self.place += agreed

    def _realign(self, token: int) -> int:
        """The draft's place after the LLM emitted `token` where the draft expected another."""
        rule, here = self.policy.realign, self.place
        if rule == "advance":
            return here + 1
        if rule == "keep":
            return here
        if rule == "search":
            found = self._search(here)
            if found is not None:
                return found
        if self.is_insertion(token) and not (here < len(self.draft) and self.is_insertion(self.draft[here])):
            return here  # punctuation where the draft has a word: inserted
        return here + 1  # a token in place of one of its own kind: substituted

    def _search(self, here: int) -> int | None:
        """The place near `here` after which the draft ends as the LLM's last tokens do (None: nowhere)."""
        best, best_len = None, 0
        lo, hi = max(1, here - _BACK), min(len(self.draft), here + 1 + self.policy.search)
        for place in sorted(range(lo, hi + 1), key=lambda p: abs(p - here - 1)):  # nearest first
            n = 0
            while n < min(len(self._said), place) and self.draft[place - 1 - n] == self._said[-1 - n]:
                n += 1
            if n > best_len:
                best, best_len = place, n
        return best

    def is_insertion(self, token: int) -> bool:
        """True for a token the CTC text never holds: punctuation or spacing only."""
        if token not in self._insertion:
            text = self._piece(token).decode("utf-8", "replace")
            self._insertion[token] = not any(ch.isalnum() for ch in text)
        return self._insertion[token]


def ctc_text(best: np.ndarray, blank: int, pieces: Sequence[bytes], text_tokens: int | None = None) -> str:
    """The CTC head's greedy text: the best path with repeats collapsed, blanks and tags dropped.

    Args:
        best: The best id per frame.
        blank: The blank id.
        pieces: Each id's bytes (the model's tokens.txt).
        text_tokens: Ids at or above this are tags, not text (None: every id is text).
    """
    out = bytearray()
    prev = -1
    for token in np.asarray(best).tolist():
        if token != prev and token != blank and 0 <= token < len(pieces):
            if text_tokens is None or token < text_tokens:
                out += pieces[token]
        prev = token
    return out.decode("utf-8", "ignore").strip()
