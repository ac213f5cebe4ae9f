"""Int8 graph templates: ONNX Runtime's quantised graph, its weights made without the fp32 graph.

An int8 model's graphs are the fp32 exports quantised by `onnx_tools.to_int8` (ONNX Runtime's
dynamic quantiser). Filling the fp32 template and quantising it would hold the fp32 graph and the
quantiser's copies of it at once (~6 GB for Fun-ASR-Nano's encoder and its fixed twin), and take
most of a conversion's time. So the int8 graph is a template of its own, recorded when the app is
built: `to_int8` runs on the fp32 template filled with probe weights, and each initializer of its
result is traced to

- the fp32 template's recipe, where the quantiser kept the tensor as it was (biases, norms);
- a part of ONNX Runtime's quantisation of a recipe's values (`template_recipes.int8_weight`), for
  `<weight>_quantized`, `<weight>_scale` and `<weight>_zero_point`;
- else a constant, which must come out the same from every probe.

Filling it then reads each weight once, quantises it and keeps only the int8 bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from ..errors import ModelError
from . import messages
from .template_recipes import PROBE_SEEDS, Template, _skeleton, apply, probe

Weights = Mapping[str, np.ndarray]
# The quantiser's initializer names: `<weight><suffix>` -> the part of `int8_weight`.
PARTS = {"_quantized": "quantized", "_scale": "scale", "_zero_point": "zero_point"}
STORAGE = ("float_data", "int32_data")


def record_int8(
    family: str,
    role: str,
    fp32: Template,
    weights: Weights,
    ops: Sequence[str],
    fill: Callable[[Template, Weights], onnx.ModelProto],
    probes: int = 2,
) -> Template:
    """The int8 template of `fp32`'s graph, as `onnx_tools.to_int8(graph, ops)` quantises it.

    Args:
        family, role: The graph's, for errors.
        fp32: The fp32 graph's template.
        weights: The checkpoint's tensors the template is filled from (only their shapes matter:
            the graphs are made from probe copies).
        ops: The op types whose weights become int8.
        fill: `templates.fill`.
        probes: How many probe copies to quantise; with two, anything not traced must come out alike.
    """
    from .onnx_tools import to_int8

    copies = [probe(weights, seed) for seed in PROBE_SEEDS[:probes]]
    graphs = [to_int8(fill(fp32, copy), tuple(ops)) for copy in copies]
    if len(graphs) > 1 and _skeleton(graphs[0]) != _skeleton(graphs[1]):
        raise ModelError(messages.TEMPLATE_UNSTABLE, family=family, role=role, what="the int8 graph's structure")
    template = graphs[0]
    others = [{t.name: t for t in g.graph.initializer} for g in graphs]
    recipes: dict[str, dict[str, Any]] = {}
    for tensor in template.graph.initializer:
        recipe = _trace(tensor, fp32.recipes)
        for copy, initializers in zip(copies, others):
            made = initializers[tensor.name]
            value = numpy_helper.to_array(made)
            if recipe is None:
                same = numpy_helper.to_array(tensor)
                if value.shape != same.shape or value.tobytes() != same.tobytes():
                    raise ModelError(messages.TEMPLATE_UNSTABLE, family=family, role=role, what=tensor.name)
            elif apply(recipe, copy).tobytes() != value.tobytes():
                raise ModelError(messages.TEMPLATE_UNSTABLE, family=family, role=role, what=tensor.name)
        if recipe is None:
            continue
        recipes[tensor.name] = recipe
        for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data"):
            tensor.ClearField(field)
    return Template(template, recipes, dict(fp32.weights))


def _trace(tensor: onnx.TensorProto, fp32: Mapping[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The recipe of one initializer of the quantised graph, before it is checked; None: a constant."""
    if tensor.name in fp32:
        return fp32[tensor.name]
    # The quantiser writes scales and zero points as `float_data` / `int32_data`, not raw bytes.
    stored = [f.name for f, _ in tensor.ListFields() if f.name in STORAGE]
    for suffix, part in PARTS.items():
        base = tensor.name.removesuffix(suffix)
        if base != tensor.name and base in fp32:
            recipe = {"quantize": fp32[base], "part": part, "shape": list(tensor.dims), "dtype": tensor.data_type}
            return recipe | ({"storage": stored[0]} if stored else {})
    return None
