"""The draft benchmark's decoder: Qwen3-0.6B's shapes with weights whose greedy choices are decisive.

Random weights make a poor verifier to time: every one of the 28 random layers
writes far more into the residual stream than the token's embedding holds, the
final state is a random vector, and its logits over 151,936 tokens are a
Gaussian cloud whose top two are a hair apart (on the plain random model 72 of
96 positions had a top-2 margin under the tie guard's 0.25, and a block's
logits differ from one token's by up to 0.14 from 8 rows on, so a block's
choice there is a coin toss). A trained model's choice stands out. Scaling the
output (the final norm) does not help: logits are linear in it, so the
margins and the block-vs-single difference grow together.

llama.cpp's CPU kernels take the same time whatever the weights' values (dense
products, same shapes, same quantisation types), so this model keeps every
tensor of the random one and changes values only:

- Token embeddings have unit norm (tied, so they are also the output rows).
- Every layer's attention and MLP read their input through norms of weight
  `QUIET` (the last layer's MLP excepted): they still run in full, but write
  little, so the residual stream still holds the token's embedding when it
  reaches the last layer, and the block-vs-single difference they make stays
  small.
- The last layer's MLP is a key-value memory over `intermediate_size` tokens
  (every token of the benchmark's tokenizer, then random others): unit j's
  gate and up rows point at token k_j's embedding, its down column at the
  embeddings of the next token (a random cycle through the keys, so a greedy
  run never repeats within 3,072 tokens) and of a decoy at a ratio r_j < 1.
- The final norm scales the logits; the decoy's ratio is set per key so that
  the top-2 margins follow `MARGIN_MEDIAN` / `MARGIN_SPREAD` (below).

The margins' target is the trained demo model's (tests/fixtures/models/demo, its
greedy tokens on test_demo_model's 40 held-out clips, benchmarks/draft.py's
"demo" part): a median top-2 margin of 4.8 logits, and 3.3 % of positions (6
of 182) under the tie guard's 0.25. A log-normal with that median and a spread
that puts 3 % under 0.25 gives the ratios; benchmarks/draft.py prints the
margins the built model gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

VERSION = 2  # bump when the weights change: the cached GGUFs are named after it
QUIET = 0.002  # norm weight of the inputs of every layer but the memory (see above)
MARGIN_MEDIAN = 4.8  # logits: the demo model's median
MARGIN_SPREAD = 1.57  # sigma of log(margin): 3 % of margins under 0.25 (the demo model: 3.3 %)
_LOGIT_TOP = 16.0  # the winner's logit with no decoy; the background's best is ~2.5
_GATE, _UP = 0.25, 1.0 / 16  # key sharpness: the matching unit saturates, the others stay near 0


def decisive_weights(cfg: dict[str, Any], seed: int, text_tokens: int) -> dict[str, np.ndarray]:
    """Qwen3 weights by transformers name (fp16 matrices, fp32 norms) with decisive greedy choices.

    Args:
        cfg: The model's config (Qwen3-0.6B's sizes for the benchmark).
        seed: Random seed.
        text_tokens: The tokenizer's own ids (0 .. text_tokens - 1): all of them are keys, so any
            prompt's last token starts the cycle.
    """
    rng = np.random.default_rng(seed)
    h, i, hd = cfg["hidden_size"], cfg["intermediate_size"], cfg["head_dim"]
    nq, nkv, v, n_layers = (
        cfg["num_attention_heads"],
        cfg["num_key_value_heads"],
        cfg["vocab_size"],
        cfg["num_hidden_layers"],
    )

    def lin(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols), dtype=np.float32) / cols**0.5).astype(np.float16)

    def norm(n: int, scale: float = 1.0) -> np.ndarray:
        return (scale * (1.0 + 0.1 * rng.standard_normal(n, dtype=np.float32))).astype(np.float32)

    emb = rng.standard_normal((v, h), dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    own = min(text_tokens, i)  # (a small plumbing model has fewer units than tokens)
    keys = np.concatenate([np.arange(own), rng.choice(np.arange(own, v), i - own, replace=False)])
    order = rng.permutation(i)  # one cycle through the keys: key order[n] is followed by order[n + 1]
    following = np.empty(i, np.int64)
    following[order] = keys[np.roll(order, -1)]
    decoy = following.copy()
    while (clash := (decoy == following) | (decoy == keys)).any():  # a decoy is neither the key nor its answer
        decoy[clash] = keys[rng.integers(0, i, int(clash.sum()))]
    ratio = _decoy_ratio(rng, i)
    values = emb[following] + ratio[:, None] * emb[decoy]
    values /= np.linalg.norm(values, axis=1, keepdims=True)
    # The normed input is sqrt(h) = 32 x the unit embedding, so the matching unit's product is
    # silu(32 * _GATE) * (32 * _UP) ~ 16 and its value outweighs the token's own embedding 16 to 1.
    down = values.T.copy()

    # The final norm makes the logits _LOGIT_TOP x the cosine of the state and each token's embedding.
    final = np.full(h, _LOGIT_TOP / h**0.5, np.float32)
    out = {"model.embed_tokens.weight": emb.astype(np.float16), "model.norm.weight": final}
    for n in range(n_layers):
        p = f"model.layers.{n}."
        last = n == n_layers - 1
        out |= {
            p + "self_attn.q_proj.weight": lin(nq * hd, h),
            p + "self_attn.k_proj.weight": lin(nkv * hd, h),
            p + "self_attn.v_proj.weight": lin(nkv * hd, h),
            p + "self_attn.o_proj.weight": lin(h, nq * hd),
            p + "self_attn.q_norm.weight": norm(hd),
            p + "self_attn.k_norm.weight": norm(hd),
            p + "mlp.gate_proj.weight": (_GATE * emb[keys]).astype(np.float16) if last else lin(i, h),
            p + "mlp.up_proj.weight": (_UP * emb[keys]).astype(np.float16) if last else lin(i, h),
            p + "mlp.down_proj.weight": down.astype(np.float16) if last else lin(h, i),
            p + "input_layernorm.weight": norm(h, QUIET),
            p + "post_attention_layernorm.weight": np.ones(h, np.float32) if last else norm(h, QUIET),
        }
    return out


def _decoy_ratio(rng: np.random.Generator, n: int) -> np.ndarray:
    """Per key, the decoy's weight r in [0, 1) that gives a top-2 margin drawn from the target.

    With unit embeddings the winner's logit is top / sqrt(1 + r^2) and the decoy's top * r / sqrt(1 + r^2),
    so the margin is top * (1 - r) / sqrt(1 + r^2), falling in r; the background's best (~2.5) caps it.
    """
    margin = np.exp(np.log(MARGIN_MEDIAN) + MARGIN_SPREAD * rng.standard_normal(n))
    r = np.linspace(0.0, 1.0, 4001)
    m = _LOGIT_TOP * (1 - r) / np.sqrt(1 + r**2)  # decreasing in r
    return np.interp(np.minimum(margin, m[0]), m[::-1], r[::-1])
