"""Atomic installs: every model folder appears under its name by one rename, or not at all.

Every install is assembled in `models_dir()/.incoming-<name>-<random>/` and
appears under its name only through one atomic rename, after everything was
downloaded, converted, verified against the manifest's hashes and loaded once
by the engine (a GGUF or ONNX file the runtimes cannot load is refused at
install, not on the user's first file). A crash therefore leaves only
`.incoming-*` folders: `list_models` ignores them and `cleanup_incoming` (run
before every install) deletes those no live installer holds a lock on.
Removals go the same way in reverse (`.removing-*`, renamed first, then
deleted), so a crash mid-removal never leaves a half model under its name.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import Engine
from ..engine import manifest as mf
from ..engine.families.campplus import FAMILY as SPEAKER_FAMILY
from ..engine.families.ct_punc import FAMILY as PUNCTUATION_FAMILY
from ..engine.punctuation import Punctuator
from ..errors import Cancelled, ModelError
from ..paths import graph_cache_dir, models_dir
from . import messages
from .diskspace import ensure_space

StageProgress = Callable[[str, int, "int | None", float], None]
INCOMING_PREFIX = ".incoming-"
REMOVING_PREFIX = ".removing-"
_STALE_UNLOCKED_S = 60.0


def ensure_free_name(name: str) -> None:
    if (models_dir() / name).exists():
        raise ModelError(messages.ALREADY_INSTALLED, name=name)


def check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def lock_file(fh: Any) -> bool:
    """Non-blocking exclusive lock; False when someone (any process) holds it."""
    try:
        if os.name == "nt":
            import msvcrt

            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


class Staging:
    """`.incoming-<name>-<random>/`, locked while this installer lives, removed on exit."""

    def __init__(self, name: str) -> None:
        self.dir = models_dir() / f"{INCOMING_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
        self.model = self.dir / "model"
        self.name = name
        self._lock: Any = None

    def __enter__(self) -> Staging:
        self.dir.mkdir()
        self._lock = open(self.dir / ".lock", "w")
        lock_file(self._lock)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            self._lock.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def commit(self, folder: Path, progress: StageProgress | None = None, source: Path | None = None) -> Path:
        """Verify `folder` (inside the staging dir) fully and load it, then rename it into place.

        The files and folders are flushed to disk before the rename and the
        rename after it: a power cut then leaves either no model or a whole one,
        never a published name over files the disk had not written yet.
        `source`: the folder it was imported from, for naming a file that cannot be loaded."""
        verify_folder(folder, progress)
        if progress is not None:
            progress("loading", 0, None, 0.0)
        check_loads(folder, source if source is not None else Path(self.name))
        final = models_dir() / self.name
        ensure_free_name(self.name)
        try:
            fsync_tree(folder)
            os.replace(folder, final)
            fsync_path(final.parent, directory=True)
        except OSError as exc:
            raise ModelError(
                messages.CANNOT_INSTALL, name=self.name, folder=final, reason=exc.strerror or str(exc)
            ) from None
        return final


def fsync_path(path: Path, directory: bool = False) -> None:
    """Flush one file, or a folder's entries, to disk."""
    if directory and os.name == "nt":
        return  # Windows cannot open a folder to flush it; NTFS journals the rename itself
    fd = os.open(path, os.O_RDWR if os.name == "nt" else os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(folder: Path) -> None:
    """Flush every file under `folder`, then every folder from the deepest up to `folder` itself."""
    for root, _dirs, files in os.walk(folder, topdown=False):
        for name in files:
            fsync_path(Path(root) / name)
        fsync_path(Path(root), directory=True)


def check_loads(folder: Path, label: Path) -> None:
    """Load the model as the app will (CPU, not warmed), then release it.

    The load also leaves ONNX Runtime's optimised graphs in the app's graph
    cache (keyed by the files' hashes, so they serve the installed folder),
    and `build_caches` the prompt prefix's cells: the app's first start with
    this model neither optimises the graphs nor decodes the prefix.

    The engine's own error names a file inside the staging folder; the user
    needs the one they gave: `label / <file>` (the imported folder, or the model name).
    """
    try:
        family = mf.load_manifest(folder).family
        if family == PUNCTUATION_FAMILY:  # not a speech model: it marks a sentence
            Punctuator(folder).punctuate("好")
        elif family == SPEAKER_FAMILY:  # not a speech model: it embeds a window (and caches its graph)
            from ..engine.speakers.model import SpeakerModel

            speakers = SpeakerModel(folder, provider="cpu", check_hashes=False, graph_cache=graph_cache_dir())
            try:
                speakers.embed([np.zeros(speakers.window_samples, np.float32)])
            finally:
                speakers.close()
        else:
            engine = Engine(folder, provider="cpu", warm=False, graph_cache=graph_cache_dir())
            try:
                engine.build_caches()
            finally:
                engine.close()
    except Exception as exc:  # ModelError from the engine; anything else from a runtime that choked
        text = " ".join(str(exc).split())
        culprit = _culprit(folder, text)
        reason = text.removeprefix(f"{folder}: ").replace(f"{folder}{os.sep}", "").replace(str(folder), str(label))
        reason = reason.removeprefix(f"{culprit}: ") if culprit else reason
        where = label / culprit if culprit else label
        raise ModelError(messages.CANNOT_LOAD, path=where, reason=reason[:300]) from None


def _culprit(folder: Path, text: str) -> str | None:
    """Which of the model's files an engine error is about: named by path, else by role."""
    files = mf.load_manifest(folder).files
    for entry in sorted(files.values(), key=lambda e: -len(e.path)):
        if str(folder / entry.path) in text:
            return entry.path
    for role in ("decoder", "ctc", "encoder"):
        if role in text and role in files:
            return files[role].path
    return None


def cleanup_incoming() -> list[Path]:
    """Delete leftovers of crashed installs/removals; returns what was removed."""
    removed: list[Path] = []
    root = models_dir()
    for child in root.iterdir():
        if child.name.startswith(REMOVING_PREFIX):
            shutil.rmtree(child, ignore_errors=True)
            removed.append(child)
            continue
        if not child.name.startswith(INCOMING_PREFIX) or not child.is_dir():
            continue
        lock = child / ".lock"
        if lock.exists():
            try:
                with open(lock, "a") as fh:
                    if not lock_file(fh):
                        continue  # a live installer owns it
            except OSError:
                continue
        elif time.time() - child.stat().st_mtime < _STALE_UNLOCKED_S:
            continue  # just created; its lock may not exist yet
        shutil.rmtree(child, ignore_errors=True)
        removed.append(child)
    return removed


def verify_folder(folder: Path, progress: StageProgress | None = None) -> mf.Manifest:
    manifest = mf.load_manifest(folder)
    total = sum(e.size for e in manifest.files.values())
    done = 0
    start = time.monotonic()

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            elapsed = time.monotonic() - start
            progress("verifying", done, total, done / elapsed if elapsed > 0 else 0.0)

    mf.verify(manifest, check_hashes=True, progress=tick)
    return manifest


def source_file(folder: Path, rel: str) -> Path:
    """The real file behind `rel` in a folder being imported; refused when a link leads outside the folder.

    Imports copy what a path resolves to: a link (of the file, or of a folder on
    its way) to `~/.ssh/id_rsa` would otherwise install that file as part of a
    model. A link that stays inside the folder is fine and is installed as a copy.
    """
    path = folder / rel
    target = path.resolve()
    if not target.is_relative_to(folder.resolve()):
        raise ModelError(messages.LINK_OUTSIDE, path=path, target=target)
    if not target.is_file():
        raise ModelError(messages.FILE_MISSING, folder=folder, file=rel)
    return target


def copy_listed(
    src: Path, dst: Path, manifest: mf.Manifest, progress: StageProgress | None, cancel: threading.Event | None
) -> None:
    """Copy the manifest and the files it lists (nothing else) from `src` into the new folder `dst`."""
    entries = list(manifest.files.values())
    sources = [source_file(src, e.path) for e in entries]  # every link checked before a byte is copied
    total = sum(e.size for e in entries)
    ensure_space(models_dir(), total)
    dst.mkdir(parents=True)
    done = 0
    start = time.monotonic()
    for entry, source in zip(entries, sources):
        check_cancel(cancel)
        target = dst / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        done += entry.size
        if progress is not None:
            elapsed = time.monotonic() - start
            progress("copying", done, total, done / elapsed if elapsed > 0 else 0.0)
    shutil.copyfile(source_file(src, mf.MANIFEST_NAME), dst / mf.MANIFEST_NAME)
