"""Installed models: list, resolve, install, import, verify, remove.

Installed models are folders under `paths.models_dir()`, one per name, each a
Tingji model folder (manifest.json plus the files it lists).

Every install is assembled in `models_dir()/.incoming-<name>-<random>/` and
appears under its name only through one atomic rename, after everything was
downloaded, converted and verified. A crash therefore leaves only
`.incoming-*` folders: `list_models` ignores them and `cleanup_incoming` (run
before every install) deletes those no live installer holds a lock on.
Downloads themselves go to `data_dir()/cache/` so an interrupted download
resumes on the next try.

`progress` callbacks here take `(stage, done, total, bytes_per_second)`: `stage`
is a short text such as "model.pt (3/9)", "extracting", "converting",
"verifying"; `total` may be None when unknown.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import shutil
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from ..engine import manifest as mf
from ..engine.errors import Cancelled, ModelError
from ..paths import data_dir, models_dir
from . import archive
from .catalog import NAME_RE, Catalog, CatalogArchive, CatalogModel, load_catalog
from .download import NotFound, download, ensure_space

StageProgress = Callable[[str, int, "int | None", float], None]
EXPORT_HINT = 'pip install "tingji[export]"'
INCOMING_PREFIX = ".incoming-"
REMOVING_PREFIX = ".removing-"
_STALE_UNLOCKED_S = 60.0


@dataclass(frozen=True)
class InstalledModel:
    name: str
    path: Path
    size: int
    manifest_ok: bool  # manifest readable and every file present with its size (hashes: `verify`)
    problem: str | None = None


@dataclass(frozen=True)
class InstallResult:
    name: str
    path: Path
    sha256: str | None = None  # of the downloaded archive (install_from_url)
    pinned: dict[str, str] = field(default_factory=dict)  # hashes learned now: show them to the user


# ---------------------------------------------------------------- helpers


def validate_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ModelError(
            f"bad model name {name!r}: use letters, digits, '.', '_' or '-' (at most 64, not starting with '.')"
        )
    return name


def _installed_names() -> list[str]:
    return sorted(c.name for c in models_dir().iterdir() if c.is_dir() and not c.name.startswith("."))


def _no_such_model(name: str) -> ModelError:
    names = _installed_names()
    if names:
        return ModelError(f"no model named {name}; installed: {', '.join(names)} (see `tingji models list`)")
    return ModelError(f"no model named {name}; no models are installed (see `tingji models list`)")


def _installed_path(name: str) -> Path:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise _no_such_model(str(name))
    path = models_dir() / name
    if not path.is_dir():
        raise _no_such_model(name)
    return path


def _ensure_free_name(name: str) -> None:
    if (models_dir() / name).exists():
        raise ModelError(f"a model named {name} is already installed (remove it first: `tingji models remove {name}`)")


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def _stage(progress: StageProgress | None, label: str) -> Callable[[int, int | None, float], None] | None:
    if progress is None:
        return None
    return lambda done, total, bps: progress(label, done, total, bps)


def _lock_file(fh: Any) -> bool:
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


class _Staging:
    """`.incoming-<name>-<random>/`, locked while this installer lives, removed on exit."""

    def __init__(self, name: str) -> None:
        self.dir = models_dir() / f"{INCOMING_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
        self.model = self.dir / "model"
        self.name = name
        self._lock: Any = None

    def __enter__(self) -> "_Staging":
        self.dir.mkdir()
        self._lock = open(self.dir / ".lock", "w")
        _lock_file(self._lock)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            self._lock.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def commit(self, folder: Path, progress: StageProgress | None = None) -> Path:
        """Verify `folder` (inside the staging dir) fully, then rename it into place."""
        _verify_folder(folder, progress)
        final = models_dir() / self.name
        _ensure_free_name(self.name)
        try:
            os.replace(folder, final)
        except OSError as exc:
            raise ModelError(f"cannot install {self.name} into {final}: {exc.strerror or exc}") from None
        return final


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
                    if not _lock_file(fh):
                        continue  # a live installer owns it
            except OSError:
                continue
        elif time.time() - child.stat().st_mtime < _STALE_UNLOCKED_S:
            continue  # just created; its lock may not exist yet
        shutil.rmtree(child, ignore_errors=True)
        removed.append(child)
    return removed


def _verify_folder(folder: Path, progress: StageProgress | None = None) -> mf.Manifest:
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


def _missing_export_extra(exc: ModuleNotFoundError) -> bool:
    """True when a third-party module (torch, onnx, ...) is what is missing."""
    return bool(exc.name) and not str(exc.name).startswith("tingji")


def _peer_manifest(src: Path, out: Path, progress: StageProgress | None = None,
                   cancel: threading.Event | None = None) -> Path:
    """Turn a CapsWriter / Fun-ASR-GGUF release folder into a Tingji model folder at `out`.

    Looked up on the module at call time so that tests can stand in for it.
    """
    from . import peer

    result = peer.manifest_for_peer_release(src, out, progress=progress, cancel=cancel)
    return _result_folder(result, out)


def _result_folder(result: Any, default: Path) -> Path:
    if isinstance(result, (str, os.PathLike)) and Path(result).is_dir():
        return Path(result)
    folder = getattr(result, "folder", None)
    if isinstance(folder, (str, os.PathLike)) and Path(folder).is_dir():
        return Path(folder)
    return default


def _export(src: Path, out: Path, progress: StageProgress | None = None,
            options: dict[str, Any] | None = None) -> Path:
    """Convert an official checkpoint folder with `tingji.export.export_model`.

    `out` does not exist yet; the exporter creates it (its own temporary files
    are siblings inside the staging folder). Its text progress messages become
    stages ("converting: <message>").
    """
    try:
        module = importlib.import_module("tingji.export")
        func = getattr(module, "export_model", None)
    except ModuleNotFoundError as exc:
        if _missing_export_extra(exc):
            raise ModelError(f"converting the official checkpoint needs the export extra: {EXPORT_HINT}") from None
        raise
    if func is None:
        raise ModelError("this Tingji cannot convert official checkpoints yet (tingji.export.export_model is missing)")
    kwargs = dict(options or {})
    if progress is not None:
        kwargs["progress"] = lambda message: progress(f"converting: {message}", 0, None, 0.0)
    try:
        result = func(src, out, **kwargs)
    except ModuleNotFoundError as exc:
        if _missing_export_extra(exc):
            raise ModelError(
                f"converting the official checkpoint needs the export extra ({exc.name} is missing): {EXPORT_HINT}"
            ) from None
        raise
    return _result_folder(result, out)


def _copy_listed(src: Path, dst: Path, manifest: mf.Manifest, progress: StageProgress | None,
                 cancel: threading.Event | None) -> None:
    entries = list(manifest.files.values())
    total = sum(e.size for e in entries)
    ensure_space(models_dir(), total)
    dst.mkdir(parents=True)
    done = 0
    start = time.monotonic()
    for entry in entries:
        _check_cancel(cancel)
        target = dst / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        source = src / entry.path
        if not source.is_file():
            raise ModelError(f"{src}: file {entry.path} is missing")
        shutil.copyfile(source, target)
        done += entry.size
        if progress is not None:
            elapsed = time.monotonic() - start
            progress("copying", done, total, done / elapsed if elapsed > 0 else 0.0)
    shutil.copyfile(src / mf.MANIFEST_NAME, dst / mf.MANIFEST_NAME)


def _adopt(root: Path, staging: _Staging, progress: StageProgress | None = None,
           cancel: threading.Event | None = None) -> Path:
    """A folder inside the staging dir becomes the model folder to commit."""
    if (root / mf.MANIFEST_NAME).is_file():
        mf.load_manifest(root)
        return root
    return _peer_manifest(root, staging.model, progress, cancel)


def _cache_dir(*parts: str) -> Path:
    path = data_dir().joinpath("cache", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def clear_cache() -> None:
    """Drop downloaded checkpoints and partial downloads kept for resuming."""
    shutil.rmtree(data_dir() / "cache", ignore_errors=True)


def cached_bytes(name: str) -> int:
    """Bytes kept for catalog model `name` (finished files and `.part`s): what a retry resumes from."""
    if not NAME_RE.match(name):
        return 0
    root = data_dir() / "cache" / name
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) if root.is_dir() else 0


def discard_cached(name: str) -> None:
    """Forget a catalog model's partial download (the next download starts from zero)."""
    if NAME_RE.match(name):
        shutil.rmtree(data_dir() / "cache" / name, ignore_errors=True)


