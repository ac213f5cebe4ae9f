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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator

from ..engine.errors import Cancelled, ModelError

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
    def refuse(reason: str) -> ModelError:
        return ModelError(f"{archive.name}: refusing entry {name!r} ({reason})")

    if "\x00" in name:
        raise refuse("NUL in name")
    norm = name.replace("\\", "/")
    if norm.startswith("/") or PurePosixPath(norm).is_absolute():
        raise refuse("absolute path")
    first = norm.split("/", 1)[0]
    if len(first) >= 2 and first[1] == ":":
        raise refuse("absolute path")
    parts = tuple(p for p in norm.split("/") if p not in ("", "."))
    if any(p == ".." for p in parts):
        raise refuse("'..' in path")
    if any(":" in p for p in parts):
        raise refuse("':' in path")
    return parts


def _zip_entries(archive: Path, zf: zipfile.ZipFile) -> Iterator[_Entry]:
    for info in zf.infolist():
        mode = (info.external_attr >> 16) & 0xFFFF
        parts = _safe_parts(archive, info.filename)
        kind = stat.S_IFMT(mode)
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            what = "symlink" if kind == stat.S_IFLNK else "special file"
            raise ModelError(f"{archive.name}: refusing entry {info.filename!r} ({what})")
        is_dir = info.is_dir() or kind == stat.S_IFDIR
        yield _Entry(info.filename, parts, is_dir, 0 if is_dir else info.file_size,
                     None if is_dir else (lambda info=info: zf.open(info)))


def _tar_entries(archive: Path, tf: tarfile.TarFile) -> Iterator[_Entry]:
    for member in tf.getmembers():
        parts = _safe_parts(archive, member.name)
        if member.issym() or member.islnk():
            what = "symlink" if member.issym() else "hard link"
            raise ModelError(f"{archive.name}: refusing entry {member.name!r} ({what})")
        if not (member.isfile() or member.isdir()):
            raise ModelError(f"{archive.name}: refusing entry {member.name!r} (device or special file)")
        if member.isdir():
            yield _Entry(member.name, parts, True, 0, None)
        else:
            yield _Entry(member.name, parts, False, member.size,
                         lambda member=member: tf.extractfile(member))  # type: ignore[return-value]


def _scan(archive: Path, entries: Iterator[_Entry], max_total: int, max_entries: int) -> list[_Entry]:
    checked: list[_Entry] = []
    total = 0
    files: set[tuple[str, ...]] = set()
    dirs: set[tuple[str, ...]] = set()
    for entry in entries:
        if len(checked) >= max_entries:
            raise ModelError(f"{archive.name}: more than {max_entries} entries; refusing")
        key = tuple(p.casefold() for p in entry.parts)
        if not entry.parts:
            if entry.is_dir:
                continue
            raise ModelError(f"{archive.name}: refusing entry {entry.name!r} (empty name)")
        if entry.is_dir:
            if key in files:
                raise ModelError(f"{archive.name}: refusing entry {entry.name!r} (file and folder)")
            dirs.add(key)
        else:
            if key in files or key in dirs:
                raise ModelError(f"{archive.name}: refusing entry {entry.name!r} (duplicate)")
            files.add(key)
            total += entry.size
            if total > max_total:
                raise ModelError(
                    f"{archive.name}: refusing entry {entry.name!r} "
                    f"(archive expands beyond the {max_total}-byte limit)"
                )
        checked.append(entry)
    # A file whose path is a prefix of another entry's path is a conflict.
    for key in files:
        for i in range(1, len(key)):
            if key[:i] in files:
                raise ModelError(f"{archive.name}: refusing entry {'/'.join(key)!r} (path through a file)")
    if not files:
        raise ModelError(f"{archive.name}: the archive holds no files")
    return checked


def extract(archive: str | os.PathLike[str], target: str | os.PathLike[str], *,
            max_total: int = DEFAULT_MAX_TOTAL, max_entries: int = DEFAULT_MAX_ENTRIES,
            cancel: threading.Event | None = None) -> Path:
    """Extract `archive` into the new folder `target` (which must not exist yet)."""
    archive = Path(archive)
    target = Path(target)
    if target.exists():
        raise ModelError(f"{target}: already exists; not extracting {archive.name} over it")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if zipfile.is_zipfile(archive):
            opener: Callable[[], object] = lambda: zipfile.ZipFile(archive)
            lister = _zip_entries
        elif tarfile.is_tarfile(archive):
            opener = lambda: tarfile.open(archive, "r:*")
            lister = _tar_entries
        else:
            raise ModelError(f"{archive.name}: not a .zip or .tar archive")
    except OSError as exc:
        raise ModelError(f"{archive.name}: cannot read ({exc.strerror or exc})") from None

    tmp = target.parent / f".extract-{target.name}-{uuid.uuid4().hex[:8]}"
    try:
        with opener() as handle:  # type: ignore[attr-defined]
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
                            raise ModelError(
                                f"{archive.name}: refusing entry {entry.name!r} (expands beyond its declared size)"
                            )
                        out.write(block)
                        if cancel is not None and cancel.is_set():
                            raise Cancelled()
                if produced != entry.size:
                    raise ModelError(f"{archive.name}: entry {entry.name!r} is truncated")
        os.replace(tmp, target)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, *_DECODE_ERRORS) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(f"{archive.name}: damaged archive ({exc})") from None
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(f"{archive.name}: cannot extract ({exc.strerror or exc})") from None
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
