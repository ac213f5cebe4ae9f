"""Known downloadable models: `assets/models.json` plus the user's overrides.

The built-in catalog lists where each model can be fetched and, where known,
the size and SHA-256 of every file. A file without a published hash (null)
cannot be checked when it is downloaded, and the user is told so
(`CatalogModel.hashes`). Once a download of it has installed a model that
verified completely, its hash is *pinned* in `catalog-overrides.json` under the
data folder and later downloads are held to it (trust on first use); never
earlier, so one bad response cannot lock a model out. `Catalog.forget_pins`
drops a model's pins (`tingji models forget-pin`, the model manager's button).
A pin never replaces a value the built-in catalog already has.

The overrides file may also add or replace whole entries (`"models": [...]`).
`TINGJI_CATALOG` (or the `path` argument) points at another catalog file
instead of the built-in one; the test suite uses that to aim at a local server.

Catalog format (format 1)::

    {"format": 1, "models": [{
        "name": "fun-asr-nano-2512",            # folder name once installed
        "kind": "official-checkpoint",          # or "peer-release", "tingji-model"
        "title": "...", "description": "...", "homepage": "https://...",
        "mirrors": ["https://host/repo/resolve/main/{path}", ...],  # per-file URLs
        "archives": [{"name": "x.zip", "urls": [...], "size": null, "sha256": null}],
        "files": [{"path": "config.yaml", "size": null, "sha256": null},
                  {"any_of": [{"path": "a.int4.onnx", ...}, {"path": "a.fp32.onnx", ...}]}],
        "export": {"decoder_quant": "f16"},     # official-checkpoint only: conversion options
        "companions": ["ct-punc-zh"],           # catalog models installed with it, when not installed yet
        "about": {"family": "fun-asr-nano", ...}  # what the model picker shows (models/about.py)
    }]}

`{path}` in a mirror is the file's relative path URL-quoted with `/` kept;
`{path_q}` is quoted completely (for `?FilePath=` style APIs). Archives, when
listed, are tried before per-file mirrors; the extracted archive must hold one
of each file choice. Mirrors are tried in their order, and one install takes
every file from one mirror (`store`): two mirrors may hold different copies of
a release (Fun-ASR-Nano's model.pt on Hugging Face lacks the CTC head that
ModelScope's has), and a mix of the two is neither.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import ModelError
from ..paths import catalog_overrides_path
from . import messages
from .about import ModelAbout, parse_about

CATALOG_ENV = "TINGJI_CATALOG"
KINDS = ("official-checkpoint", "peer-release", "tingji-model")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_PIN_LOCK = threading.Lock()
#: What an official-checkpoint entry may say about its conversion (`export_model` keywords).
EXPORT_OPTIONS: dict[str, type] = {"precision": str, "decoder_quant": str, "fixed": bool}


@dataclass(frozen=True)
class CatalogFile:
    path: str
    sha256: str | None
    size: int | None
    pinned: bool = False  # the hash is the user's pin, not the catalog's

    @property
    def key(self) -> str:
        return "file:" + self.path


@dataclass(frozen=True)
class FileChoice:
    """One required file; the first of `options` that a source has is used."""

    options: tuple[CatalogFile, ...]

    @property
    def label(self) -> str:
        return " or ".join(o.path for o in self.options)


@dataclass(frozen=True)
class CatalogArchive:
    name: str
    urls: tuple[str, ...]
    sha256: str | None
    size: int | None
    pinned: bool = False  # the hash is the user's pin, not the catalog's

    @property
    def key(self) -> str:
        return "archive:" + self.name


@dataclass(frozen=True)
class HashCount:
    """How many of an entry's downloads can be checked, and against what."""

    total: int  # archives and file options listed
    pinned: int  # hashes the user's first download pinned (trust on first use)
    missing: int  # no hash at all: such a download cannot be checked

    @property
    def state(self) -> str:
        """ "published" (all from the catalog), "pinned" (some from pins, none missing) or "missing"."""
        return "missing" if self.missing else "pinned" if self.pinned else "published"


