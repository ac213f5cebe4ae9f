"""PyTorch modules to ONNX graphs: the torch exporter, as every family's graphs are made where torch is.

torch.export-based ONNX export at opset 18 (no Python control flow leaks into
the graph) with named symbolic dimensions (so a session can pin them for
DirectML). Only `templates.make_graph`'s `build` functions call it: without
torch the same graphs come from templates.
"""

from __future__ import annotations

import logging
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
import torch

from .layers import HalfPrecision
from .onnx_tools import BATCH_FRAMES, OPSET, plain_reshapes, strip_debug_metadata

_DIM_MAX = {"batch": 64}


def export_graph(
    model: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    inputs: list[str],
    outputs: list[str],
    dynamic: Sequence[Mapping[int, str]] | None,
) -> onnx.ModelProto:
    """torch.export-based ONNX export (the dynamo path: no Python control flow leaks in).

    `dynamic` gives, per input, which axes are symbolic and their names (one
    name, one dimension: inputs sharing "frames" must agree on it); None
    exports a fully static graph at the example's shapes. Output axes 0 and 1
    get the names batch/frames where they stayed symbolic.
    """
    dynamic_shapes = None
    if dynamic is not None:
        dims: dict[str, torch.export.Dim] = {}
        for axes in dynamic:
            for name in axes.values():
                if name not in dims:
                    dims[name] = torch.export.Dim(name, min=1, max=_DIM_MAX.get(name, 100_000))
        dynamic_shapes = [{axis: dims[name] for axis, name in axes.items()} for axes in dynamic]
    exporter_log = logging.getLogger("torch.onnx")
    level = exporter_log.level
    exporter_log.setLevel(logging.ERROR)  # "torchvision is not installed" etc. are noise here
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(tmp) / "model.onnx"
        with torch.no_grad():
            program = torch.onnx.export(
                model,
                args,
                dynamo=True,
                opset_version=OPSET,
                input_names=inputs,
                output_names=outputs,
                dynamic_shapes=dynamic_shapes,
                verbose=False,
                optimize=True,
            )
        program.save(str(path))
        proto = onnx.load(str(path), load_external_data=True)
    exporter_log.setLevel(level)
    if dynamic is not None:
        _name_dims(proto, dict(zip(inputs, dynamic)), outputs)
    plain_reshapes(proto)
    return strip_debug_metadata(proto)


def _name_dims(proto: onnx.ModelProto, input_axes: Mapping[str, Mapping[int, str]], outputs: list[str]) -> None:
    """Give the symbolic dims stable names, so sessions can pin them (free dimension overrides)."""
    for value in list(proto.graph.input) + list(proto.graph.output):
        if value.name in input_axes:
            labels = input_axes[value.name]
        elif value.name in outputs:
            labels = BATCH_FRAMES
        else:
            continue
        dims = value.type.tensor_type.shape.dim
        for i, label in labels.items():
            if len(dims) > i and not dims[i].HasField("dim_value"):
                dims[i].dim_param = label


def for_precision(model: torch.nn.Module, precision: str) -> torch.nn.Module:
    """fp16 graphs are exported from half-precision modules: weights in fp16, while the
    modules keep softmax and LayerNorm statistics in fp32 and the graph's I/O stays fp32."""
    return HalfPrecision(model) if precision == "fp16" else model


def frame_examples(dim: int, frames: int | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Example (features, mask) for exporting a graph over frames: fixed, one row of `frames`; else two
    rows of 37 frames, the second padded after 30, so nothing specialises on 1 row or on a full mask.
    A dynamic export names both inputs' axes `BATCH_FRAMES`."""
    if frames is not None:
        return torch.randn(1, frames, dim), torch.ones(1, frames)
    mask = torch.ones(2, 37)
    mask[1, 30:] = 0
    return torch.randn(2, 37, dim), mask


def to_torch(weights: Mapping[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """NumPy weights as torch tensors for `load_state_dict`: float ones as fp32 copies (bf16 and fp16
    widened, as the converters' `.float()` did), others as they are."""
    out = {}
    for name, array in weights.items():
        if np.dtype(array.dtype).kind in "fV":
            out[name] = torch.from_numpy(np.array(array, dtype=np.float32))
        else:
            out[name] = torch.from_numpy(np.array(array))
    return out