@dataclass(frozen=True)
class ModelStatus:
    """One line of the model overview: an installed model, a catalog model, or both."""

    name: str
    state: str  # "installed", "broken" (files missing or wrong size), "partial" (resumable), "available"
    size: int | None  # installed size, else the catalog's download size when known
    title: str = ""
    description: str = ""
    kind: str | None = None  # catalog kind; None for a model not in the catalog
    cached: int = 0  # bytes already downloaded for a resumable download
    path: Path | None = None
    problem: str | None = None

    @property
    def installed(self) -> bool:
        return self.state in ("installed", "broken")


def overview(catalog: Catalog | None = None) -> list[ModelStatus]:
    """Installed models and downloadable ones, with resumable downloads marked; installed first."""
    rows: list[ModelStatus] = []
    listed = {m.name: m for m in list_models()}
    entries = {m.name: m for m in (catalog if catalog is not None else [])}
    for m in listed.values():
        entry = entries.get(m.name)
        rows.append(ModelStatus(
            m.name, "installed" if m.manifest_ok else "broken", m.size,
            entry.title if entry else "", entry.description if entry else "",
            entry.kind if entry else None, 0, m.path, m.problem))
    for entry in entries.values():
        if entry.name in listed:
            continue
        cached = cached_bytes(entry.name)
        rows.append(ModelStatus(entry.name, "partial" if cached else "available", entry.known_size,
                                entry.title, entry.description, entry.kind, cached))
    return rows