@dataclass(frozen=True)
class CatalogModel:
    name: str
    kind: str
    title: str
    description: str
    homepage: str
    files: tuple[FileChoice, ...]
    mirrors: tuple[str, ...]
    archives: tuple[CatalogArchive, ...]
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    about: ModelAbout | None = None  # size, languages, speed, best uses: what the model picker shows

    def urls_for(self, path: str) -> list[str]:
        """The per-file mirror URLs of `path`, in order."""
        return [mirror_url(m, path) for m in self.mirrors]

    @property
    def export_options(self) -> dict[str, Any]:
        """How an official checkpoint is converted (`"export": {...}` in the entry), e.g. decoder_quant."""
        return dict(self.extra.get("export") or {})

    @property
    def companions(self) -> tuple[str, ...]:
        """Catalog models installed with this one (`"companions": [...]`): the punctuation model of a
        model that writes none."""
        return tuple(self.extra.get("companions") or ())

    @property
    def hashes(self) -> HashCount:
        listed = [*self.archives, *(o for c in self.files for o in c.options)]
        return HashCount(len(listed), sum(1 for x in listed if x.pinned), sum(1 for x in listed if x.sha256 is None))

    @property
    def known_size(self) -> int | None:
        """Total download size when every first-choice file's size is known."""
        sizes = [c.options[0].size for c in self.files]
        if not sizes or any(s is None for s in sizes):
            return None
        return sum(sizes)  # type: ignore[arg-type]


def mirror_url(mirror: str, path: str) -> str:
    """One mirror's URL of the file `path` (the mirror's `{path}` or `{path_q}` filled in)."""
    return mirror.replace("{path}", quote(path, safe="/")).replace("{path_q}", quote(path, safe=""))


class Catalog:
    """Catalog entries by name, with the overrides file it pins hashes into."""

    def __init__(self, models: dict[str, CatalogModel], overrides_path: Path, source: str) -> None:
        self.models = models
        self.overrides_path = overrides_path
        self.source = source

    def __iter__(self) -> Iterator[CatalogModel]:
        return iter(sorted(self.models.values(), key=lambda m: m.name))

    def names(self) -> list[str]:
        return sorted(self.models)

    def get(self, name: str) -> CatalogModel:
        try:
            return self.models[name]
        except KeyError:
            known = ", ".join(self.names()) or "none"
            raise ModelError(messages.UNKNOWN_CATALOG_MODEL, name=name, known=known) from None

    def pin(self, model: str, learned: dict[str, tuple[str, int]]) -> None:
        """Record hashes a download learned (key -> (sha256, size)) in the overrides file.

        Call this only once the model they belong to has verified and installed:
        a pin is trusted from then on."""
        if not learned:
            return
        with _PIN_LOCK:
            data = _read_overrides(self.overrides_path)
            pins = data.setdefault("pins", {}).setdefault(model, {})
            for key, (sha256, size) in learned.items():
                pins[key] = {"sha256": sha256, "size": int(size)}
            data.setdefault("format", 1)
            _write_json(self.overrides_path, data)

    def forget_pins(self, model: str) -> dict[str, str]:
        """Drop the hashes pinned for `model` (key -> sha256 forgotten); its next download pins anew."""
        self.get(model)
        with _PIN_LOCK:
            data = _read_overrides(self.overrides_path)
            pins = data.get("pins") or {}
            forgotten = pins.pop(model, None) or {}
            if forgotten:
                _write_json(self.overrides_path, data)
        return {key: str(pin.get("sha256")) for key, pin in forgotten.items() if isinstance(pin, dict)}


