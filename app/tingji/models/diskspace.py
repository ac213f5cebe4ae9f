"""Free-space checks before a large write, and the sizes the messages show.

Checked before bytes are written (a known size) or as soon as a server states
a length, so a full disk is reported in one line instead of a half-written
multi-gigabyte file.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from ..errors import ModelError
from . import messages


def format_bytes(n: float) -> str:
    """Human size for messages: GB for large amounts, MB/kB below."""
    if n >= 100e6:
        return f"{n / 1e9:.1f} GB"
    if n >= 1e6:
        return f"{n / 1e6:.1f} MB"
    if n >= 1e3:
        return f"{n / 1e3:.1f} kB"
    return f"{int(n)} bytes"


def default_disk_free(folder: Path) -> int:
    """Free bytes on the file system holding `folder`."""
    return shutil.disk_usage(folder).free


def ensure_space(folder: Path, need: int, disk_free: Callable[[Path], int] | None = None) -> None:
    """Raise ModelError when `folder`'s file system has less than `need` bytes free."""
    if need <= 0:
        return
    free = (disk_free or default_disk_free)(folder)
    if free < need:
        raise ModelError(messages.NO_DISK_SPACE, need=format_bytes(need), free=format_bytes(free), folder=folder)