# ---------------------------------------------------------------- public API


def list_models() -> list[InstalledModel]:
    """Installed models by name; half-installed (`.incoming-*`) folders are not shown."""
    out: list[InstalledModel] = []
    for name in _installed_names():
        path = models_dir() / name
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        try:
            mf.verify(mf.load_manifest(path), check_hashes=False)
            ok, problem = True, None
        except ModelError as exc:
            ok, problem = False, str(exc)
        out.append(InstalledModel(name, path, size, ok, problem))
    return out


def resolve_model(name_or_dir: str | os.PathLike[str]) -> Path:
    """A model folder (with manifest.json) as given, else the installed model of that name."""
    text = os.fspath(name_or_dir)
    path = Path(text).expanduser()
    if path.is_dir() and (path / mf.MANIFEST_NAME).is_file():
        return path.resolve()
    if NAME_RE.match(text):
        installed = models_dir() / text
        if (installed / mf.MANIFEST_NAME).is_file():
            return installed
    if path.is_dir():
        raise ModelError(f"{path}: not a Tingji model folder (no {mf.MANIFEST_NAME})")
    raise _no_such_model(text)


def verify(name: str, progress: StageProgress | None = None) -> mf.Manifest:
    """Check every file of an installed model against its SHA-256; ModelError names the bad file."""
    return _verify_folder(_installed_path(name), progress)


def remove(name: str) -> None:
    """Uninstall: the folder disappears at once (rename), then is deleted."""
    path = _installed_path(name)
    trash = models_dir() / f"{REMOVING_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
    try:
        os.replace(path, trash)
    except OSError as exc:
        raise ModelError(f"cannot remove {name}: {exc.strerror or exc} (is it in use?)") from None
    shutil.rmtree(trash, ignore_errors=True)