def builtin_catalog_path() -> Path:
    """`models.json` shipped as `tingji.assets`, or the repository's assets/ folder."""
    try:
        from importlib.resources import files

        resource = files("tingji.assets").joinpath("models.json")
        if resource.is_file():
            return Path(str(resource))
    except (ImportError, ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parents[3] / "assets" / "models.json"


def load_catalog(path: str | os.PathLike[str] | None = None) -> Catalog:
    """The catalog (built-in, `TINGJI_CATALOG` or `path`) with the user's overrides applied."""
    chosen = (
        Path(path)
        if path is not None
        else (Path(os.environ[CATALOG_ENV]) if os.environ.get(CATALOG_ENV) else builtin_catalog_path())
    )
    try:
        data = json.loads(chosen.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(messages.CATALOG_NOT_FOUND, path=chosen) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(messages.CATALOG_UNREADABLE, path=chosen, reason=str(exc)) from None
    entries = _entries(chosen, data)
    over_path = catalog_overrides_path()
    overrides = _read_overrides(over_path)
    for name, raw in _entries(over_path, overrides).items():
        entries[name] = raw
    pins = overrides.get("pins") or {}
    models = {name: _parse_model(chosen, raw, pins.get(name) or {}) for name, raw in entries.items()}
    return Catalog(models, over_path, str(chosen))


def _entries(where: Path, data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        raise ModelError(messages.CATALOG_NOT_OBJECT, path=where)
    if int(data.get("format", 1)) > 1:
        raise ModelError(messages.CATALOG_NEWER, path=where, format=data.get("format"))
    out: dict[str, dict[str, Any]] = {}
    for raw in data.get("models") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise ModelError(messages.CATALOG_ENTRY_NO_NAME, path=where)
        out[raw["name"]] = raw
    return out


def _read_overrides(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(messages.OVERRIDES_UNREADABLE, path=path, reason=str(exc)) from None
    if not isinstance(data, dict):
        raise ModelError(messages.OVERRIDES_NOT_OBJECT, path=path)
    return data


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write-and-rename, flushed first: a crash leaves the old file or the new one, never a torn one
    (an unreadable overrides file stops every catalog download until the user fixes it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _hash_or_none(where: Path, name: str, value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    if not _HEX64.match(text):
        raise ModelError(messages.CATALOG_BAD_HASH, path=where, name=name, value=repr(value))
    return text


def _size_or_none(where: Path, name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ModelError(messages.CATALOG_BAD_SIZE, path=where, name=name, value=repr(value))
    return value


def _pinned(
    where: Path, name: str, key: str, sha: str | None, size: int | None, pins: dict[str, Any]
) -> tuple[str | None, int | None, bool]:
    """The catalog's hash and size, else the user's pin; and whether the hash is a pin."""
    pin = pins.get(key)
    pinned = False
    if isinstance(pin, dict):
        if sha is None:
            sha = _hash_or_none(where, name, pin.get("sha256"))
            pinned = sha is not None
        if size is None:
            size = _size_or_none(where, name, pin.get("size"))
    return sha, size, pinned


def _safe_rel(where: Path, name: str, path: Any) -> str:
    if not isinstance(path, str) or not path:
        raise ModelError(messages.CATALOG_NO_FILE_PATH, path=where, name=name)
    parts = path.replace("\\", "/").split("/")
    if path.startswith(("/", "\\")) or ":" in path or any(p in ("", ".", "..") for p in parts):
        raise ModelError(messages.CATALOG_UNSAFE_PATH, path=where, name=name, file=path)
    return "/".join(parts)


def _hashes(
    where: Path, name: str, key: str, spec: dict[str, Any], pins: dict[str, Any]
) -> tuple[str | None, int | None, bool]:
    """A file's or archive's SHA-256 and size: the catalog's, else what a first download pinned (then True)."""
    sha = _hash_or_none(where, name, spec.get("sha256"))
    size = _size_or_none(where, name, spec.get("size"))
    return _pinned(where, name, key, sha, size, pins)


def _parse_files(where: Path, name: str, raw: dict[str, Any], pins: dict[str, Any]) -> list[FileChoice]:
    """An entry's `files`: each a file, or `any_of` several (the first a source has is used)."""

    def one_file(spec: Any) -> CatalogFile:
        if not isinstance(spec, dict):
            raise ModelError(messages.CATALOG_BAD_FILE_ENTRY, path=where, name=name, entry=repr(spec))
        path = _safe_rel(where, name, spec.get("path"))
        return CatalogFile(path, *_hashes(where, name, "file:" + path, spec, pins))

    files: list[FileChoice] = []
    for spec in raw.get("files") or []:
        if isinstance(spec, dict) and "any_of" in spec:
            options = tuple(one_file(o) for o in spec["any_of"] or [])
            if not options:
                raise ModelError(messages.CATALOG_EMPTY_ANY_OF, path=where, name=name)
            files.append(FileChoice(options))
        else:
            files.append(FileChoice((one_file(spec),)))
    return files


def _parse_archives(where: Path, name: str, raw: dict[str, Any], pins: dict[str, Any]) -> list[CatalogArchive]:
    archives: list[CatalogArchive] = []
    for spec in raw.get("archives") or []:
        if not isinstance(spec, dict) or not spec.get("urls"):
            raise ModelError(messages.CATALOG_ARCHIVE_NO_URLS, path=where, name=name)
        aname = _safe_rel(where, name, spec.get("name"))
        urls = tuple(str(u) for u in spec["urls"])
        archives.append(CatalogArchive(aname, urls, *_hashes(where, name, "archive:" + aname, spec, pins)))
    return archives


def _parse_model(where: Path, raw: dict[str, Any], pins: dict[str, Any]) -> CatalogModel:
    name = raw["name"]
    if not NAME_RE.match(name):
        raise ModelError(messages.CATALOG_BAD_MODEL_NAME, path=where, name=name)
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ModelError(messages.CATALOG_UNKNOWN_KIND, path=where, name=name, kind=repr(kind))
    files = _parse_files(where, name, raw, pins)
    archives = _parse_archives(where, name, raw, pins)
    mirrors = tuple(str(m) for m in raw.get("mirrors") or [])
    if mirrors and any("{path" not in m for m in mirrors):
        raise ModelError(messages.CATALOG_MIRROR_NO_PLACEHOLDER, path=where, name=name)
    if not files:
        raise ModelError(messages.CATALOG_NO_FILES, path=where, name=name)
    if not mirrors and not archives:
        raise ModelError(messages.CATALOG_NO_LOCATION, path=where, name=name)
    export = raw.get("export")
    if export is not None:
        if not isinstance(export, dict) or not set(export) <= set(EXPORT_OPTIONS):
            raise ModelError(messages.CATALOG_EXPORT_KEYS, path=where, name=name, keys=", ".join(EXPORT_OPTIONS))
        for key, value in export.items():
            if not isinstance(value, EXPORT_OPTIONS[key]):
                raise ModelError(messages.CATALOG_EXPORT_OPTION, path=where, name=name, key=key, value=repr(value))
    companions = raw.get("companions")
    if companions is not None and (
        not isinstance(companions, list) or not all(isinstance(c, str) and NAME_RE.match(c) for c in companions)
    ):
        raise ModelError(messages.CATALOG_COMPANIONS, path=where, name=name)
    known = {"name", "kind", "title", "description", "homepage", "files", "mirrors", "archives", "about"}
    return CatalogModel(
        name=name,
        kind=kind,
        title=str(raw.get("title") or name),
        description=str(raw.get("description") or ""),
        homepage=str(raw.get("homepage") or ""),
        files=tuple(files),
        mirrors=mirrors,
        archives=tuple(archives),
        extra={k: v for k, v in raw.items() if k not in known},
        about=parse_about(where, name, raw.get("about")),
    )
