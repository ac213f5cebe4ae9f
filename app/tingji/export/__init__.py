"""Official checkpoints -> Tingji model folders, one converter per model family.

`export_model` is the one entry point (the `tingji export-model` command and
the model manager both call it); it finds the family from the checkpoint's
own config unless told. It needs the `export` extra (torch, onnx, gguf); the
engine never imports this package.

A family's converter is a package here providing `FAMILY`,
`is_checkpoint(folder, config) -> bool` and `convert(source, work, *,
precision, decoder_quant, fixed, say) -> Manifest`: it writes every file into
`work` (an empty folder; the choices already checked) and returns the manifest
`folder_manifest` makes of them. Shared machinery:
`onnx_tools` (export, int8, shared weight files), `gguf_tools` (Qwen3 LLMs),
`layers`/`sanm` (PyTorch building blocks), `lint` (DirectML rules).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ..atomic import fsync_dir, fsync_file
from ..engine.families.kit import KITS, PRECISIONS, kit
from ..engine.manifest import Manifest, file_entry, save_manifest
from ..errors import ModelError
from . import messages
from .choices import QUANTS

log = logging.getLogger(__name__)

# manifest "family" -> the converter package for its official checkpoints (engine/families/kit.py declares them).
CONVERTERS: dict[str, str] = {f.name: f.converter for f in KITS}

__all__ = ["export_model", "detect_family", "CONVERTERS"]


def converter(family: str) -> ModuleType:
    name = CONVERTERS.get(family)
    if name is None:
        raise ModelError(messages.UNKNOWN_FAMILY, family=family, choices=", ".join(sorted(CONVERTERS)))
    return importlib.import_module(name)


def read_config(folder: Path) -> dict[str, Any]:
    """A checkpoint's own config: `config.yaml` (funasr releases) or `config.json` (transformers)."""
    import yaml

    for name, parse in (("config.yaml", yaml.safe_load), ("config.json", json.loads)):
        path = folder / name
        if path.is_file():
            try:
                data = parse(path.read_text(encoding="utf-8")) or {}
            except (ValueError, yaml.YAMLError, UnicodeDecodeError) as exc:
                raise ModelError(messages.CONFIG_UNREADABLE, path=path, reason=str(exc)) from None
            if not isinstance(data, dict):
                raise ModelError(messages.CONFIG_NOT_MAPPING, path=path)
            return data
    return {}


def detect_family(source: str | os.PathLike[str]) -> str:
    """Which model family an official checkpoint folder belongs to, from its own config file.

    Args:
        source: The checkpoint folder, as its release ships it (`config.yaml`
            with `model.pt`, or a transformers `config.json` with safetensors).

    Returns:
        The family's name, a key of `CONVERTERS` (e.g. `"fun-asr-nano"`).

    Raises:
        ModelError: The folder is missing, its config unreadable, or no family
            recognises it.
    """
    folder = Path(source)
    if not folder.is_dir():
        raise ModelError(messages.CHECKPOINT_NOT_FOUND, folder=folder)
    config = read_config(folder)
    for family in CONVERTERS:
        if converter(family).is_checkpoint(folder, config):
            return family
    known = ", ".join(sorted(CONVERTERS))
    raise ModelError(messages.NOT_A_CHECKPOINT, folder=folder, known=known)


