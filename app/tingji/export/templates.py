"""Graph templates: the torch exporter's graphs without their weights, filled from a checkpoint without torch.

The installed app has no torch, so it cannot run the exporter. Every graph a
converter makes goes through `make_graph(key, weights, build)`, where `build`
is the family's torch export of the graph from `weights` (its checkpoint
tensors, as NumPy arrays) and `key` names the graph and every setting that
shapes it (`GraphKey`). What `make_graph` does depends on where it runs:

- with torch (a developer's or CI's install): `build(weights)`, as before;
- while `recording(folder)` (with torch, at build time): `build` runs on two
  probe copies of `weights` - seeded random values, unique to each tensor -
  and each initializer of the graph is traced back to the tensor it came from:
  which one, which rows or columns, transposed or not, its shape and type (a
  `recipe`). The graph with those initializers emptied is the template, saved
  with its recipes under the key's digest. An initializer found in no tensor
  is a constant of the configuration (positions, shapes); both probes must
  give it alike, and the rest of the graph too, or the template is refused,
  naming what differed;
- from templates (no torch): the template for `key` is loaded and filled
  from `weights` - the same graph, byte for byte, as the exporter's.

Templates are looked up in the folders of `TINGJI_TEMPLATES` (os.pathsep
separated), then in the app's own `graph_templates/`. `TINGJI_GRAPHS=torch`
or `templates` chooses the way; by default templates are used when torch is
not installed.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import lzma
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..errors import ModelError
from . import messages

FORMAT = 1  # bump when a template's files or recipes change meaning
BUILTIN = Path(__file__).with_name("graph_templates")
ENV_FOLDERS = "TINGJI_TEMPLATES"
ENV_SOURCE = "TINGJI_GRAPHS"
PREFIX = 4  # elements an initializer is looked up by
PROBE_SEEDS = (1, 2)
SUFFIX = ".onnx.xz"

Weights = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class GraphKey:
    """One graph of one model family, and every setting that shapes it.

    Args:
        family: The manifest family (`"fun-asr-nano"`).
        role: The graph's role in the model folder (`"encoder"`, `"encoder_fixed"`).
        precision: The graph's weights as exported: `"fp32"` or `"fp16"` (int8 is made
            from the fp32 graph after filling, the same way with or without torch).
        config: The sizes and options the graph depends on (JSON values).
    """

    family: str
    role: str
    precision: str
    config: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "family": self.family,
            "role": self.role,
            "precision": self.precision,
            "config": json.loads(json.dumps(self.config, sort_keys=True)),
        }

    @property
    def digest(self) -> str:
        text = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:24]


def source() -> str:
    """How graphs are made here: `"torch"` (the exporter) or `"templates"`."""
    chosen = os.environ.get(ENV_SOURCE, "").strip().lower()
    if chosen in ("torch", "templates"):
        return chosen
    return "torch" if importlib.util.find_spec("torch") is not None else "templates"


@dataclass
class _Recorder:
    folder: Path
    check: bool
    # (key digest, weights' fingerprint) -> the torch export checked against its template: a second
    # conversion of the same checkpoint (the int8 one after fp32) reuses it instead of exporting again.
    exported: dict[tuple[str, str], onnx.ModelProto] = field(default_factory=dict)


_recording: list[_Recorder] = []


@contextlib.contextmanager
def recording(folder: str | os.PathLike[str], *, check: bool = True) -> Iterator[Path]:
    """Within the block, every graph made with torch is also saved as a template into `folder`.

    Args:
        folder: Where the templates go (created).
        check: Export each graph from two probes and from the real weights: the structure and
            the constants must not change with the weights, and the template filled with the
            real weights must be the real export, byte for byte (what the tests run). False: one
            probe export only (building the app's full-size templates, whose code the tests cover).
    """
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    recorder = _Recorder(path, check)
    _recording.append(recorder)
    try:
        yield path
    finally:
        _recording.remove(recorder)


def make_graph(key: GraphKey, weights: Weights, build: Callable[[Weights], onnx.ModelProto]) -> onnx.ModelProto:
    """The graph `key` names, with `weights`: exported by `build` (torch) or filled from its template.

    Args:
        key: The graph and its settings.
        weights: The tensors `build` makes the graph from, by name (NumPy arrays).
        build: The torch export: weights -> graph. Never called without torch.
    """
    if source() == "templates":
        return fill(load_template(key), weights)
    if not _recording:
        return build(weights)
    recorder = _recording[-1]
    saved = recorder.folder / f"{key.digest}{SUFFIX}"
    if saved.is_file():  # made already in this folder (the int8 export reuses the fp32 graphs)
        template = _read(saved)
    else:
        template = record(key, weights, build, probes=2 if recorder.check else 1)
        save_template(recorder.folder, key, template)
    filled = fill(template, weights)
    if not recorder.check:
        return filled
    memo = (key.digest, _fingerprint(weights))
    if memo not in recorder.exported:
        recorder.exported[memo] = build(weights)
    exported = onnx.ModelProto()
    exported.CopyFrom(recorder.exported[memo])  # the caller may name axes in place
    if filled.SerializeToString(deterministic=True) != exported.SerializeToString(deterministic=True):
        raise ModelError(messages.TEMPLATE_UNSTABLE, family=key.family, role=key.role, what="the filled graph")
    return exported


def _fingerprint(weights: Weights) -> str:
    digest = hashlib.sha256()
    for name in sorted(weights):
        array = np.ascontiguousarray(weights[name])
        digest.update(f"{name}:{array.dtype}:{array.shape}".encode())
        digest.update(array.view(np.uint8).reshape(-1).data if array.size else b"")
    return digest.hexdigest()


# -- templates on disk ------------------------------------------------------------------------------


@dataclass
class Template:
    """A graph whose weight-derived initializers are empty, and how to fill each from the weights."""

    graph: onnx.ModelProto
    recipes: dict[str, dict[str, Any]]
    # Every tensor the graph was made from, name -> shape: a checkpoint with more or other
    # tensors is another architecture, which the torch exporter would refuse too.
    weights: dict[str, list[int]]


def folders() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(ENV_FOLDERS, "").split(os.pathsep) if p]
    return [*extra, BUILTIN]


def save_template(folder: Path, key: GraphKey, template: Template) -> Path:
    """`<digest>.onnx.xz` (the graph, xz-compressed: the exporter's node metadata shrinks ~40x) and
    `<digest>.json` (its key and recipes)."""
    path = folder / f"{key.digest}{SUFFIX}"
    path.write_bytes(lzma.compress(template.graph.SerializeToString(), preset=9))
    meta = {"key": key.describe(), "recipes": template.recipes, "weights": template.weights}
    (folder / f"{key.digest}.json").write_text(json.dumps(meta, sort_keys=True) + "\n", encoding="utf-8")
    return path


def load_template(key: GraphKey) -> Template:
    """The template for `key`; a coded error naming how the nearest one differs when there is none."""
    for folder in folders():
        path = folder / f"{key.digest}{SUFFIX}"
        if path.is_file():
            return _read(path)
    raise _no_template(key)


def _read(path: Path) -> Template:
    meta = json.loads(path.with_name(path.name.removesuffix(SUFFIX) + ".json").read_text(encoding="utf-8"))
    return Template(onnx.load_from_string(lzma.decompress(path.read_bytes())), meta["recipes"], meta["weights"])


def _no_template(key: GraphKey) -> ModelError:
    wanted = key.describe()
    best: tuple[int, list[str]] | None = None
    for folder in folders():
        for meta_path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                other = json.loads(meta_path.read_text(encoding="utf-8"))["key"]
            except (OSError, ValueError, KeyError):
                continue
            if (other.get("family"), other.get("role")) != (key.family, key.role):
                continue
            diff = _differences(wanted, other)
            if best is None or len(diff) < best[0]:
                best = (len(diff), diff)
    if best is None:
        return ModelError(messages.NO_TEMPLATE_FAMILY, family=key.family, role=key.role)
    return ModelError(
        messages.NO_TEMPLATE, family=key.family, role=key.role, differences="; ".join(best[1][:4]) or "format"
    )


def _differences(wanted: Mapping[str, Any], other: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`name: this checkpoint's value vs the template's`, for every setting that differs."""
    out = []
    for name in sorted(set(wanted) | set(other)):
        if name in ("family", "role"):
            continue
        a, b = wanted.get(name), other.get(name)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{name}.")
        elif a != b:
            out.append(f"{prefix}{name} {a!r} (the app's template has {b!r})")
    return out


# -- filling ----------------------------------------------------------------------------------------


def fill(template: Template, weights: Weights) -> onnx.ModelProto:
    """A copy of the template's graph with every recipe's initializer made from `weights`."""
    _check_weights(template, weights)
    graph = onnx.ModelProto()
    graph.CopyFrom(template.graph)
    for tensor in graph.graph.initializer:
        recipe = template.recipes.get(tensor.name)
        if recipe is not None:
            tensor.raw_data = np.ascontiguousarray(apply(recipe, weights)).tobytes()
    return graph


def _check_weights(template: Template, weights: Weights) -> None:
    """The checkpoint's tensors are exactly those the template was made from, in their shapes."""
    missing = sorted(set(template.weights) - set(weights))
    if missing:
        raise ModelError(messages.TEMPLATE_TENSOR_MISSING, tensor=missing[0])
    extra = sorted(set(weights) - set(template.weights))
    if extra:
        raise ModelError(messages.TEMPLATE_TENSOR_EXTRA, tensors=", ".join(extra[:3]), count=len(extra))
    for name, shape in template.weights.items():
        if list(weights[name].shape) != shape:
            raise ModelError(
                messages.TEMPLATE_TENSOR_SHAPE, tensor=name, shape=tuple(weights[name].shape), expected=tuple(shape)
            )


def apply(recipe: Mapping[str, Any], weights: Weights) -> np.ndarray:
    """One initializer's values: `weights[tensor]` as a 2-D matrix, the recipe's rows and columns of
    it, transposed or not, reshaped and cast (through fp32, as the exporter's `.float()` then `.half()`;
    `via` names any rounding on the way, such as fp16 statistics widened back to fp32). A recipe with
    `derive` computes it from the whole tensor instead (`DERIVED`); one with `pieces` joins runs of
    several tensors (`_apply_pieces`)."""
    if "pieces" in recipe:
        return _apply_pieces(recipe, weights)
    name = recipe["tensor"]
    if name not in weights:
        raise ModelError(messages.TEMPLATE_TENSOR_MISSING, tensor=name)
    source = weights[name]
    if list(source.shape) != recipe["source_shape"]:
        raise ModelError(
            messages.TEMPLATE_TENSOR_SHAPE,
            tensor=name,
            shape=tuple(source.shape),
            expected=tuple(recipe["source_shape"]),
        )
    if "derive" in recipe:
        values = DERIVED[recipe["derive"]](np.asarray(source, dtype=np.float32), recipe["part"])
        return values.astype(helper.tensor_dtype_to_np_dtype(recipe["dtype"]), copy=False).reshape(recipe["shape"])
    matrix = _matrix(source)
    (r0, r1), (c0, c1) = recipe["rows"], recipe["cols"]
    part = matrix[r0:r1, c0:c1]
    if recipe["transpose"]:
        part = part.T
    values = np.asarray(part, dtype=np.float32)
    for step in recipe.get("via", ()):  # a weight the exporter rounded to fp16 and widened again
        values = values.astype(step)
    return values.astype(helper.tensor_dtype_to_np_dtype(recipe["dtype"]), copy=False).reshape(recipe["shape"])


def _apply_pieces(recipe: Mapping[str, Any], weights: Weights) -> np.ndarray:
    """A joined initializer's values: each piece's run `[start, stop)` of its tensor's elements in
    row-major order, one after another, then cast and reshaped as `apply` does. (The ONNX LSTM's W, R
    and B are such joins: each direction's gate blocks of torch's weights, reordered, the directions
    stacked, and for B both biases of a direction joined.)"""
    parts = []
    for piece in recipe["pieces"]:
        name = piece["tensor"]
        if name not in weights:
            raise ModelError(messages.TEMPLATE_TENSOR_MISSING, tensor=name)
        source = weights[name]
        if list(source.shape) != piece["source_shape"]:
            raise ModelError(
                messages.TEMPLATE_TENSOR_SHAPE,
                tensor=name,
                shape=tuple(source.shape),
                expected=tuple(piece["source_shape"]),
            )
        parts.append(np.asarray(source.reshape(-1)[piece["start"] : piece["stop"]], dtype=np.float32))
    values = np.concatenate(parts)
    for step in recipe.get("via", ()):
        values = values.astype(step)
    return values.astype(helper.tensor_dtype_to_np_dtype(recipe["dtype"]), copy=False).reshape(recipe["shape"])


def _matrix(array: np.ndarray) -> np.ndarray:
    """The 2-D view recipes index: rows along the first axis (a vector is one row)."""
    if array.ndim <= 1:
        return array.reshape(1, -1)
    return array.reshape(array.shape[0], -1)


# -- recording --------------------------------------------------------------------------------------


def record(key: GraphKey, weights: Weights, build: Callable[[Weights], onnx.ModelProto], probes: int = 2) -> Template:
    """Export the graph from probe copies of `weights` and trace its initializers back to them.

    With two probes, anything but the traced initializers must come out the same from both."""
    copies = [probe(weights, seed) for seed in PROBE_SEEDS[:probes]]
    graphs = [build(p) for p in copies]
    if len(graphs) > 1 and _skeleton(graphs[0]) != _skeleton(graphs[1]):
        raise ModelError(messages.TEMPLATE_UNSTABLE, family=key.family, role=key.role, what="the graph's structure")
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
                raise ModelError(messages.TEMPLATE_UNSTABLE, family=key.family, role=key.role, what=tensor.name)
            continue
        if apply(recipe, copies[-1]).tobytes() != other.tobytes():
            raise ModelError(messages.TEMPLATE_UNSTABLE, family=key.family, role=key.role, what=tensor.name)
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


# -- what this install can convert ------------------------------------------------------------------

_families_cache: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}


def can_convert(family: str) -> bool:
    """Whether official checkpoints of `family` (a manifest family) can be converted here: always with
    torch (the exporter), else only when a template of that family is installed (`folders()`)."""
    if source() == "torch":
        return True
    return any(family in _template_families(folder) for folder in folders())


def _template_families(folder: Path) -> frozenset[str]:
    """The families of the templates in `folder`, read once per listing of its `*.json` files."""
    names = tuple(sorted(p.name for p in folder.glob("*.json"))) if folder.is_dir() else ()
    key = (str(folder), names)
    if key not in _families_cache:
        families = set()
        for name in names:
            try:
                families.add(json.loads((folder / name).read_text(encoding="utf-8"))["key"]["family"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
        _families_cache[key] = frozenset(families)
    return _families_cache[key]


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
