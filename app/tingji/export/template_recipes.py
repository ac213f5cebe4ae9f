"""How a graph template's initializers are traced back to a checkpoint's tensors, and made from them again.

`record` exports a graph from probe copies of the weights (seeded random values, unique to each
tensor) and finds, for every initializer, the recipe that makes it: which tensor, which rows or
columns, transposed or not, the shape and type, any fp16 rounding on the way (`via`); joined
runs of several tensors (`pieces`: an LSTM's gates); or a value computed from a whole tensor
(`DERIVED`: CT-punc's int8 embedding rows). `apply` makes an initializer from its recipe; it is
all that filling a template needs (`templates.fill`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..errors import ModelError
from . import messages

PREFIX = 4  # elements an initializer is looked up by
PROBE_SEEDS = (1, 2)

Weights = Mapping[str, np.ndarray]


@dataclass
class Template:
    """A graph whose weight-derived initializers are empty, and how to fill each from the weights."""

    graph: onnx.ModelProto
    recipes: dict[str, dict[str, Any]]
    # Every tensor the graph was made from, name -> shape: a checkpoint with more or other
    # tensors is another architecture, which the torch exporter would refuse too.
    weights: dict[str, list[int]]


def apply(recipe: Mapping[str, Any], weights: Weights, cache: dict[str, Any] | None = None) -> np.ndarray:
    """One initializer's values: `weights[tensor]` as a 2-D matrix, the recipe's rows and columns of
    it, transposed or not, reshaped and cast (through fp32, as the exporter's `.float()` then `.half()`;
    `via` names any rounding on the way, such as fp16 statistics widened back to fp32). A recipe with
    `derive` computes it from the whole tensor instead (`DERIVED`); one with `pieces` joins runs of
    several tensors (`_apply_pieces`); one with `quantize` is a part of the int8 quantisation of another
    recipe's values (`cache` keeps that quantisation for the other parts of the same weight)."""
    if "quantize" in recipe:
        return _finish(_quantized(recipe["quantize"], weights, cache)[recipe["part"]], recipe)
    if "pieces" in recipe:
        return _apply_pieces(recipe, weights)
    source = _source(recipe, weights)
    if "derive" in recipe:
        return _finish(DERIVED[recipe["derive"]](np.asarray(source, dtype=np.float32), recipe["part"]), recipe)
    matrix = _matrix(source)
    (r0, r1), (c0, c1) = recipe["rows"], recipe["cols"]
    part = matrix[r0:r1, c0:c1]
    return _finish(np.asarray(part.T if recipe["transpose"] else part, dtype=np.float32), recipe)


def _apply_pieces(recipe: Mapping[str, Any], weights: Weights) -> np.ndarray:
    """A joined initializer's values: each piece's run `[start, stop)` of its tensor's elements in
    row-major order, one after another, then cast and reshaped as `apply` does. (The ONNX LSTM's W, R
    and B are such joins: each direction's gate blocks of torch's weights, reordered, the directions
    stacked, and for B both biases of a direction joined.)"""
    parts = [
        np.asarray(_source(piece, weights).reshape(-1)[piece["start"] : piece["stop"]], dtype=np.float32)
        for piece in recipe["pieces"]
    ]
    return _finish(np.concatenate(parts), recipe)


def int8_weight(values: np.ndarray) -> dict[str, np.ndarray]:
    """ONNX Runtime's own quantisation of one weight, as `onnx_tools.to_int8` has it made: per tensor,
    symmetric int8 in [-64, 64] (reduce_range). Parts "quantized", "scale" and "zero_point" - the
    initializers its quantiser names `<weight>_quantized`, `_scale` and `_zero_point`."""
    from onnxruntime.quantization.quant_utils import quantize_data

    zero_point, scale, quantized = quantize_data(values.reshape(-1), onnx.TensorProto.INT8, True, reduce_range=True)
    return {"quantized": quantized.reshape(values.shape), "scale": scale, "zero_point": zero_point}


def _quantized(base: Mapping[str, Any], weights: Weights, cache: dict[str, Any] | None) -> dict[str, np.ndarray]:
    key = json.dumps(base, sort_keys=True)
    if cache is not None and key in cache:
        return cache[key]
    parts = int8_weight(apply(base, weights))
    if cache is not None:
        cache.clear()  # a weight's parts are made one after another: keep one weight's, not the graph's
        cache[key] = parts
    return parts


def _source(part: Mapping[str, Any], weights: Weights) -> np.ndarray:
    """The checkpoint tensor a recipe (or one of its pieces) reads, in the shape it was recorded with."""
    name = part["tensor"]
    if name not in weights:
        raise ModelError(messages.TEMPLATE_TENSOR_MISSING, tensor=name)
    source = weights[name]
    if list(source.shape) != part["source_shape"]:
        raise ModelError(
            messages.TEMPLATE_TENSOR_SHAPE, tensor=name, shape=tuple(source.shape), expected=tuple(part["source_shape"])
        )
    return source


