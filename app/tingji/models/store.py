"""Installing models: from a folder, from one archive URL, or from the catalog (downloading, converting).

Every install is assembled in a private staging folder and appears under its
name by one atomic rename after everything was downloaded, converted and
verified (`staging`). Downloads themselves go to the download cache so an
interrupted download resumes on the next try (`cache`).

`progress` callbacks here take `(stage, done, total, bytes_per_second)`: `stage`
is a short text such as "model.pt (3/9)", "extracting", "converting",
"verifying"; `total` may be None when unknown.

A catalog entry's per-file mirrors are tried in order, and one install takes
every file from one mirror: a mirror that lacks a file, or fails one, is
given up and the next one starts over (each mirror's files are kept in a
folder of their own in the cache, so nothing of two copies is mixed and each
resumes on its own). The mirror is named in the installed manifest's `source`
(`mirror`, `mirror_url`); the model manager shows it.

The operations on installed folders (list, resolve, verify, remove, the
overview) are `installed`; this module only adds models.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..engine import manifest as mf
from ..errors import Cancelled, ModelError
from ..paths import models_dir
from . import archive, messages
from .cache import cache_subdir, discard_cached
from .catalog import Catalog, CatalogArchive, CatalogFile, CatalogModel, load_catalog, mirror_url
from .download import DownloadResult, NotFound, download
from .installed import validate_name
from .peer import looks_like_peer_release, manifest_for_peer_release
from .staging import StageProgress, Staging, check_cancel, cleanup_incoming, copy_listed, ensure_free_name


@dataclass(frozen=True)
class InstallResult:
    name: str
    path: Path
    sha256: str | None = None  # of the downloaded archive (install_from_url)
    # Hashes of files with no published hash, learned by this download and pinned
    # now that the model verified (install_from_url: computed, not pinned). Show them.
    pinned: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------- helpers


def _stage(progress: StageProgress | None, label: str) -> Callable[[int, int | None, float], None] | None:
    if progress is None:
        return None
    return lambda done, total, bps: progress(label, done, total, bps)


def _export(src: Path, out: Path, progress: StageProgress | None = None, options: dict[str, Any] | None = None) -> Path:
    """Convert an official checkpoint folder with `tingji.export.export_model`.

    `out` does not exist yet; the exporter creates it (its own temporary files
    are siblings inside the staging folder). Its text progress messages become
    stages ("converting: <message>"). Without torch the graphs are filled
    from the app's templates (`export.templates`); the export extra's modules
    are needed only where graphs are asked of torch, and one missing then is
    the extra's one-line error.
    """
    from ..export import messages as export_messages
    from ..export.extra import needs_export_extra

    kwargs = dict(options or {})
    if progress is not None:
        kwargs["progress"] = lambda message: progress(f"converting: {message}", 0, None, 0.0)
    with needs_export_extra(export_messages.EXTRA_FOR_CONVERSION):
        from ..export import export_model

        return export_model(src, out, **kwargs)


def _adopt(
    root: Path, staging: Staging, progress: StageProgress | None = None, cancel: threading.Event | None = None
) -> Path:
    """A folder inside the staging dir becomes the model folder to commit."""
    if (root / mf.MANIFEST_NAME).is_file():
        mf.load_manifest(root)
        return root
    return manifest_for_peer_release(root, staging.model, link=True, progress=progress, cancel=cancel)


# ---------------------------------------------------------------- installing


def looks_like_checkpoint(src: Path) -> bool:
    """An official release folder keeps its own config (funasr's config.yaml, transformers' config.json).

    Only the shape is looked at here: the exporter reads the config and names
    the family, or says in one line why it is no checkpoint it can convert."""
    return (src / "config.yaml").is_file() or (src / "config.json").is_file()


def import_folder(
    src: str | os.PathLike[str],
    name: str | None = None,
    *,
    progress: StageProgress | None = None,
    cancel: threading.Event | None = None,
) -> InstallResult:
    """Install a copy of a model folder (manifest.json) or of a peer-release folder, or convert an
    official checkpoint folder (any family `tingji.export` knows) into one."""
    src = Path(src).expanduser()
    if not src.is_dir():
        raise ModelError(messages.FOLDER_NOT_FOUND, folder=src)
    if name is None:
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", src.resolve().name).strip(".-_") or "model"
    validate_name(name)
    ensure_free_name(name)
    cleanup_incoming()
    with Staging(name) as staging:
        if (src / mf.MANIFEST_NAME).is_file():
            copy_listed(src, staging.model, mf.load_manifest(src), progress, cancel)
            folder = staging.model
        elif looks_like_checkpoint(src) and not looks_like_peer_release(src):
            if progress is not None:
                progress("converting", 0, None, 0.0)
            folder = _export(src, staging.model, progress)
        else:
            folder = manifest_for_peer_release(src, staging.model, progress=progress, cancel=cancel)
        check_cancel(cancel)
        final = staging.commit(folder, progress, source=src)
    return InstallResult(name, final)


def install_from_url(
    url: str,
    sha256: str | None,
    name: str,
    *,
    progress: StageProgress | None = None,
    cancel: threading.Event | None = None,
    download_options: dict[str, Any] | None = None,
) -> InstallResult:
    """Download one archive (.zip/.tar.*) holding a model folder and install it as `name`.

    With `sha256=None` the hash is computed and returned in the result (show it).
    """
    validate_name(name)
    ensure_free_name(name)
    cleanup_incoming()
    base = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or "download"
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", base)[-80:]
    dest = cache_subdir("downloads") / f"{hashlib.sha256(url.encode()).hexdigest()[:12]}-{base}"
    result = download(
        [url],
        dest,
        sha256=sha256,
        size=None,
        progress=_stage(progress, base),
        cancel=cancel,
        **(download_options or {}),
    )
    try:
        with Staging(name) as staging:
            if not archive.is_archive(result.path):
                raise ModelError(messages.NOT_AN_ARCHIVE_DOWNLOAD, name=base)
            if progress is not None:
                progress("extracting", 0, None, 0.0)
            unpacked = archive.extract(result.path, staging.dir / "unpacked", cancel=cancel)
            folder = _adopt(archive.content_root(unpacked), staging, progress, cancel)
            check_cancel(cancel)
            final = staging.commit(folder, progress)
    except (Cancelled, KeyboardInterrupt):
        raise  # keep the verified download: a retry need not fetch it again
    except BaseException:
        result.path.unlink(missing_ok=True)
        raise
    result.path.unlink(missing_ok=True)
    pinned = {} if sha256 else {base: result.sha256}
    return InstallResult(name, final, result.sha256, pinned)


def download_catalog_model(
    name: str,
    progress: StageProgress | None = None,
    cancel: threading.Event | None = None,
    *,
    catalog: Catalog | None = None,
    install_as: str | None = None,
    download_options: dict[str, Any] | None = None,
    export_options: dict[str, Any] | None = None,
) -> InstallResult:
    """Download a catalog model and install it (converting an official checkpoint).

    `export_options` go to `export_model` (e.g. precision="fp32", decoder_quant="f16").

    The entry's companions (a punctuation model) are installed after it, unless already installed;
    the returned result is the model's own.

    Files the catalog publishes no hash for cannot be checked as they arrive.
    Their hashes are pinned into the user's catalog overrides only after the
    whole model has verified and been installed (never before: one bad
    response must not lock the model out), and returned in `InstallResult.pinned`.
    """
    catalog = catalog if catalog is not None else load_catalog()
    entry = catalog.get(name)
    for companion in entry.companions:
        catalog.get(companion)  # a catalog naming an unknown companion fails before any download
    result = _download_one(entry, catalog, progress, cancel, install_as, download_options, export_options)
    for companion in entry.companions:
        if not (models_dir() / companion / mf.MANIFEST_NAME).is_file():
            # The model works without it (a transcript without punctuation), but it was chosen with it.
            _download_one(catalog.get(companion), catalog, progress, cancel, None, download_options, None)
    return result


def _download_one(
    entry: CatalogModel,
    catalog: Catalog,
    progress: StageProgress | None,
    cancel: threading.Event | None,
    install_as: str | None,
    download_options: dict[str, Any] | None,
    export_options: dict[str, Any] | None,
) -> InstallResult:
    target = validate_name(install_as or entry.name)
    ensure_free_name(target)
    cleanup_incoming()
    fetch = _Fetch(progress, cancel, dict(download_options or {}))

    if entry.kind == "official-checkpoint":
        # The checkpoint stays in the cache: a failed or repeated conversion
        # does not download it again.
        got = _fetch_files(entry, cache_subdir(entry.name, "files"), fetch)
        src = got.folder
        with Staging(target) as staging:
            if progress is not None:
                progress("converting", 0, None, 0.0)
            options = {**entry.export_options, **(export_options or {})}
            folder = _export(src, staging.model, progress, options)
            _record_source(folder, got.url)
            check_cancel(cancel)
            final = staging.commit(folder, progress)
        return InstallResult(target, final, None, _pin(catalog, entry, got.learned))

    with Staging(target) as staging:
        got = _fetch_sources(entry, staging, fetch)
        src, learned = got.folder, got.learned
        if entry.kind == "peer-release" and not (src / mf.MANIFEST_NAME).is_file():
            # Our own download (extracted in staging, or in the cache): linking saves a copy.
            folder = manifest_for_peer_release(src, staging.model, link=True, progress=progress, cancel=cancel)
        else:
            manifest = mf.load_manifest(src)
            if src.is_relative_to(staging.dir):
                folder = src
            else:
                copy_listed(src, staging.model, manifest, progress, cancel)
                folder = staging.model
        _record_source(folder, got.url)
        check_cancel(cancel)
        final = staging.commit(folder, progress)
    discard_cached(entry.name)
    return InstallResult(target, final, None, _pin(catalog, entry, learned))


def _record_source(folder: Path, url: str | None) -> None:
    """Name in the new model's manifest (`source`) the mirror or archive URL its files came from."""
    if url is None:
        return
    manifest = mf.load_manifest(folder)
    manifest.source = {**manifest.source, "mirror": urlsplit(url).netloc, "mirror_url": url}
    mf.save_manifest(manifest)


