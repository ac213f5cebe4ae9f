"""A Paraformer's sizes and the tensors they give, without torch (`modules` builds the graphs from them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..sanm_dims import SanmDims

FUNASR_NORM_EPS = 1e-12  # funasr.models.transformer.layer_norm.LayerNorm


@dataclass(frozen=True)
class ParaformerDims(SanmDims):
    """Sizes of a Paraformer / BiCifParaformer (read from a checkpoint's config.yaml and tensors)."""

    tp_blocks: int = 0
    norm_eps: float = FUNASR_NORM_EPS
    vocab: int = 8404
    decoder_blocks: int = 16  # att_layer_num: blocks with FSMN + cross-attention
    decoder_heads: int = 4
    decoder_ffn: int = 2048
    decoder_kernel: int = 11
    decoder_sanm_shift: int = 0
    predictor_left: int = 1  # l_order
    predictor_right: int = 1  # r_order
    smooth_factor: float = 1.0
    noise_threshold: float = 0.0
    timestamp_head: bool = False  # CifPredictorV3's upsample + BLSTM head (BiCifParaformer)
    upsample_times: int = 3
    smooth_factor2: float = 0.25
    noise_threshold2: float = 0.01


def _linear(name: str, rows: int, cols: int, bias: bool = True) -> dict[str, tuple[int, ...]]:
    return {f"{name}.weight": (rows, cols), **({f"{name}.bias": (rows,)} if bias else {})}


def _norm(name: str, dim: int) -> dict[str, tuple[int, ...]]:
    return {f"{name}.weight": (dim,), f"{name}.bias": (dim,)}


def expected_shapes(d: ParaformerDims) -> dict[str, tuple[int, ...]]:
    """Every tensor of `modules.Paraformer(d)`'s state dict and its shape, in its order."""
    dim = d.encoder_dim
    shapes: dict[str, tuple[int, ...]] = {}
    layers = [("encoders0.0", d.input_size)] + [(f"encoders.{i}", dim) for i in range(d.encoder_blocks - 1)]
    layers += [(f"tp_encoders.{i}", dim) for i in range(d.tp_blocks)]
    for name, in_dim in layers:
        p = f"encoder.{name}."
        shapes |= _linear(p + "self_attn.linear_q_k_v", 3 * dim, in_dim)
        shapes |= _linear(p + "self_attn.linear_out", dim, dim)
        shapes[p + "self_attn.fsmn_block.weight"] = (dim, 1, d.kernel_size)
        shapes |= _linear(p + "feed_forward.w_1", d.encoder_ffn, dim)
        shapes |= _linear(p + "feed_forward.w_2", dim, d.encoder_ffn)
        shapes |= _norm(p + "norm1", in_dim) | _norm(p + "norm2", dim)
    shapes |= _norm("encoder.after_norm", dim)
    if d.tp_blocks:
        shapes |= _norm("encoder.tp_norm", dim)

    kernel = d.predictor_left + d.predictor_right + 1
    shapes |= {"predictor.cif_conv1d.weight": (dim, dim, kernel), "predictor.cif_conv1d.bias": (dim,)}
    shapes |= _linear("predictor.cif_output", 1, dim)
    if d.timestamp_head:
        shapes |= {"predictor.upsample_cnn.weight": (dim, dim, d.upsample_times), "predictor.upsample_cnn.bias": (dim,)}
        for suffix in ("", "_reverse"):
            shapes |= {
                f"predictor.blstm.weight_ih_l0{suffix}": (4 * dim, dim),
                f"predictor.blstm.weight_hh_l0{suffix}": (4 * dim, dim),
                f"predictor.blstm.bias_ih_l0{suffix}": (4 * dim,),
                f"predictor.blstm.bias_hh_l0{suffix}": (4 * dim,),
            }
        shapes |= _linear("predictor.cif_output2", 1, 2 * dim)

    shapes["decoder.embed.0.weight"] = (d.vocab, dim)
    blocks = [(f"decoders.{i}", True) for i in range(d.decoder_blocks)] + [("decoders3.0", False)]
    for name, full in blocks:
        p = f"decoder.{name}."
        shapes |= _linear(p + "feed_forward.w_1", d.decoder_ffn, dim)
        shapes |= _linear(p + "feed_forward.w_2", dim, d.decoder_ffn, bias=False)
        shapes |= _norm(p + "feed_forward.norm", d.decoder_ffn) | _norm(p + "norm1", dim)
        if full:
            shapes[p + "self_attn.fsmn_block.weight"] = (dim, 1, d.decoder_kernel)
            shapes |= _linear(p + "src_attn.linear_q", dim, dim)
            shapes |= _linear(p + "src_attn.linear_k_v", 2 * dim, dim)
            shapes |= _linear(p + "src_attn.linear_out", dim, dim)
            shapes |= _norm(p + "norm2", dim) | _norm(p + "norm3", dim)
    shapes |= _norm("decoder.after_norm", dim)
    shapes |= _linear("decoder.output_layer", d.vocab, dim)
    return shapes