def _finish(values: np.ndarray, recipe: Mapping[str, Any]) -> np.ndarray:
    """fp32 values through the recipe's roundings (`via`: a weight the exporter rounded to fp16 and
    widened again) to its type and shape."""
    for step in recipe.get("via", ()):
        values = values.astype(step)
    return values.astype(helper.tensor_dtype_to_np_dtype(recipe["dtype"]), copy=False).reshape(recipe["shape"])


def _matrix(array: np.ndarray) -> np.ndarray:
    """The 2-D view recipes index: rows along the first axis (a vector is one row)."""
    if array.ndim <= 1:
        return array.reshape(1, -1)
    return array.reshape(array.shape[0], -1)


# -- recording --------------------------------------------------------------------------------------


def record(
    family: str, role: str, weights: Weights, build: Callable[[Weights], onnx.ModelProto], probes: int = 2
) -> Template:
    """Export the graph from probe copies of `weights` and trace its initializers back to them.

    With two probes, anything but the traced initializers must come out the same from both."""
    copies = [probe(weights, seed) for seed in PROBE_SEEDS[:probes]]
    graphs = [build(p) for p in copies]
    if len(graphs) > 1 and _skeleton(graphs[0]) != _skeleton(graphs[1]):
        raise ModelError(messages.TEMPLATE_UNSTABLE, family=family, role=role, what="the graph's structure")
    index = _Index(copies[0])
    second = {t.name: t for t in graphs[-1].graph.initializer}
    recipes: dict[str, dict[str, Any]] = {}
    template = graphs[0]
    for tensor in template.graph.initializer:
        value = numpy_helper.to_array(tensor)
        recipe = index.find(value, tensor.data_type) if value.dtype.kind == "f" else None
        if recipe is None:
            recipe = _derived(copies[0], value, tensor.data_type)
        other = numpy_helper.to_array(second[tensor.name])
        if recipe is None:
            if value.shape != other.shape or value.tobytes() != other.tobytes():
                raise ModelError(messages.TEMPLATE_UNSTABLE, family=family, role=role, what=tensor.name)
            continue
        if apply(recipe, copies[-1]).tobytes() != other.tobytes():
            raise ModelError(messages.TEMPLATE_UNSTABLE, family=family, role=role, what=tensor.name)
        recipes[tensor.name] = recipe
        tensor.ClearField("raw_data")
        for name in ("float_data", "int32_data", "int64_data", "double_data"):
            tensor.ClearField(name)
    return Template(template, recipes, {name: list(array.shape) for name, array in weights.items()})


def probe(weights: Weights, seed: int) -> dict[str, np.ndarray]:
    """`weights` with every float tensor replaced by seeded random values (positive variances kept
    positive); integer tensors are kept, they may be sizes or counters."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, array in weights.items():
        if np.dtype(array.dtype).kind not in "fV":
            out[name] = np.asarray(array)
            continue
        values = rng.standard_normal(array.shape, dtype=np.float32)
        if name.endswith("running_var"):
            values = np.abs(values) + 0.5
        out[name] = values
    return out


def _skeleton(proto: onnx.ModelProto) -> bytes:
    """The graph without its initializers' values: nodes (with Constant values), inputs, outputs."""
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for tensor in copy.graph.initializer:
        for name in ("raw_data", "float_data", "int32_data", "int64_data", "double_data"):
            tensor.ClearField(name)
    return copy.SerializeToString(deterministic=True)


