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
reads (prompt pieces, special tokens, graph details). The family declares its
file roles (`FILE_ROLES`, `REQUIRED_FILES`), its front-end (`FRONTEND`) and its
section (`SECTION`) as frozen dataclasses (and, for a model that takes no
audio, its `WINDOW` instead of `Window`), read strictly (`schema.py`): an
unknown or misspelled key, a missing one, a wrong type or a value out of range
is one coded error naming the key. Top-level keys this version does not know
are kept (`extra`), so a manifest survives a round trip through an older Tingji.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from types import ModuleType
from typing import Any

from .. import atomic
from ..errors import ModelError
from . import messages, schema

MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 2
# Format 1 kept the Fun-ASR-Nano settings at the top level; they are its section now.
_V1_SECTION_KEYS = ("prompt", "special_tokens", "encoder", "decoder", "ctc")
_CORE_KEYS = {"format", "family", "files", "window_seconds", "window_frames", "frontend", "source"}
_MORE_DATA = re.compile(r"(.+_data)_[0-9]+")  # a graph's second, third... weights file


@dataclass(frozen=True)
class FileEntry:
    """One file of a model: where it is (relative to the folder) and what it must hash to."""

    path: str
    sha256: str
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "size": self.size}


@dataclass(frozen=True)
class Window:
    """How long a window the model takes: the pipeline cuts there; the fixed DirectML shape is its frames."""

    window_seconds: float = schema.entry(above=0)
    window_frames: int = schema.entry(min=1)


@dataclass
class Manifest:
    """What `manifest.json` holds: the common core, the family's section, and unknown keys.

    `frontend` and `section` are the family's dataclasses (its module's
    `FRONTEND` and `SECTION`), read strictly by `load_manifest` and written
    back as they are (`dataclasses.asdict`).
    """

    folder: Path
    family: str
    files: dict[str, FileEntry]
    window_seconds: float
    window_frames: int
    frontend: Any  # the family's FRONTEND dataclass (engine.frontend.FrontendConfig, engine.mel.MelConfig)
    section: Any = None  # the family's SECTION dataclass: its own settings
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
                "frontend": asdict(self.frontend),
                "source": self.source,
                self.family: asdict(self.section),
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


def _files(path: Path, raw: Any, module: ModuleType) -> dict[str, FileEntry]:
    if not isinstance(raw, dict):
        raise ModelError(messages.NO_FILES, path=path)
    files: dict[str, FileEntry] = {}
    for role, entry in raw.items():
        if not known_role(role, module.FILE_ROLES):
            raise ModelError(
                messages.UNKNOWN_ROLE, path=path, role=role, family=module.FAMILY, known=", ".join(module.FILE_ROLES)
            )
        try:
            rel = str(entry["path"])
            files[role] = FileEntry(path=rel, sha256=str(entry["sha256"]).lower(), size=int(entry["size"]))
        except (KeyError, TypeError, ValueError):
            raise ModelError(messages.BAD_FILE_ENTRY, path=path, role=role) from None
        if not is_safe_relative(rel):
            raise ModelError(messages.FILE_OUTSIDE, path=path, role=role, rel=rel)
    for role in module.REQUIRED_FILES:
        if role not in files:
            raise ModelError(messages.NO_ROLE_FILE, path=path, role=role)
    return files


def known_role(role: str, roles: tuple[str, ...]) -> bool:
    """A role of `roles`, or a further weights file of one ("encoder_data_2" beside "encoder_data")."""
    more = _MORE_DATA.fullmatch(role)
    return role in roles or (more is not None and more.group(1) in roles)


def load_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """Read and check a model folder's manifest (hashes are checked by `verify`).

    Also checks the family is one this Tingji knows, that every file role is
    one it uses and the files it cannot run without are listed, and reads
    the window, `frontend` and the family's section strictly (`schema.parse`):
    a damaged manifest is one coded error naming the key, before anything loads.
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
    files = _files(path, data.get("files"), module)
    if version == 1:
        raw_section, where = {k: data[k] for k in _V1_SECTION_KEYS if k in data}, ""
        known = _CORE_KEYS | set(_V1_SECTION_KEYS)
    else:
        raw_section, where = data.get(family), family
        if not isinstance(raw_section, dict):
            raise ModelError(messages.NO_SECTION, path=path, family=family)
        known = _CORE_KEYS | {family}
    window_keys = {k: data[k] for k in ("window_seconds", "window_frames") if k in data}
    window = schema.parse(getattr(module, "WINDOW", Window), window_keys, path=path)
    if "frontend" not in data:
        raise ModelError(messages.MISSING_KEY, path=path, key="frontend")
    frontend = schema.parse(module.FRONTEND, data["frontend"], path=path, key="frontend")
    section = schema.parse(module.SECTION, raw_section, path=path, key=where)
    try:
        section.check_frontend(frontend)
    except schema.Invalid as exc:
        raise ModelError(exc.message, path=path, key=schema.join(where, exc.name), **exc.fields) from None
    source = data.get("source") or {}
    if not isinstance(source, dict):
        raise ModelError(messages.KEY_NOT_OBJECT, path=path, key="source", value=schema.shown(source))
    return Manifest(
        folder=folder,
        family=family,
        files=files,
        window_seconds=window.window_seconds,
        window_frames=window.window_frames,
        frontend=frontend,
        section=section,
        source=dict(source),
        extra={k: v for k, v in data.items() if k not in known},
    )


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
