"""The model folder contract: `manifest.json` and the files it lists.

A Tingji model is a folder. `manifest.json` names every file the engine loads
with its SHA-256 and size, so that a half-copied or tampered model is refused
before ONNX Runtime or llama.cpp ever parse it, and it carries every number the
engine must agree on with the exporter (window length, front-end settings,
prompt pieces, special tokens). Nothing else about a folder is assumed.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .errors import ModelError

MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 1
FAMILY = "fun-asr-nano"
# Roles a manifest may list; `encoder`, `decoder` are required.
FILE_ROLES = ("encoder", "encoder_fixed", "ctc", "decoder", "tokens")
REQUIRED_ROLES = ("encoder", "decoder")


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
    """What `manifest.json` holds; `extra` keeps keys this version does not know."""

    folder: Path
    family: str
    files: dict[str, FileEntry]
    window_seconds: float
    window_frames: int
    frontend: dict[str, Any]
    prompt: dict[str, Any]
    special_tokens: dict[str, Any]
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
                "prompt": self.prompt,
                "special_tokens": self.special_tokens,
                "source": self.source,
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


def load_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """Read and sanity-check a model folder's manifest (hashes are checked by `verify`)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(f"{folder}: model folder not found")
    path = folder / MANIFEST_NAME
    if not path.is_file():
        raise ModelError(f"{folder}: not a Tingji model folder (no {MANIFEST_NAME})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: manifest is not a JSON object")
    if data.get("family") != FAMILY:
        raise ModelError(f"{path}: unsupported model family {data.get('family')!r}")
    if int(data.get("format", 0)) > FORMAT_VERSION:
        raise ModelError(f"{path}: made by a newer Tingji (format {data.get('format')}); update Tingji")
    files: dict[str, FileEntry] = {}
    for role, entry in (data.get("files") or {}).items():
        try:
            rel = str(entry["path"])
            files[role] = FileEntry(path=rel, sha256=str(entry["sha256"]).lower(), size=int(entry["size"]))
        except (KeyError, TypeError, ValueError):
            raise ModelError(f"{path}: bad entry for file {role!r}") from None
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise ModelError(f"{path}: file {role!r} points outside the model folder")
    for role in REQUIRED_ROLES:
        if role not in files:
            raise ModelError(f"{path}: manifest lists no {role} file")
    known = {"format", "family", "files", "window_seconds", "window_frames", "frontend",
             "prompt", "special_tokens", "source"}
    try:
        return Manifest(
            folder=folder,
            family=data["family"],
            files=files,
            window_seconds=float(data["window_seconds"]),
            window_frames=int(data["window_frames"]),
            frontend=dict(data["frontend"]),
            prompt=dict(data["prompt"]),
            special_tokens=dict(data["special_tokens"]),
            source=dict(data.get("source") or {}),
            extra={k: v for k, v in data.items() if k not in known},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{path}: incomplete manifest (missing or bad {exc})") from None


def save_manifest(manifest: Manifest) -> Path:
    """Write atomically: a crash mid-write must not leave a torn manifest."""
    path = manifest.folder / MANIFEST_NAME
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def verify(manifest: Manifest, *, check_hashes: bool = True,
           progress: Callable[[int], None] | None = None) -> None:
    """Raise ModelError unless every listed file exists with the recorded size (and hash)."""
    for role, entry in manifest.files.items():
        path = manifest.folder / entry.path
        if not path.is_file():
            raise ModelError(f"{manifest.folder}: {role} file {entry.path} is missing")
        size = path.stat().st_size
        if size != entry.size:
            raise ModelError(
                f"{manifest.folder}: {role} file {entry.path} has {size} bytes, expected {entry.size}"
            )
        if check_hashes and sha256_file(path, progress) != entry.sha256:
            raise ModelError(f"{manifest.folder}: {role} file {entry.path} fails its SHA-256 check")
