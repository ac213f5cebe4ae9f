"""ONNX Runtime's optimised graphs, built once per machine and runtime version, not at every start.

Creating a CPU session for the full-size int8 encoder spends about half its
time optimising the graph (fusions, constant folding, layout changes); given
the graph ONNX Runtime saved after optimising it, it skips that, with the
same outputs bit for bit
(benchmarks/README.md#kept-between-starts-optimised-graphs-and-prefix-cells). So the first load (the
model manager's check at install, or the first start after ONNX Runtime
changed) asks ONNX Runtime to save its optimised graph into a cache folder,
and later loads use it with optimisation off. The weights file holds the
weights ONNX Runtime prepacked for its kernels as well as the originals:
a load then maps them instead of packing them again (a faster start), at
twice the disk; the prepacked pages are file-backed, so the resident set is the same and
the system can drop them under memory pressure instead of swapping.

ONNX Runtime releases before `ort_compat.PREPACKED_SAVE_FIXED_IN` save
the prepacked weights but crash running a graph loaded with them; there the
weights file holds the originals only (the entry's `prepacked` field says
so), and a load packs them again.

The saved graph belongs to this machine and this runtime: ONNX Runtime warns
that it may contain CPU-specific layout choices. An entry is therefore keyed
by everything that shaped it - the model's files (their SHA-256 from the
manifest), the graph's role, the session's optimisation level and fixed
shape, the ONNX Runtime version and the CPU - and a key that differs is
simply another entry; entries made by another runtime version, CPU or
format of this cache are deleted when a new entry is written. The cache sits outside the model folder
and its hashed set: its files are checked like model files at load (sizes,
plus the SHA-256 of the small graph file; the weights file is checked by
size, as the model's own files are at load), and anything that does not
check out, or that ONNX Runtime refuses, is deleted and rebuilt. The cache
can never make a load fail: any problem with it falls back to optimising in
memory, as without a cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import shutil
import time
import uuid
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..atomic import fsync_file
from .manifest import Manifest, sha256_file
from .ort_compat import ModelSource, saves_prepacked_weights

log = logging.getLogger(__name__)

# 2: the weights file also holds ONNX Runtime's prepacked weights (entries of 1 are dropped as stale).
CACHE_FORMAT = 2
GRAPH = "graph.onnx"
WEIGHTS = "graph.onnx.data"
ENTRY = "entry.json"


@lru_cache(maxsize=1)
def cpu_signature() -> str:
    """What identifies this CPU's instruction set for ONNX Runtime's kernel and layout choices."""
    parts = [platform.machine(), platform.processor()]
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        if line.startswith(("model name", "flags", "Features")):  # x86 name + flags; ARM features
            parts.append(line.split(":", 1)[-1].strip())
        if line.startswith("flags") or line.startswith("Features"):
            break
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def entry_fields(
    manifest: Manifest, role: str, level: int, shape: int | None, rewrites: Sequence[str] = ()
) -> dict[str, Any]:
    """Everything the saved graph depends on (its key is a hash of these).

    `rewrites` name the changes `ort_compat` made to the graph before ONNX
    Runtime saw it: a rewritten graph is another entry, and a graph nothing
    rewrote keeps the key it always had.
    """
    import onnxruntime as ort

    fields: dict[str, Any] = {
        "role": role,
        "files": {r: e.sha256 for r, e in sorted(manifest.files.items())},
        "optimization_level": int(level),
        "fixed_frames": shape,
        "onnxruntime": ort.__version__,
        "cpu": cpu_signature(),
        "cache_format": CACHE_FORMAT,
    }
    if rewrites:
        fields["rewrites"] = list(rewrites)
    if not saves_prepacked_weights():
        fields["prepacked"] = False  # another entry than one an older Tingji saved with them (it would crash)
    return fields


def _size(path: Path) -> int | None:
    """A file's size; None when ONNX Runtime wrote none (a graph whose weights all fit inside it)."""
    return path.stat().st_size if path.exists() else None


def entry_key(fields: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:32]


