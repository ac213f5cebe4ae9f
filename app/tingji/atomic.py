"""Publishing files so that a crash or power cut never leaves a torn or empty one.

The pattern everywhere Tingji writes something a user relies on (transcripts,
settings, manifests, installed models, kept recordings): write a temporary
file in the same folder, flush it to disk, rename it over the final name, then
flush the folder so the rename itself survives. `os.replace` alone is atomic
but not durable: after a power cut a journaling file system may show the new
name pointing at a file whose data never reached the disk. Stdlib only, so the
engine, the model manager and the GUI can all use it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (renames, new files) to disk; a no-op where the OS cannot (Windows)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: str | os.PathLike[str]) -> None:
    """Flush a written and closed file to disk.

    Opened for writing on Windows: FlushFileBuffers, behind os.fsync there, refuses a
    read-only handle (the flush failed with "Permission denied" and a cache was never kept).
    """
    fd = os.open(path, os.O_RDWR if os.name == "nt" else os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# Windows refuses to replace a file another program has open (an antivirus or indexer scanning the
# last transcript, a preview reading it): such holds last moments, so the rename is tried again.
REPLACE_TRIES_S = (0.05, 0.1, 0.2, 0.4, 0.8)


def publish(tmp: str | os.PathLike[str], final: str | os.PathLike[str]) -> Path:
    """Rename a fully written (and fsynced) temporary file over `final`, durably.

    On Windows a `final` another program holds open is waited for, about 1.5 s
    in all, before the PermissionError is raised.
    """
    final = Path(final)
    for pause in REPLACE_TRIES_S if sys.platform == "win32" else ():
        try:
            os.replace(tmp, final)
            break
        except PermissionError:
            time.sleep(pause)
    else:
        os.replace(tmp, final)
    fsync_dir(final.parent)
    return final


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write `data` to `path` atomically and durably; the temporary file is removed on failure."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return publish(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """UTF-8 text with "\\n" line ends (the same bytes on every platform), atomically and durably."""
    return write_bytes(path, text.encode("utf-8"))
