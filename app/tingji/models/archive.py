"""Safe extraction of model archives (.zip, .tar, .tar.gz, .tar.bz2, .tar.xz).

Every entry is checked before anything is written: absolute paths, drive
letters, `..` components, links, devices and oversized totals are refused with
a one-line ModelError naming the archive and the entry. Extraction writes
regular files only, counting the bytes actually produced (headers can lie),
into a temporary folder next to the target, which is renamed into place at the
end; on any failure the temporary folder is removed and the target untouched.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import threading
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Any

from ..errors import Cancelled, Message, ModelError
from . import messages

#: Default cap on the total uncompressed size: a model is a few GB.
DEFAULT_MAX_TOTAL = 32 * (1 << 30)
DEFAULT_MAX_ENTRIES = 10_000
_BLOCK = 1 << 20
try:
    import lzma

    _DECODE_ERRORS: tuple[type[BaseException], ...] = (zlib.error, lzma.LZMAError)
except ImportError:  # a Python built without lzma
    _DECODE_ERRORS = (zlib.error,)


@dataclass(frozen=True)
class _Entry:
    name: str  # as stored in the archive
    parts: tuple[str, ...]  # safe relative path components
    is_dir: bool
    size: int  # declared uncompressed size
    open: Callable[[], IO[bytes]] | None


def is_archive(path: str | os.PathLike[str]) -> bool:
    """True for a file that is a zip or a tar (any supported compression)."""
    path = Path(path)
    if not path.is_file():
        return False
    if zipfile.is_zipfile(path):
        return True
    try:
        return tarfile.is_tarfile(path)
    except (OSError, tarfile.TarError):
        return False


def _safe_parts(archive: Path, name: str) -> tuple[str, ...]:
    def refuse(message: Message) -> ModelError:
        return ModelError(message, archive=archive.name, entry=name)

    if "\x00" in name:
        raise refuse(messages.ENTRY_NUL)
    norm = name.replace("\\", "/")
    if norm.startswith("/") or PurePosixPath(norm).is_absolute():
        raise refuse(messages.ENTRY_ABSOLUTE)
    first = norm.split("/", 1)[0]
    if len(first) >= 2 and first[1] == ":":
        raise refuse(messages.ENTRY_ABSOLUTE)
    parts = tuple(p for p in norm.split("/") if p not in ("", "."))
    if any(p == ".." for p in parts):
        raise refuse(messages.ENTRY_DOTDOT)
    if any(":" in p for p in parts):
        raise refuse(messages.ENTRY_COLON)
    return parts


def _zip_entries(archive: Path, zf: zipfile.ZipFile) -> Iterator[_Entry]:
    for info in zf.infolist():
        mode = (info.external_attr >> 16) & 0xFFFF
        parts = _safe_parts(archive, info.filename)
        kind = stat.S_IFMT(mode)
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            what = messages.ENTRY_SYMLINK if kind == stat.S_IFLNK else messages.ENTRY_SPECIAL
            raise ModelError(what, archive=archive.name, entry=info.filename)
        is_dir = info.is_dir() or kind == stat.S_IFDIR
        yield _Entry(
            info.filename,
            parts,
            is_dir,
            0 if is_dir else info.file_size,
            None if is_dir else (lambda info=info: zf.open(info)),
        )


def _tar_entries(archive: Path, tf: tarfile.TarFile) -> Iterator[_Entry]:
    for member in tf.getmembers():
        parts = _safe_parts(archive, member.name)
        if member.issym() or member.islnk():
            what = messages.ENTRY_SYMLINK if member.issym() else messages.ENTRY_HARD_LINK
            raise ModelError(what, archive=archive.name, entry=member.name)
        if not (member.isfile() or member.isdir()):
            raise ModelError(messages.ENTRY_DEVICE, archive=archive.name, entry=member.name)
        if member.isdir():
            yield _Entry(member.name, parts, True, 0, None)
        else:
            yield _Entry(member.name, parts, False, member.size, lambda member=member: tf.extractfile(member))  # type: ignore[return-value]


def _scan(archive: Path, entries: Iterator[_Entry], max_total: int, max_entries: int) -> list[_Entry]:
    checked: list[_Entry] = []
    total = 0
    files: set[tuple[str, ...]] = set()
    dirs: set[tuple[str, ...]] = set()
    for entry in entries:
        if len(checked) >= max_entries:
            raise ModelError(messages.TOO_MANY_ENTRIES, archive=archive.name, limit=max_entries)
        key = tuple(p.casefold() for p in entry.parts)
        if not entry.parts:
            if entry.is_dir:
                continue
            raise ModelError(messages.ENTRY_EMPTY_NAME, archive=archive.name, entry=entry.name)
        if entry.is_dir:
            if key in files:
                raise ModelError(messages.ENTRY_FILE_AND_FOLDER, archive=archive.name, entry=entry.name)
            dirs.add(key)
        else:
            if key in files or key in dirs:
                raise ModelError(messages.ENTRY_DUPLICATE, archive=archive.name, entry=entry.name)
            files.add(key)
            total += entry.size
            if total > max_total:
                raise ModelError(messages.ENTRY_BEYOND_LIMIT, archive=archive.name, entry=entry.name, limit=max_total)
        checked.append(entry)
    # A file whose path is a prefix of another entry's path is a conflict.
    for key in files:
        for i in range(1, len(key)):
            if key[:i] in files:
                raise ModelError(messages.ENTRY_THROUGH_FILE, archive=archive.name, entry="/".join(key))
    if not files:
        raise ModelError(messages.NO_FILES_IN_ARCHIVE, archive=archive.name)
    return checked


def extract(
    archive: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    max_total: int = DEFAULT_MAX_TOTAL,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    cancel: threading.Event | None = None,
) -> Path:
    """Extract `archive` into the new folder `target` (which must not exist yet)."""
    archive = Path(archive)
    target = Path(target)
    if target.exists():
        raise ModelError(messages.TARGET_EXISTS, target=target, archive=archive.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if zipfile.is_zipfile(archive):
            opener: Callable[[], Any] = partial(zipfile.ZipFile, archive)
            lister = _zip_entries
        elif tarfile.is_tarfile(archive):
            opener = partial(tarfile.open, archive, "r:*")
            lister = _tar_entries
        else:
            raise ModelError(messages.NOT_AN_ARCHIVE, archive=archive.name)
    except OSError as exc:
        raise ModelError(messages.ARCHIVE_UNREADABLE, archive=archive.name, reason=exc.strerror or str(exc)) from None

    tmp = target.parent / f".extract-{target.name}-{uuid.uuid4().hex[:8]}"
    try:
        with opener() as handle:
            entries = _scan(archive, lister(archive, handle), max_total, max_entries)
            tmp.mkdir()
            written = 0
            for entry in entries:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                dest = tmp.joinpath(*entry.parts)
                if entry.is_dir:
                    dest.mkdir(parents=True, exist_ok=True)
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                assert entry.open is not None
                produced = 0
                with entry.open() as src, open(dest, "xb") as out:
                    while block := src.read(_BLOCK):
                        produced += len(block)
                        written += len(block)
                        if produced > entry.size or written > max_total:
                            raise ModelError(messages.ENTRY_BEYOND_SIZE, archive=archive.name, entry=entry.name)
                        out.write(block)
                        if cancel is not None and cancel.is_set():
                            raise Cancelled()
                if produced != entry.size:
                    raise ModelError(messages.ENTRY_TRUNCATED, archive=archive.name, entry=entry.name)
        os.replace(tmp, target)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, *_DECODE_ERRORS) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(messages.ARCHIVE_DAMAGED, archive=archive.name, reason=str(exc)) from None
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(messages.CANNOT_EXTRACT, archive=archive.name, reason=exc.strerror or str(exc)) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def content_root(folder: Path) -> Path:
    """Where the files of an extracted archive start: descend through lone sub-folders."""
    current = folder
    for _ in range(4):
        children = [c for c in current.iterdir() if not c.name.startswith((".", "__MACOSX"))]
        if len(children) == 1 and children[0].is_dir() and not (current / "manifest.json").exists():
            current = children[0]
        else:
            break
    return current