class _Index:
    """Where each probe tensor's rows, columns and transposed rows start, by their first elements.

    A probe's values are random, so `PREFIX` elements (rounded to fp16, so fp16 graphs match too)
    point at one place; the candidate is then checked element for element."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self.hits: dict[bytes, list[tuple[str, str, int]]] = {}
        for name, array in weights.items():
            if np.dtype(array.dtype).kind != "f":
                continue
            m = _matrix(array)
            rows, cols = m.shape
            if m.size < PREFIX:  # too small to look up by a prefix (a [1] bias): by all its elements
                self._add(m.reshape(-1), (name, "whole", 0))
                continue
            if rows == 1:  # a vector: any slice of it
                for c in range(cols - PREFIX + 1):
                    self._add(m[0, c : c + PREFIX], (name, "cols", c))
                continue
            for r in range(rows):
                if cols >= PREFIX:
                    self._add(m[r, :PREFIX], (name, "rows", r))
                if r + PREFIX <= rows:
                    self._add(m[r : r + PREFIX, 0], (name, "rows_t", r))
            for c in range(cols):
                if rows >= PREFIX:
                    self._add(m[:PREFIX, c], (name, "cols_t", c))

    def _add(self, values: np.ndarray, hit: tuple[str, str, int]) -> None:
        self.hits.setdefault(_prefix_key(values), []).append(hit)

    def find(self, value: np.ndarray, data_type: int) -> dict[str, Any] | None:
        flat = value.reshape(-1)
        for name, kind, start in self.hits.get(_prefix_key(flat[:PREFIX]), []):
            recipe = self._candidate(name, kind, start, value, data_type)
            if recipe is None:
                continue
            for via in ([], ["float16"]):
                recipe["via"] = via
                if np.array_equal(apply(recipe, self.weights), value):
                    return recipe
        return self._pieces(value, data_type) if flat.size >= PREFIX else None

    def _pieces(self, value: np.ndarray, data_type: int) -> dict[str, Any] | None:
        """`value` as consecutive runs of the tensors' elements (row-major), each the longest run that
        starts at an indexed row or vector element and matches from where the previous one ended."""
        flat = value.reshape(-1)
        for via in ([], ["float16"]):
            pieces: list[dict[str, Any]] = []
            at = 0
            while at < flat.size and (piece := self._run(flat, at, via)) is not None:
                pieces.append(piece)
                at += piece["stop"] - piece["start"]
            if at < flat.size:
                continue
            recipe = {"pieces": pieces, "shape": list(value.shape), "dtype": data_type, "via": via}
            if np.array_equal(apply(recipe, self.weights), value):
                return recipe
        return None

    def _run(self, flat: np.ndarray, at: int, via: list[str]) -> dict[str, Any] | None:
        """The longest run of one tensor's elements that `flat[at:]` starts with (at least `PREFIX`)."""
        best: dict[str, Any] | None = None
        hits = self.hits.get(_prefix_key(flat[at : at + PREFIX]), []) if at + PREFIX <= flat.size else []
        for name, kind, start in hits:
            if kind not in ("rows", "cols"):
                continue
            array = self.weights[name]
            begin = start * _matrix(array).shape[1] if kind == "rows" else start
            source = np.asarray(array.reshape(-1)[begin : begin + flat.size - at], dtype=np.float32)
            for step in via:
                source = source.astype(step)
            differ = np.flatnonzero(source.astype(flat.dtype) != flat[at : at + source.size])
            length = int(differ[0]) if differ.size else source.size
            if length >= PREFIX and (best is None or length > best["stop"] - best["start"]):
                best = {"tensor": name, "source_shape": list(array.shape), "start": begin, "stop": begin + length}
        return best

    def _candidate(self, name: str, kind: str, start: int, value: np.ndarray, data_type: int) -> dict[str, Any] | None:
        array = self.weights[name]
        rows, cols = _matrix(array).shape
        n = value.size
        if kind == "whole":
            if n != rows * cols:
                return None
            span, transpose = ((0, rows), (0, cols)), False
        elif kind in ("rows", "rows_t"):
            if n % cols:
                return None
            span, transpose = ((start, start + n // cols), (0, cols)), kind == "rows_t"
        else:
            if n % rows:
                return None
            span, transpose = ((0, rows), (start, start + n // rows)), kind == "cols_t" or rows == 1
            if rows == 1:
                transpose = False
        (r0, r1), (c0, c1) = span
        if r1 > rows or c1 > cols:
            return None
        return {
            "tensor": name,
            "source_shape": list(array.shape),
            "rows": [r0, r1],
            "cols": [c0, c1],
            "transpose": transpose,
            "shape": list(value.shape),
            "dtype": data_type,
        }


def _prefix_key(values: np.ndarray) -> bytes:
    with np.errstate(over="ignore"):  # a constant beyond fp16's range (a -1e9 mask bias) keys as inf
        return np.asarray(values, dtype=np.float32).astype(np.float16).tobytes()


# -- derived initializers ---------------------------------------------------------------------------


def int8_rows(table: np.ndarray, part: str) -> np.ndarray:
    """`ct_punc.modules.Int8Rows` in NumPy, as torch computes it in fp32 (a maximum, correctly rounded
    divisions and round-half-even: exact): one scale per row, max(|row|, 1e-12) / 127 (`part` "scale"),
    and the table divided by it and rounded (`part` "rows"; the recipe's dtype makes it int8)."""
    scale = np.maximum(np.abs(table).max(axis=1, keepdims=True), np.float32(1e-12)) / np.float32(127.0)
    return scale if part == "scale" else np.rint(table / scale)


#: Initializers an exporter computes from a whole tensor rather than copies from it: a recipe's
#: `derive` -> (the tensor in fp32, the recipe's `part`) -> the values.
DERIVED: dict[str, Callable[[np.ndarray, str], np.ndarray]] = {"int8_rows": int8_rows}


def _derived(weights: Weights, value: np.ndarray, data_type: int) -> dict[str, Any] | None:
    """The `DERIVED` recipe that gives `value` from a tensor of `weights`, checked element for element:
    int8 rows of a 2-D float tensor of its shape, or their scales ([rows, 1] floats); None if none does."""
    if value.ndim != 2:
        return None
    if value.dtype == np.int8:
        part = "rows"
    elif value.dtype.kind == "f" and value.shape[1] == 1:
        part = "scale"
    else:
        return None
    for name, array in weights.items():
        if np.dtype(array.dtype).kind != "f" or array.ndim != 2 or array.shape[0] != value.shape[0]:
            continue
        if part == "rows" and array.shape != value.shape:
            continue
        recipe = {
            "tensor": name,
            "source_shape": list(array.shape),
            "derive": "int8_rows",
            "part": part,
            "shape": list(value.shape),
            "dtype": data_type,
        }
        if apply(recipe, weights).tobytes() == value.tobytes():
            return recipe
    return None
