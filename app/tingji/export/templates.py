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
  with its recipes under the key's digest (the tracing: `template_recipes`).
  An initializer found in no tensor is a constant of the configuration
  (positions, shapes); both probes must give it alike, and the rest of the
  graph too, or the template is refused, naming what differed;
- from templates (no torch): the template for `key` is loaded and filled
  from `weights` - the same graph, byte for byte, as the exporter's. An int8
  graph has a template of its own, recorded from ONNX Runtime's quantisation
  of the fp32 one (`template_int8`).

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

from ..errors import ModelError
from . import messages
from .resident import release
from .template_recipes import Template, apply, record

FORMAT = 1  # bump when a template's files or recipes change meaning
BUILTIN = Path(__file__).with_name("graph_templates")
ENV_FOLDERS = "TINGJI_TEMPLATES"
ENV_SOURCE = "TINGJI_GRAPHS"
SUFFIX = ".onnx.xz"

Weights = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class GraphKey:
    """One graph of one model family, and every setting that shapes it.

    Args:
        family: The manifest family (`"fun-asr-nano"`).
        role: The graph's role in the model folder (`"encoder"`, `"encoder_fixed"`).
        precision: The graph's weights: `"fp32"` or `"fp16"` as exported, `"int8"` for the fp32
            graph quantised (`int8_key`).
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
    try:
        found = importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # a finder that refuses torch, or sys.modules["torch"] = None
        found = False
    return "torch" if found else "templates"


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


def make_graph(
    key: GraphKey,
    weights: Weights,
    build: Callable[[Weights], onnx.ModelProto],
    *,
    int8: tuple[str, ...] = (),
) -> onnx.ModelProto:
    """The graph `key` names, with `weights`: exported by `build` (torch) or filled from its template.

    Args:
        key: The graph and its settings (precision fp32 or fp16, as exported).
        weights: The tensors `build` makes the graph from, by name (NumPy arrays).
        build: The torch export: weights -> graph. Never called without torch.
        int8: Op types whose weights become int8 (`onnx_tools.to_int8`), if any: the fp32 graph
            quantised - with torch, after the export; without, from its own template
            (`template_int8`), which never holds the fp32 graph.
    """
    if int8:
        return _make_int8(key, weights, build, int8)
    if source() == "templates":
        return fill(load_template(key), weights)
    if not _recording:
        return build(weights)
    recorder = _recording[-1]
    filled = fill(_recorded(recorder, key, weights, build), weights)
    if not recorder.check:
        return filled
    return _checked(key, filled, _exported(recorder, key, weights, build))


def int8_key(key: GraphKey, ops: tuple[str, ...]) -> GraphKey:
    """The key of `key`'s fp32 graph quantised to int8 by `onnx_tools.to_int8(graph, ops)`."""
    return GraphKey(key.family, key.role, "int8", {**key.config, "int8_ops": list(ops)})


def _make_int8(
    key: GraphKey, weights: Weights, build: Callable[[Weights], onnx.ModelProto], ops: tuple[str, ...]
) -> onnx.ModelProto:
    from .onnx_tools import to_int8
    from .template_int8 import record_int8

    key8 = int8_key(key, ops)
    if source() == "templates":
        found = _find(key8)
        if found is None:  # templates recorded before int8 ones existed: the same bytes, more time and memory
            return to_int8(fill(load_template(key), weights), ops)
        return fill(_read(found), weights)
    if not _recording:
        return to_int8(build(weights), ops)
    recorder = _recording[-1]
    saved = recorder.folder / f"{key8.digest}{SUFFIX}"
    if saved.is_file():
        template = _read(saved)
    else:
        fp32 = _recorded(recorder, key, weights, build)
        template = record_int8(key.family, key.role, fp32, weights, ops, fill, probes=2 if recorder.check else 1)
        save_template(recorder.folder, key8, template)
    filled = fill(template, weights)
    if not recorder.check:
        return filled
    return _checked(key8, filled, to_int8(_exported(recorder, key, weights, build), ops))


def _recorded(
    recorder: _Recorder, key: GraphKey, weights: Weights, build: Callable[[Weights], onnx.ModelProto]
) -> Template:
    """`key`'s template in the recorder's folder: made there already (the int8 export reuses the fp32
    graphs), or recorded now."""
    saved = recorder.folder / f"{key.digest}{SUFFIX}"
    if saved.is_file():
        return _read(saved)
    template = record(key.family, key.role, weights, build, probes=2 if recorder.check else 1)
    save_template(recorder.folder, key, template)
    return template


def _exported(
    recorder: _Recorder, key: GraphKey, weights: Weights, build: Callable[[Weights], onnx.ModelProto]
) -> onnx.ModelProto:
    """The torch export of `key` with `weights`, once per recording (a copy: callers edit graphs in place)."""
    memo = (key.digest, _fingerprint(weights))
    if memo not in recorder.exported:
        recorder.exported[memo] = build(weights)
    exported = onnx.ModelProto()
    exported.CopyFrom(recorder.exported[memo])
    return exported


def _checked(key: GraphKey, filled: onnx.ModelProto, exported: onnx.ModelProto) -> onnx.ModelProto:
    """The exported graph, once the filled template is found to be it, byte for byte."""
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
    found = _find(key)
    if found is None:
        raise _no_template(key)
    return _read(found)


def _find(key: GraphKey) -> Path | None:
    for folder in folders():
        path = folder / f"{key.digest}{SUFFIX}"
        if path.is_file():
            return path
    return None


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
    cache: dict[str, Any] = {}  # an int8 weight's quantisation, for its scale and zero point
    for tensor in graph.graph.initializer:
        recipe = template.recipes.get(tensor.name)
        if recipe is None:
            continue
        values = apply(recipe, weights, cache)
        storage = recipe.get("storage")
        if storage is None:
            tensor.raw_data = np.ascontiguousarray(values).tobytes()
        else:  # "float_data" or "int32_data", as the recorded graph held it
            getattr(tensor, storage).extend(values.reshape(-1).tolist())
    release(weights.values())  # the checkpoint's pages this graph read (a twin reads them again, cached)
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
