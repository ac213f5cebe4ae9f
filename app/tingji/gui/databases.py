"""Opening the app's SQLite files at start-up: one that cannot be used is set aside, never fatal. No Qt.

A damaged `tingji.sqlite3` used to keep the app from starting at all (the
windowed build showed nothing). Now a database that SQLite cannot read, that
fails its quick check, or that a newer Tingji wrote (its schema version is
higher than this build knows) is renamed beside itself with its `-wal` and
`-shm` files, a fresh one is made, and the caller tells the user where the
old one went. Nothing is deleted: the set-aside file can be recovered by
hand, or read again by the newer Tingji that wrote it. (settings.json gets
the same treatment in settings.py.)
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class NewerDatabaseError(Exception):
    """The database was written by a newer Tingji: its schema version is above what this build reads."""

    def __init__(self, path: Path, found: int, known: int) -> None:
        super().__init__(f"{path}: written by a newer Tingji (schema version {found}; this one reads {known})")
        self.found = found


@dataclass(frozen=True)
class SetAside:
    """A database that could not be used and was renamed; the app started with a fresh one."""

    path: Path  # where the database was (and a fresh one is now)
    moved_to: Path  # where the old one is now
    reason: str  # SQLite's words, or NewerDatabaseError's
    newer: bool  # written by a newer Tingji (not damaged)


def check_readable(db: sqlite3.Connection, path: Path, known_version: int) -> None:
    """Raise for a database this build must not use: damaged (quick_check) or from a newer version."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > known_version:
        raise NewerDatabaseError(path, found, known_version)
    problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
    if problems != ["ok"]:
        raise sqlite3.DatabaseError("; ".join(problems))


def set_aside(path: Path, tag: str) -> Path:
    """Rename `path` (and its -wal/-shm) to `<name>.<tag>-<time>`; returns the new path of the database.

    The WAL must go with it: left behind, SQLite would replay its old pages into the fresh file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        target = path.with_name(f"{path.name}.{tag}-{stamp}{f'-{n}' if n else ''}")
        if not any(Path(f"{target}{s}").exists() for s in ("", "-wal", "-shm")):
            break
    for suffix in ("-wal", "-shm", ""):  # the database last: until then it is still whole where it was
        source = Path(f"{path}{suffix}")
        if source.exists():
            os.replace(source, f"{target}{suffix}")
    return target


def open_or_set_aside(open_db: Callable[[Path], T], path: Path) -> tuple[T, SetAside | None]:
    """`open_db(path)`; when it raises sqlite3.DatabaseError or NewerDatabaseError, set the file
    aside and open a fresh one. Other errors (a folder that cannot be written) propagate."""
    try:
        return open_db(path), None
    except (sqlite3.DatabaseError, NewerDatabaseError) as exc:
        reason, newer = str(exc), isinstance(exc, NewerDatabaseError)
    # Renamed only here, out of the except block: its traceback held the failed opener's connection
    # open, and Windows renames no open file.
    moved_to = set_aside(path, "newer" if newer else "bad")
    log.warning("%s cannot be used (%s); set aside as %s, starting with a fresh one", path, reason, moved_to.name)
    return open_db(path), SetAside(path, moved_to, reason, newer)