def import_folder(src: str | os.PathLike[str], name: str | None = None, *,
                  progress: StageProgress | None = None,
                  cancel: threading.Event | None = None) -> InstallResult:
    """Install a copy of a model folder (manifest.json), or of a peer-release folder."""
    src = Path(src).expanduser()
    if not src.is_dir():
        raise ModelError(f"{src}: folder not found")
    if name is None:
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", src.resolve().name).strip(".-_") or "model"
    validate_name(name)
    _ensure_free_name(name)
    cleanup_incoming()
    with _Staging(name) as staging:
        if (src / mf.MANIFEST_NAME).is_file():
            _copy_listed(src, staging.model, mf.load_manifest(src), progress, cancel)
            folder = staging.model
        else:
            folder = _peer_manifest(src, staging.model, progress, cancel)
        _check_cancel(cancel)
        final = staging.commit(folder, progress)
    return InstallResult(name, final)


def install_from_url(url: str, sha256: str | None, name: str, *,
                     progress: StageProgress | None = None,
                     cancel: threading.Event | None = None,
                     download_options: dict[str, Any] | None = None) -> InstallResult:
    """Download one archive (.zip/.tar.*) holding a model folder and install it as `name`.

    With `sha256=None` the hash is computed and returned in the result (show it).
    """
    validate_name(name)
    _ensure_free_name(name)
    cleanup_incoming()
    base = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or "download"
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", base)[-80:]
    dest = _cache_dir("downloads") / f"{hashlib.sha256(url.encode()).hexdigest()[:12]}-{base}"
    result = download([url], dest, sha256=sha256, size=None, progress=_stage(progress, base),
                      cancel=cancel, **(download_options or {}))
    try:
        with _Staging(name) as staging:
            if not archive.is_archive(result.path):
                raise ModelError(f"{base}: not a .zip or .tar archive (a model is a folder of several files)")
            if progress is not None:
                progress("extracting", 0, None, 0.0)
            unpacked = archive.extract(result.path, staging.dir / "unpacked", cancel=cancel)
            folder = _adopt(archive.content_root(unpacked), staging, progress, cancel)
            _check_cancel(cancel)
            final = staging.commit(folder, progress)
    except (Cancelled, KeyboardInterrupt):
        raise  # keep the verified download: a retry need not fetch it again
    except BaseException:
        result.path.unlink(missing_ok=True)
        raise
    result.path.unlink(missing_ok=True)
    pinned = {} if sha256 else {base: result.sha256}
    return InstallResult(name, final, result.sha256, pinned)


def download_catalog_model(name: str, progress: StageProgress | None = None,
                           cancel: threading.Event | None = None, *,
                           catalog: Catalog | None = None, install_as: str | None = None,
                           download_options: dict[str, Any] | None = None,
                           export_options: dict[str, Any] | None = None) -> InstallResult:
    """Download a catalog model and install it (converting an official checkpoint).

    `export_options` go to `export_model` (e.g. precision="fp32", decoder_quant="f16").

    Hashes the catalog does not know are pinned on first download into the
    user's catalog overrides and returned in `InstallResult.pinned`.
    """
    catalog = catalog if catalog is not None else load_catalog()
    entry = catalog.get(name)
    target = validate_name(install_as or entry.name)
    _ensure_free_name(target)
    cleanup_incoming()
    opts = dict(download_options or {})
    pinned: dict[str, str] = {}

    if entry.kind == "official-checkpoint":
        # The checkpoint stays in the cache: a failed or repeated conversion
        # does not download it again (`clear_cache` drops it).
        src = _cache_dir(entry.name, "files")
        _fetch_files(catalog, entry, src, pinned, progress, cancel, opts)
        with _Staging(target) as staging:
            if progress is not None:
                progress("converting", 0, None, 0.0)
            options = {**entry.export_options, **(export_options or {})}
            folder = _export(src, staging.model, progress, options)
            _check_cancel(cancel)
            final = staging.commit(folder, progress)
        return InstallResult(target, final, None, pinned)

    with _Staging(target) as staging:
        src = _fetch_sources(catalog, entry, staging, pinned, progress, cancel, opts)
        if entry.kind == "peer-release" and not (src / mf.MANIFEST_NAME).is_file():
            folder = _peer_manifest(src, staging.model, progress, cancel)
        else:
            manifest = mf.load_manifest(src)
            if src.is_relative_to(staging.dir):
                folder = src
            else:
                _copy_listed(src, staging.model, manifest, progress, cancel)
                folder = staging.model
        _check_cancel(cancel)
        final = staging.commit(folder, progress)
    shutil.rmtree(data_dir() / "cache" / entry.name, ignore_errors=True)
    return InstallResult(target, final, None, pinned)


