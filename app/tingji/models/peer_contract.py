"""The contract Tingji's engine relies on, checked against what a peer release's graphs declare.

Several generations of peer exports exist and not all of them fit the engine
(some encoders take raw audio instead of LFR features): a graph that differs is
refused with a message naming the file, what Tingji needs and what the graph
has. What passes is returned as the manifest's description of the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..engine.errors import ModelError
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
    def bad(what: str) -> ModelError:
        return ModelError(f"{path.name}: {what}; Tingji needs inputs lfr_feat [batch, frames, {FEATURE_DIM}] and "
                          "mask [batch, frames], outputs enc_output and adaptor_output "
                          f"(this graph: inputs {_describe(io.inputs.values())}; outputs {_describe(io.outputs)})")

    feat, mask = io.inputs.get("lfr_feat"), io.inputs.get("mask")
    if feat is None or mask is None:
        raise bad("the encoder does not take LFR features and a mask")
    if set(io.inputs) != {"lfr_feat", "mask"}:
        raise bad(f"unexpected encoder inputs {sorted(set(io.inputs) - {'lfr_feat', 'mask'})}")
    if feat.dtype not in _FLOATS or mask.dtype not in _FLOATS:
        raise bad("lfr_feat and mask must be float or float16")
    if len(feat.shape) != 3 or feat.shape[2] != FEATURE_DIM or _static(feat.shape[0]) not in (None, 1):
        raise bad(f"lfr_feat has shape {list(feat.shape)}")
    if len(mask.shape) != 2:
        raise bad(f"mask has shape {list(mask.shape)}")
    if [o.name for o in io.outputs] != ["enc_output", "adaptor_output"]:
        raise bad("the outputs are not enc_output, adaptor_output (in that order)")
    enc, adaptor = io.outputs
    enc_dim, llm_dim = _static(enc.shape[-1]) if enc.shape else None, \
        _static(adaptor.shape[-1]) if adaptor.shape else None
    if len(enc.shape) != 3 or len(adaptor.shape) != 3 or enc_dim is None or llm_dim is None:
        raise bad("the output widths are not fixed in the graph")
    return {
        "input_size": FEATURE_DIM, "encoder_dim": enc_dim, "llm_dim": llm_dim,
        "inputs": ["lfr_feat", "mask"], "outputs": ["enc_output", "adaptor_output"],
        "input_dtype": "fp16" if feat.dtype == "float16" else "fp32",
        "dim_names": _dim_names(feat.shape),
    }


def _dim_names(shape: tuple[int | str | None, ...]) -> list[str | None]:
    """Names of the symbolic batch and frame dims (the engine pins them on DirectML)."""
    return [d if isinstance(d, str) else None for d in shape[:2]]


def check_ctc(path: Path, io: GraphIO, enc_dim: int) -> dict[str, Any]:
    """The CTC contract: enc_output [B, T, enc_dim] (+ optional mask) in; top-k log-probs and ids out."""
    def bad(what: str) -> ModelError:
        return ModelError(f"{path.name}: {what}; Tingji needs input enc_output [batch, frames, {enc_dim}] "
                          "(and optionally mask), outputs top-k log-probs and top-k ids "
                          f"(this graph: inputs {_describe(io.inputs.values())}; outputs {_describe(io.outputs)})")

    enc = io.inputs.get("enc_output")
    if enc is None or not set(io.inputs) <= {"enc_output", "mask"}:
        raise bad("the CTC head does not take enc_output")
    if enc.dtype not in _FLOATS or len(enc.shape) != 3 or _static(enc.shape[2]) not in (None, enc_dim):
        raise bad(f"enc_output is {enc.dtype}{list(enc.shape)}")
    if "mask" in io.inputs and (io.inputs["mask"].dtype not in _FLOATS or len(io.inputs["mask"].shape) != 2):
        raise bad("the mask is not a float [batch, frames] input")
    if len(io.outputs) != 2 or io.outputs[0].dtype not in _FLOATS or io.outputs[1].dtype not in _INTS:
        raise bad("the outputs are not (top-k log-probs, top-k ids)")
    if any(len(o.shape) != 3 for o in io.outputs):
        raise bad("the outputs are not [batch, frames, k]")
    return {"top_k": _static(io.outputs[1].shape[2]), "mask": "mask" in io.inputs,
            "input_dtype": "fp16" if enc.dtype == "float16" else "fp32", "dim_names": _dim_names(enc.shape)}
