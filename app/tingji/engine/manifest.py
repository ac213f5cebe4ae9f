"""The model folder contract: `manifest.json` and the files it lists.

A Tingji model is a folder. `manifest.json` names every file the engine loads
with its SHA-256 and size, so that a half-copied or tampered model is refused
before ONNX Runtime or llama.cpp ever parse it. It has a common core that the
pipeline and the model manager understand for every family:

    format          2 (format 1 folders, written before families existed, still load)
    family          which engine.families module runs it ("fun-asr-nano", ...)
    files           role -> {path, sha256, size}; paths relative, inside the folder
    window_seconds  the longest window the model is given (the pipeline cuts there)
    window_frames   the encoder's input rows for a full window (the fixed DirectML shape)
    frontend        the feature settings the exporter read from the checkpoint
    source          where the model came from (checkpoint hash, folder name)

and one section named after the family holding everything only that family
reads (prompt pieces, special tokens, graph details). Keys this version does
not know are kept (`extra`), so a manifest survives a round trip through an
older Tingji.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from .. import atomic
from ..errors import ModelError
from . import messages

MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 2
# Format 1 kept the Fun-ASR-Nano settings at the top level; they are its section now.
_V1_SECTION_KEYS = ("prompt", "special_tokens", "encoder", "decoder", "ctc")
_CORE_KEYS = {"format", "family", "files", "window_seconds", "window_frames", "frontend", "source"}


@dataclass(frozen=True)
class FileEntry:
    """One file of a model: where it is (relative to the folder) and what it must hash to."""

    path: str
    sha256: str
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "size": self.size}


@dataclass
class Manifest:
    """What `manifest.json` holds: the common core, the family's section, and unknown keys."""

    folder: Path
    family: str
    files: dict[str, FileEntry]
    window_seconds: float
    window_frames: int
    frontend: dict[str, Any]
    section: dict[str, Any] = field(default_factory=dict)  # the family's own settings
    source: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def file(self, role: str) -> Path | None:
        """Absolute path of a listed file, or None when the model lacks that role."""
        entry = self.files.get(role)
        return None if entry is None else self.folder / entry.path

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.extra)
        data.update(
            {
                "format": FORMAT_VERSION,
                "family": self.family,
                "files": {role: e.to_dict() for role, e in self.files.items()},
                "window_seconds": self.window_seconds,
                "window_frames": self.window_frames,
                "frontend": self.frontend,
                "source": self.source,
                self.family: self.section,
            }
        )
        return data


def sha256_file(path: str | os.PathLike[str], progress: Callable[[int], None] | None = None) -> str:
    """Hash in 1 MiB blocks so multi-GB files never sit in memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(1 << 20)
            if not block:
                break
            digest.update(block)
            if progress is not None:
                progress(len(block))
    return digest.hexdigest()


def file_entry(folder: Path, path: Path) -> FileEntry:
    """Describe a file that already sits inside `folder`."""
    rel = path.resolve().relative_to(folder.resolve()).as_posix()
    return FileEntry(path=rel, sha256=sha256_file(path), size=path.stat().st_size)


# Names Windows reserves in every folder (with any extension): a model file must not be one.
_WINDOWS_RESERVED = re.compile(r"(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$")


def is_safe_relative(rel: str) -> bool:
    """True when `rel` names a place inside the folder under POSIX *and* Windows rules.

    A model folder made on one system is installed on another, so a path is
    judged by the stricter reading of both: no absolute or root-relative path
    (`/x`, `\\x`), no drive (`C:x` is relative to the current folder of drive
    C, not to the model folder), no UNC share, no `..`, no `:` anywhere (NTFS
    alternate data streams), no names Windows reserves, no control characters.
    """
    if not rel or any(ord(ch) < 32 for ch in rel) or ":" in rel:
        return False
    if PurePosixPath(rel).is_absolute() or rel.startswith(("/", "\\")):
        return False
    win = PureWindowsPath(rel)
    if win.drive or win.root or win.is_absolute():
        return False
    for part in win.parts:  # split on both / and \\
        if part == ".":
            continue
        if part == ".." or _WINDOWS_RESERVED.match(part) or part != part.rstrip(" ."):
            return False  # Windows drops trailing dots and spaces: "a.onnx." is "a.onnx"
    return True


def _format_version(path: Path, value: Any) -> int:
    """The manifest's format number; anything but a whole number is a one-line error."""
    if value is None:
        return 1  # format 1 folders written before the key existed
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(messages.FORMAT_UNKNOWN, path=path, value=repr(value))
    if value > FORMAT_VERSION:
        raise ModelError(messages.FORMAT_NEWER, path=path, value=value)
    if value < 1:
        raise ModelError(messages.FORMAT_UNKNOWN, path=path, value=repr(value))
    return value