@dataclass(frozen=True)
class _Learned:
    """A hash a download computed because the catalog publishes none: pinned once the model installs."""

    label: str  # the file or archive name, for the user
    sha256: str
    size: int


def _pin(catalog: Catalog, entry: CatalogModel, learned: dict[str, _Learned]) -> dict[str, str]:
    """Pin what the installed (hence fully verified) model's download learned; returns label -> hash."""
    catalog.pin(entry.name, {key: (x.sha256, x.size) for key, x in learned.items()})
    return {x.label: x.sha256 for x in learned.values()}


@dataclass(frozen=True)
class _Fetch:
    """How one catalog install downloads: where progress goes, what cancels, `download()`'s other keywords."""

    progress: StageProgress | None
    cancel: threading.Event | None
    opts: dict[str, Any]

    def get(self, urls: list[str], dest: Path, item: CatalogFile | CatalogArchive, label: str) -> DownloadResult:
        """`download()` of a catalog file or archive to `dest`, held to the catalog's hash and size."""
        progress = _stage(self.progress, label)
        return download(
            urls, dest, sha256=item.sha256, size=item.size, progress=progress, cancel=self.cancel, **self.opts
        )


@dataclass(frozen=True)
class _Fetched:
    """Where an entry's files are, which mirror (or archive URL) they all came from, the hashes learned."""

    folder: Path
    url: str | None  # the mirror's URL template or the archive's URL; None: an archive kept from before
    learned: dict[str, _Learned]