def _fetch_files(catalog: Catalog, entry: CatalogModel, folder: Path, pinned: dict[str, str],
                 progress: StageProgress | None, cancel: threading.Event | None,
                 opts: dict[str, Any]) -> None:
    """Per-file download of every file choice into `folder` (kept there for resuming)."""
    if not entry.mirrors:
        raise ModelError(f"{entry.name}: the catalog lists no per-file mirrors")
    count = len(entry.files)
    for index, choice in enumerate(entry.files, 1):
        for n, option in enumerate(choice.options, 1):
            _check_cancel(cancel)
            label = f"{option.path} ({index}/{count})"
            try:
                result = download(entry.urls_for(option.path), folder / option.path,
                                  sha256=option.sha256, size=option.size,
                                  progress=_stage(progress, label), cancel=cancel, **opts)
            except NotFound:
                if n < len(choice.options):
                    continue
                raise
            if option.sha256 is None:
                catalog.pin(entry.name, option.key, result.sha256, result.size)
                pinned[option.path] = result.sha256
            break


def _fetch_archive(catalog: Catalog, entry: CatalogModel, spec: CatalogArchive, staging: _Staging,
                   pinned: dict[str, str], progress: StageProgress | None,
                   cancel: threading.Event | None, opts: dict[str, Any]) -> Path:
    dest = _cache_dir(entry.name, "archives") / spec.name
    result = download(list(spec.urls), dest, sha256=spec.sha256, size=spec.size,
                      progress=_stage(progress, spec.name), cancel=cancel, **opts)
    if spec.sha256 is None:
        catalog.pin(entry.name, spec.key, result.sha256, result.size)
        pinned[spec.name] = result.sha256
    if progress is not None:
        progress("extracting", 0, None, 0.0)
    unpacked = staging.dir / "unpacked"
    shutil.rmtree(unpacked, ignore_errors=True)
    root = archive.content_root(archive.extract(result.path, unpacked, cancel=cancel))
    for choice in entry.files:
        present = [o for o in choice.options if (root / o.path).is_file()]
        if not present:
            raise ModelError(f"{spec.name}: the archive lacks {choice.label}")
        option = present[0]
        actual = mf.sha256_file(root / option.path)
        if option.sha256 is not None and actual != option.sha256:
            raise ModelError(f"{spec.name}: {option.path} fails its SHA-256 check")
        if option.sha256 is None:
            catalog.pin(entry.name, option.key, actual, (root / option.path).stat().st_size)
            pinned[option.path] = actual
    return root


def _fetch_sources(catalog: Catalog, entry: CatalogModel, staging: _Staging, pinned: dict[str, str],
                   progress: StageProgress | None, cancel: threading.Event | None,
                   opts: dict[str, Any]) -> Path:
    """Archives first, then per-file mirrors; the first that works gives the source folder."""
    errors: list[str] = []
    for spec in entry.archives:
        try:
            return _fetch_archive(catalog, entry, spec, staging, pinned, progress, cancel, opts)
        except ModelError as exc:
            if str(exc).startswith("not enough disk space"):
                raise
            errors.append(str(exc))
    if entry.mirrors:
        folder = _cache_dir(entry.name, "files")
        try:
            _fetch_files(catalog, entry, folder, pinned, progress, cancel, opts)
            return folder
        except ModelError as exc:
            errors.append(str(exc))
    raise ModelError(f"{entry.name}: could not download ({'; '.join(errors)})")
