"""A CT-Transformer's sizes and the tensors they give, without torch (`modules` builds the graph from them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..sanm_dims import SanmDims


@dataclass(frozen=True)
class PuncDims(SanmDims):
    """Sizes of a CT-Transformer (config.yaml's model_conf and encoder_conf, cross-checked with model.pt)."""

    input_size: int = 256  # embed_unit
    encoder_dim: int = 256  # att_unit
    encoder_heads: int = 8
    encoder_ffn: int = 1024
    encoder_blocks: int = 4
    tp_blocks: int = 0
    norm_eps: float = 1e-12
    vocab: int = 272727
    classes: int = 6


def expected_shapes(d: PuncDims) -> dict[str, tuple[int, ...]]:
    """Every tensor of `modules.CtTransformer(d)`'s state dict and its shape, in its order."""
    shapes: dict[str, tuple[int, ...]] = {"embed.weight": (d.vocab, d.input_size)}
    dim, ffn = d.encoder_dim, d.encoder_ffn
    layers = [("encoders0.0", d.input_size)] + [(f"encoders.{i}", dim) for i in range(d.encoder_blocks - 1)]
    layers += [(f"tp_encoders.{i}", dim) for i in range(d.tp_blocks)]
    for name, in_dim in layers:
        p = f"encoder.{name}."
        shapes.update(
            {
                p + "self_attn.linear_q_k_v.weight": (3 * dim, in_dim),
                p + "self_attn.linear_q_k_v.bias": (3 * dim,),
                p + "self_attn.linear_out.weight": (dim, dim),
                p + "self_attn.linear_out.bias": (dim,),
                p + "self_attn.fsmn_block.weight": (dim, 1, d.kernel_size),
                p + "feed_forward.w_1.weight": (ffn, dim),
                p + "feed_forward.w_1.bias": (ffn,),
                p + "feed_forward.w_2.weight": (dim, ffn),
                p + "feed_forward.w_2.bias": (dim,),
                p + "norm1.weight": (in_dim,),
                p + "norm1.bias": (in_dim,),
                p + "norm2.weight": (dim,),
                p + "norm2.bias": (dim,),
            }
        )
    norms = ["after_norm"] + (["tp_norm"] if d.tp_blocks else [])
    for norm in norms:
        shapes.update({f"encoder.{norm}.weight": (dim,), f"encoder.{norm}.bias": (dim,)})
    shapes.update({"decoder.weight": (d.classes, dim), "decoder.bias": (d.classes,)})
    return shapes