def export_model(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    family: str | None = None,
    precision: str | None = None,
    decoder_quant: str = "f16",
    fixed: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Convert an official checkpoint folder into a Tingji model folder.

    The folder appears only when complete: everything is written to a
    temporary sibling and renamed at the end; a failure leaves nothing.

    Args:
        source: The official checkpoint folder (see `detect_family`).
        out: The model folder to create; it must not exist or be empty.
        family: The checkpoint's family (a key of `CONVERTERS`); None reads it
            from the checkpoint's config.
        precision: The ONNX graphs' weights: `"fp32"`, `"fp16"` or `"int8"`
            (7-bit int8 MatMul weights, exact on every CPU's int8 kernels); None: the
            family's own default (`kit.Family.precision`: int8 for CAM++, whose int8
            graph sits beside the fp32 ones, else fp32).
        decoder_quant: The LLM decoder's GGUF type (`gguf_tools.QUANTS`, e.g.
            `"f16"`, `"q8_0"`, `"q5_k"`); ignored by families without one.
        fixed: Also write the fixed-shape twin of each encoder graph that
            DirectML runs.
        progress: Called with a line of text at each step; None logs them.

    Returns:
        `out`, the finished model folder.

    Raises:
        ModelError: An unknown family, precision or quantisation, a folder
            that is not a checkpoint of a known family, a damaged checkpoint,
            or an `out` that is not empty.
    """
    say = progress or (lambda msg: log.info("%s", msg))
    out = Path(out)
    module, precision = _choices(source, family, precision, decoder_quant)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ModelError(messages.OUT_NOT_EMPTY, folder=out)
    started = time.perf_counter()
    work = _work_folder(out)
    try:
        say(f"reading checkpoint {source}")
        manifest = module.convert(
            Path(source), work, precision=precision, decoder_quant=decoder_quant, fixed=fixed, say=say
        )
        _note_exporter(manifest, precision, started)
        save_manifest(manifest)
        _publish(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    say(f"done in {time.perf_counter() - started:.1f} s: {out}")
    return out


def _choices(
    source: str | os.PathLike[str], family: str | None, precision: str | None, decoder_quant: str
) -> tuple[ModuleType, str]:
    """The converter of `family` (None: the checkpoint's) and the precision (None: the family's default), both
    checked with `decoder_quant` before any work starts."""
    family = family or detect_family(source)
    module = converter(family)
    precision = precision or getattr(kit(family), "precision", "fp32")
    _check_choices(precision, decoder_quant)
    return module, precision


def _work_folder(out: Path) -> Path:
    """An empty hidden sibling of `out` to convert into, with the permissions a plain new folder would get."""
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(work, 0o777 & ~umask)  # mkdtemp's 0700 would make a shared model folder private
    return work


def _note_exporter(manifest: Manifest, precision: str, started: float) -> None:
    """The manifest's note of what made it: Tingji's version, the seconds taken and, for int8, the weights' limit."""
    manifest.extra["exporter"] = {"tingji": _version(), "seconds": round(time.perf_counter() - started, 1)}
    if precision == "int8":  # which int8 scheme made the graphs: older exports overflow on AVX2 CPUs
        from .onnx_tools import INT8_WEIGHT_LIMIT

        manifest.extra["exporter"]["int8_weight_limit"] = INT8_WEIGHT_LIMIT


def _publish(work: Path, out: Path) -> None:
    """Flush the finished `work` to disk, then rename it to `out` (an empty `out` is replaced)."""
    _sync_tree(work)
    if out.exists():
        out.rmdir()
    os.replace(work, out)


def folder_manifest(
    work: Path,
    family: str,
    files: dict[str, Path],
    window: tuple[int, int],
    frontend: Any,
    section: Any,
    source: dict[str, Any],
) -> Manifest:
    """The manifest a converter returns: every file it wrote into `work` by role (with its size and
    SHA-256), the window (seconds, frames), the front-end, the family's section and where it came from."""
    seconds, frames = window
    return Manifest(
        folder=work,
        family=family,
        files={role: file_entry(work, path) for role, path in files.items()},
        window_seconds=seconds,
        window_frames=frames,
        frontend=frontend,
        section=section,
        source=source,
    )


def _check_choices(precision: str, decoder_quant: str) -> None:
    """Refuse an unknown precision or quantisation before any work starts (every family offers the same)."""
    if precision not in PRECISIONS:
        raise ModelError(messages.UNKNOWN_PRECISION, precision=precision, choices=", ".join(PRECISIONS))
    if decoder_quant not in QUANTS:
        raise ModelError(messages.UNKNOWN_QUANT, quant=decoder_quant, choices=", ".join(QUANTS))


def _sync_tree(folder: Path) -> None:
    """Flush every file (and the folder) to disk before the rename that publishes them."""
    for path in folder.rglob("*"):
        if path.is_file():
            fsync_file(path)
    fsync_dir(folder)


def _version() -> str:
    from .. import __version__

    return __version__