def _valid(folder: Path, fields: dict[str, Any]) -> bool:
    try:
        entry = json.loads((folder / ENTRY).read_text(encoding="utf-8"))
        return (
            entry.get("fields") == fields
            and (folder / GRAPH).stat().st_size == entry["graph_size"]
            and _size(folder / WEIGHTS) == entry["weights_size"]
            and sha256_file(folder / GRAPH) == entry["graph_sha256"]
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False


def session(source: ModelSource, options: Any, providers: list[str], cache: Path, fields: dict[str, Any]) -> Any:
    """An InferenceSession for `source` with `options`, through the cache of optimised graphs.

    `options` is a fresh SessionOptions (it is changed here); CPU provider
    only. `fields` must name `source.rewrites` (`entry_fields`).
    """
    import onnxruntime as ort

    folder = cache / entry_key(fields)
    if _valid(folder, fields):
        level = options.graph_optimization_level
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(folder / GRAPH), sess_options=options, providers=providers)
        except Exception as exc:  # damaged or from a runtime that reads it differently: rebuild
            log.warning("optimised graph %s unusable (%s); rebuilding it", folder, str(exc)[:200])
            options.graph_optimization_level = level
    shutil.rmtree(folder, ignore_errors=True)
    staging = cache / f".building-{uuid.uuid4().hex[:8]}"
    try:
        staging.mkdir(parents=True)
        options.optimized_model_filepath = str(staging / GRAPH)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS)
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        if fields.get("prepacked", True):
            options.add_session_config_entry("session.save_external_prepacked_constant_initializers", "1")
    except OSError as exc:
        log.warning("cannot cache optimised graphs in %s (%s)", cache, exc)
        options.optimized_model_filepath = ""
        return source.session(options, providers)
    try:
        try:
            built = source.session(options, providers)
        except Exception:  # perhaps only the saving failed (a full disk): a load must not fail for the cache
            options.optimized_model_filepath = ""
            return source.session(options, providers)
        _publish(staging, folder, fields)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return built


def _publish(staging: Path, folder: Path, fields: dict[str, Any]) -> None:
    """Describe the saved graph and move it into place in one rename; never fail the load."""
    try:
        graph, weights = staging / GRAPH, staging / WEIGHTS
        entry = {
            "fields": fields,
            "graph_size": graph.stat().st_size,
            "weights_size": _size(weights),
            "graph_sha256": sha256_file(graph),
        }
        (staging / ENTRY).write_text(json.dumps(entry, indent=2), encoding="utf-8")
        for path in (graph, weights, staging / ENTRY):  # durable before it is published: sizes are all a load checks
            if path.exists():
                fsync_file(path)
        os.replace(staging, folder)
    except OSError as exc:  # no space, a concurrent builder won the rename, ...
        log.warning("optimised graph not cached (%s)", exc)
        return
    _drop_stale(folder.parent, fields)


def _drop_stale(cache: Path, fields: dict[str, Any]) -> None:
    """Delete entries another ONNX Runtime version or CPU made (this machine can never use them),
    and builds a crashed process left behind (an hour old: none is still being written)."""
    for other in cache.iterdir():
        if other.name.startswith(".building-"):
            try:
                if time.time() - other.stat().st_mtime > 3600:
                    shutil.rmtree(other, ignore_errors=True)
            except OSError:
                pass
            continue
        try:
            theirs = json.loads((other / ENTRY).read_text(encoding="utf-8"))["fields"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if (theirs.get("onnxruntime"), theirs.get("cpu"), theirs.get("cache_format")) != (
            fields["onnxruntime"],
            fields["cpu"],
            fields["cache_format"],
        ):
            shutil.rmtree(other, ignore_errors=True)


def forget(cache: Path, manifest: Manifest) -> None:
    """Delete the entries made from this model's files (when the model is removed)."""
    files = {r: e.sha256 for r, e in sorted(manifest.files.items())}
    if not cache.is_dir():
        return
    for other in cache.iterdir():
        try:
            if json.loads((other / ENTRY).read_text(encoding="utf-8"))["fields"]["files"] == files:
                shutil.rmtree(other, ignore_errors=True)
        except (OSError, ValueError, KeyError, TypeError):
            continue