def _fetch_files(entry: CatalogModel, root: Path, fetch: _Fetch) -> _Fetched:
    """Every file choice from one mirror, into that mirror's folder under `root` (kept for resuming).

    Mirrors are tried in the catalog's order; a mirror that fails a file is given up and the next
    starts over in its own folder, so the files of one install all come from one mirror. Once one
    mirror served every file, the other mirrors' folders are deleted."""
    if not entry.mirrors:
        raise ModelError(messages.NO_MIRRORS, name=entry.name)
    failures: list[str] = []
    for mirror in entry.mirrors:
        folder = _mirror_folder(root, mirror)
        try:
            learned = _fetch_from(entry, mirror, folder, fetch)
        except ModelError as exc:
            if len(entry.mirrors) == 1 or exc.message == messages.NO_DISK_SPACE:
                raise
            failures.append(f"{urlsplit(mirror).netloc}: {exc}")
            continue
        for other in root.iterdir():  # other mirrors' files, and a cache from before mirrors had folders
            if other == folder:
                continue
            if other.is_dir():
                shutil.rmtree(other, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    other.unlink()
        return _Fetched(folder, mirror, learned)
    raise ModelError(messages.NO_WHOLE_MIRROR, name=entry.name, reasons="; ".join(failures))


def _mirror_folder(root: Path, mirror: str) -> Path:
    """One mirror's folder under `root`: its host (for a reader) and a digest of its URL template."""
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", urlsplit(mirror).netloc)[:40] or "mirror"
    return root / f"{host}-{hashlib.sha256(mirror.encode()).hexdigest()[:8]}"


def _fetch_from(entry: CatalogModel, mirror: str, folder: Path, fetch: _Fetch) -> dict[str, _Learned]:
    """Every file choice from `mirror` into `folder` (the first option the mirror has).

    Returns the hashes learned for files the catalog gives none (by catalog key)."""
    learned: dict[str, _Learned] = {}
    count = len(entry.files)
    for index, choice in enumerate(entry.files, 1):
        for n, option in enumerate(choice.options, 1):
            check_cancel(fetch.cancel)
            label = f"{option.path} ({index}/{count})"
            try:
                result = fetch.get([mirror_url(mirror, option.path)], folder / option.path, option, label)
            except NotFound:
                if n < len(choice.options):
                    continue
                raise
            if option.sha256 is None:
                learned[option.key] = _Learned(option.path, result.sha256, result.size)
            break
    return learned


def _fetch_archive(entry: CatalogModel, spec: CatalogArchive, staging: Staging, fetch: _Fetch) -> _Fetched:
    """Download and extract one archive; returns its content folder, its URL and the hashes learned."""
    learned: dict[str, _Learned] = {}
    result = fetch.get(list(spec.urls), cache_subdir(entry.name, "archives") / spec.name, spec, spec.name)
    if spec.sha256 is None:
        learned[spec.key] = _Learned(spec.name, result.sha256, result.size)
    if fetch.progress is not None:
        fetch.progress("extracting", 0, None, 0.0)
    unpacked = staging.dir / "unpacked"
    shutil.rmtree(unpacked, ignore_errors=True)
    root = archive.content_root(archive.extract(result.path, unpacked, cancel=fetch.cancel))
    for choice in entry.files:
        present = [o for o in choice.options if (root / o.path).is_file()]
        if not present:
            raise ModelError(messages.ARCHIVE_LACKS, name=spec.name, file=choice.label)
        option = present[0]
        actual = mf.sha256_file(root / option.path)
        if option.sha256 is not None and actual != option.sha256:
            raise ModelError(messages.ARCHIVE_FILE_HASH, name=spec.name, file=option.path)
        if option.sha256 is None:
            learned[option.key] = _Learned(option.path, actual, (root / option.path).stat().st_size)
    return _Fetched(root, result.url_used, learned)


def _fetch_sources(entry: CatalogModel, staging: Staging, fetch: _Fetch) -> _Fetched:
    """Archives first, then per-file mirrors; the first that works gives the source folder.

    Only the hashes learned from that source are returned: a source that failed
    taught nothing worth pinning."""
    errors: list[str] = []
    for spec in entry.archives:
        try:
            return _fetch_archive(entry, spec, staging, fetch)
        except ModelError as exc:
            if exc.message == messages.NO_DISK_SPACE:
                raise
            errors.append(str(exc))
    if entry.mirrors:
        try:
            return _fetch_files(entry, cache_subdir(entry.name, "files"), fetch)
        except ModelError as exc:
            if not errors:  # the only source: its own error says it all
                raise
            errors.append(str(exc))
    raise ModelError(messages.COULD_NOT_DOWNLOAD, name=entry.name, reasons="; ".join(errors))