def _files(path: Path, raw: Any) -> dict[str, FileEntry]:
    if not isinstance(raw, dict):
        raise ModelError(messages.NO_FILES, path=path)
    files: dict[str, FileEntry] = {}
    for role, entry in raw.items():
        try:
            rel = str(entry["path"])
            files[role] = FileEntry(path=rel, sha256=str(entry["sha256"]).lower(), size=int(entry["size"]))
        except (KeyError, TypeError, ValueError):
            raise ModelError(messages.BAD_FILE_ENTRY, path=path, role=role) from None
        if not is_safe_relative(rel):
            raise ModelError(messages.FILE_OUTSIDE, path=path, role=role, rel=rel)
    return files


def load_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """Read and sanity-check a model folder's manifest (hashes are checked by `verify`).

    Also checks the family is one this Tingji knows and that the manifest
    lists the files that family cannot run without, so a model manager can
    refuse a folder without loading it.
    """
    from .families import family_module

    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(messages.FOLDER_NOT_FOUND, folder=folder)
    path = folder / MANIFEST_NAME
    if not path.is_file():
        raise ModelError(messages.NO_MANIFEST, folder=folder)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(messages.MANIFEST_UNREADABLE, path=path, reason=str(exc)) from None
    if not isinstance(data, dict):
        raise ModelError(messages.MANIFEST_NOT_OBJECT, path=path)
    version = _format_version(path, data.get("format"))
    family = data.get("family")
    if not isinstance(family, str):
        raise ModelError(messages.NO_FAMILY, path=path)
    module = family_module(family, path)
    files = _files(path, data.get("files"))
    for role in module.REQUIRED_FILES:
        if role not in files:
            raise ModelError(messages.NO_ROLE_FILE, path=path, role=role)
    if version == 1:
        section = {k: data[k] for k in _V1_SECTION_KEYS if k in data}
        known = _CORE_KEYS | set(_V1_SECTION_KEYS)
    else:
        section = data.get(family)
        if not isinstance(section, dict):
            raise ModelError(messages.NO_SECTION, path=path, family=family)
        known = _CORE_KEYS | {family}
    try:
        return Manifest(
            folder=folder,
            family=family,
            files=files,
            window_seconds=float(data["window_seconds"]),
            window_frames=int(data["window_frames"]),
            frontend=dict(data["frontend"]),
            section=dict(section),
            source=dict(data.get("source") or {}),
            extra={k: v for k, v in data.items() if k not in known},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(messages.INCOMPLETE, path=path, key=str(exc)) from None


def save_manifest(manifest: Manifest) -> Path:
    """Write atomically and durably: a crash mid-write must not leave a torn manifest."""
    return atomic.write_text(
        manifest.folder / MANIFEST_NAME, json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n"
    )


def verify(manifest: Manifest, *, check_hashes: bool = True, progress: Callable[[int], None] | None = None) -> None:
    """Raise ModelError unless every listed file exists with the recorded size (and hash)."""
    for role, entry in manifest.files.items():
        path = manifest.folder / entry.path
        if not path.is_file():
            raise ModelError(messages.FILE_MISSING, folder=manifest.folder, role=role, file=entry.path)
        size = path.stat().st_size
        if size != entry.size:
            raise ModelError(
                messages.FILE_SIZE, folder=manifest.folder, role=role, file=entry.path, size=size, expected=entry.size
            )
        if check_hashes and sha256_file(path, progress) != entry.sha256:
            raise ModelError(messages.FILE_HASH, folder=manifest.folder, role=role, file=entry.path)
