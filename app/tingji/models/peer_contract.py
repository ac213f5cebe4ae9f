"""The contract Tingji's engine relies on, checked against what a peer release's graphs declare.

Several generations of peer exports exist and not all of them fit the engine
(some encoders take raw audio instead of LFR features): a graph that differs is
refused with a message naming the file, what Tingji needs and what the graph
has. What passes is returned as the manifest's description of the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import Message, ModelError
from . import messages
from .peer_graph import GraphIO

FEATURE_DIM = 560  # 80 mel bins x 7 stacked frames (LFR)
_FLOATS = ("float", "float16")
_INTS = ("int64", "int32")


def _describe(specs: Any) -> str:
    return ", ".join(f"{s.name} {s.dtype}{list(s.shape)}" for s in specs) or "none"


def _static(dim: int | str | None) -> int | None:
    return dim if isinstance(dim, int) and dim > 0 else None


def check_encoder(path: Path, io: GraphIO) -> dict[str, Any]:
    """The encoder contract: lfr_feat [B|1, T, 560] + mask [B|1, T] in; enc_output, adaptor_output out."""

    def bad(what: Message, **fields: object) -> ModelError:
        return ModelError(
            messages.ENCODER_CONTRACT,
            name=path.name,
            problem=ModelError(what, **fields),
            dim=FEATURE_DIM,
            inputs=_describe(io.inputs.values()),
            outputs=_describe(io.outputs),
        )

    feat, mask = io.inputs.get("lfr_feat"), io.inputs.get("mask")
    if feat is None or mask is None:
        raise bad(messages.ENCODER_NO_FEATURES)
    if set(io.inputs) != {"lfr_feat", "mask"}:
        raise bad(messages.ENCODER_EXTRA_INPUTS, names=sorted(set(io.inputs) - {"lfr_feat", "mask"}))
    if feat.dtype not in _FLOATS or mask.dtype not in _FLOATS:
        raise bad(messages.ENCODER_INPUT_TYPES)
    if len(feat.shape) != 3 or feat.shape[2] != FEATURE_DIM or _static(feat.shape[0]) not in (None, 1):
        raise bad(messages.FEATURES_SHAPE, shape=list(feat.shape))
    if len(mask.shape) != 2:
        raise bad(messages.MASK_SHAPE, shape=list(mask.shape))
    if [o.name for o in io.outputs] != ["enc_output", "adaptor_output"]:
        raise bad(messages.ENCODER_OUTPUTS)
    enc, adaptor = io.outputs
    enc_dim, llm_dim = (
        _static(enc.shape[-1]) if enc.shape else None,
        _static(adaptor.shape[-1]) if adaptor.shape else None,
    )
    if len(enc.shape) != 3 or len(adaptor.shape) != 3 or enc_dim is None or llm_dim is None:
        raise bad(messages.ENCODER_WIDTHS)
    return {
        "input_size": FEATURE_DIM,
        "encoder_dim": enc_dim,
        "llm_dim": llm_dim,
        "inputs": ("lfr_feat", "mask"),
        "outputs": ("enc_output", "adaptor_output"),
        "input_dtype": "fp16" if feat.dtype == "float16" else "fp32",
        "dim_names": _dim_names(feat.shape),
    }


def _dim_names(shape: tuple[int | str | None, ...]) -> tuple[str | None, ...]:
    """Names of the symbolic batch and frame dims (the engine pins them on DirectML)."""
    return tuple(d if isinstance(d, str) else None for d in shape[:2])


def check_ctc(path: Path, io: GraphIO, enc_dim: int) -> dict[str, Any]:
    """The CTC contract: enc_output [B, T, enc_dim] (+ optional mask) in; top-k log-probs and ids out."""

    def bad(what: Message, **fields: object) -> ModelError:
        return ModelError(
            messages.CTC_CONTRACT,
            name=path.name,
            problem=ModelError(what, **fields),
            dim=enc_dim,
            inputs=_describe(io.inputs.values()),
            outputs=_describe(io.outputs),
        )

    enc = io.inputs.get("enc_output")
    if enc is None or not set(io.inputs) <= {"enc_output", "mask"}:
        raise bad(messages.CTC_INPUT)
    if enc.dtype not in _FLOATS or len(enc.shape) != 3 or _static(enc.shape[2]) not in (None, enc_dim):
        raise bad(messages.CTC_INPUT_TYPE, type=f"{enc.dtype}{list(enc.shape)}")
    if "mask" in io.inputs and (io.inputs["mask"].dtype not in _FLOATS or len(io.inputs["mask"].shape) != 2):
        raise bad(messages.CTC_MASK)
    if len(io.outputs) != 2 or io.outputs[0].dtype not in _FLOATS or io.outputs[1].dtype not in _INTS:
        raise bad(messages.CTC_OUTPUTS)
    if any(len(o.shape) != 3 for o in io.outputs):
        raise bad(messages.CTC_OUTPUT_SHAPES)
    return {
        "top_k": _static(io.outputs[1].shape[2]),
        "mask": "mask" in io.inputs,
        "input_dtype": "fp16" if enc.dtype == "float16" else "fp32",
        "dim_names": _dim_names(enc.shape),
    }
