"""The default prompt's prefix cells, computed once per machine and kept beside the optimised graphs.

Every window with the default options starts with the same prompt tokens
(system text, the user turn's opening), and their KV cells are the same
every time: a few dozen positions. Decoding them costs what any prompt
rows cost, and a take that comes as soon as loading ends has to pay it, as
nothing idle came before it to hide the work in
(benchmarks/README.md#kept-between-starts-optimised-graphs-and-prefix-cells). So the first
window a lane decodes leaves its prefix cells here, and later loads put
them straight into the warmed lane's cache.

The cells belong to the decoder's weights, the prompt tokens, the decoder's
mode (exact: f32 cache, plain attention), llama.cpp's version and this CPU: an
entry is keyed by all of them, in the same folder as `ort_cache`'s graphs
and by the same rules - described by `entry.json` (its fields, the cells'
size and SHA-256, checked in full at every load: a file that does not
check out, or that llama.cpp will not take, is deleted); written in a
staging folder and published by one rename; removed with the model's
other entries (`ort_cache.forget`), or when another ONNX Runtime or CPU
publishes an entry (`ort_cache._drop_stale`). The cache can never fail a
load or a take: any problem means decoding the prefix as without it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..atomic import fsync_file
from ..errors import TingjiError
from .decoder import LlamaContext
from .manifest import Manifest
from .ort_cache import CACHE_FORMAT, ENTRY, cpu_signature, entry_key

log = logging.getLogger(__name__)

CELLS = "prefix.cells"


def entry_fields(manifest: Manifest, tokens: Sequence[int], exact: bool) -> dict[str, Any]:
    """Everything the cells depend on (the entry's key is a hash of these)."""
    import llama_cpp
    import onnxruntime as ort

    return {
        "role": "prefix",
        "files": {r: e.sha256 for r, e in sorted(manifest.files.items())},
        "tokens": hashlib.sha256(json.dumps(list(tokens)).encode()).hexdigest(),
        "decoder_mode": "exact" if exact else "fast",  # the KV cache's type and the attention kernel
        "llama_cpp": llama_cpp.__version__,
        # ort_cache's sweep of stale entries reads these three; the cells depend on the CPU too
        "onnxruntime": ort.__version__,
        "cpu": cpu_signature(),
        "cache_format": CACHE_FORMAT,
    }


def restore(cache: Path, fields: dict[str, Any], lane: LlamaContext, tokens: Sequence[int]) -> bool:
    """Put the cached cells into `lane` as its prefix; False (and the entry deleted if bad) when there are none."""
    folder = cache / entry_key(fields)
    try:
        entry = json.loads((folder / ENTRY).read_text(encoding="utf-8"))
        cells = (folder / CELLS).read_bytes()
        ok = (
            entry["fields"] == fields
            and len(cells) == entry["size"]
            and hashlib.sha256(cells).hexdigest() == entry["sha256"]
        )
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError):
        ok = False
    if ok and lane.restore_prefix(tokens, cells):
        return True
    log.warning("cached prompt prefix %s unusable; it will be rebuilt", folder)
    shutil.rmtree(folder, ignore_errors=True)
    return False


def store(cache: Path, fields: dict[str, Any], lane: LlamaContext, tokens: Sequence[int]) -> bool:
    """Keep `lane`'s cached prefix cells if they are `tokens`' and no entry has them yet; never raises."""
    folder = cache / entry_key(fields)
    if (folder / ENTRY).exists():
        return False
    try:
        got = lane.prefix_cells()
    except TingjiError as exc:  # llama.cpp could not copy the cells: the window is done all the same
        log.warning("prompt prefix not cached (%s)", exc)
        return False
    if got is None or got[0] != list(tokens):
        return False
    staging = cache / f".building-{uuid.uuid4().hex[:8]}"
    try:
        staging.mkdir(parents=True)
        (staging / CELLS).write_bytes(got[1])
        entry = {"fields": fields, "size": len(got[1]), "sha256": hashlib.sha256(got[1]).hexdigest()}
        (staging / ENTRY).write_text(json.dumps(entry, indent=2), encoding="utf-8")
        for name in (CELLS, ENTRY):  # durable before it is published
            fsync_file(staging / name)
        os.replace(staging, folder)
        return True
    except OSError as exc:  # no space, a concurrent writer won the rename, ...
        log.warning("prompt prefix not cached (%s)", exc)
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
