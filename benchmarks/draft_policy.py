"""The drafting policy on paper: speedup by forced acceptance from `draft.BLOCK_COST`, no model run.

`simulate` replays `generation._run`'s block loop with a verifier that knows
the plain tokens: the real `Drafter` proposes, a block of n rows costs
`draft.block_cost(n)` single steps, a near tie at a position costs one
single step more (the tie guard re-decodes it alone, aside, and the block
goes on: a block's choice and one token's agree). What it gives is what
the policy would reach if the block costs held exactly and Python cost
nothing; benchmarks/draft.py's "policy" part prints it beside the measured
curve, so that a shortfall can be told apart as policy or machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tingji.engine.draft import DraftPolicy


def simulate(plain: list[int], draft: list[int], ties: frozenset[int], policy: DraftPolicy) -> float:
    """Plain steps / drafted cost for one run (`ties`: positions of `plain` whose choice is a near tie)."""
    from tingji.engine.draft import Drafter, block_cost

    drafter = Drafter(draft, lambda _: b"x", policy)
    n, cost = len(plain), 0.0
    out = [plain[0]]
    while len(out) < n:
        proposal = drafter.propose(out[-1], n - len(out))
        base = len(out)
        if not proposal:
            cost += 1.0
            out.append(plain[base])
            continue
        cost += block_cost(len(proposal) + 1, policy.costs)
        agreed = 0
        while agreed < len(proposal) and proposal[agreed] == plain[base + agreed]:
            agreed += 1
        checked = sum(base + r in ties for r in range(agreed + 1))  # each re-decoded alone, aside
        drafter.ties, cost = drafter.ties + checked, cost + checked
        drafter.record(agreed)
        out += plain[base : base + agreed]
        if len(out) < n:
            out.append(plain[len(out)])
    return n / cost


def policy_curve(
    acceptance: tuple[int, ...], tie_shares: tuple[float, ...], tokens: int, corrupt: Callable[..., list[int]]
) -> dict[str, Any]:
    """Mean simulated speedup per forced acceptance (%) and near-tie share, over 8 random runs each.

    Args:
        acceptance: Forced acceptances in percent.
        tie_shares: Shares of positions that are near ties.
        tokens: Tokens per run.
        corrupt: benchmarks/draft.py's `corrupt` (the same corruption as the measured curve).
    """
    from tingji.engine.draft import DraftPolicy

    out: dict[str, dict[str, float]] = {}
    for share in tie_shares:
        row = {}
        for a in acceptance:
            runs = []
            for seed in range(8):
                rng = np.random.default_rng(seed)
                plain = rng.integers(0, 100_000, tokens).tolist()
                ties = frozenset(np.flatnonzero(rng.random(tokens) < share).tolist())
                draft = corrupt(plain, 1 - a / 100, 151_936, seed=100 * a + seed)
                runs.append(simulate(plain, draft, ties, DraftPolicy()))
            row[str(a)] = round(float(np.mean(runs)), 2)
        out[f"near_ties_{share:.3f}"] = row
    return out
