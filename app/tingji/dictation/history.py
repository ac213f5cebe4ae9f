"""The dictation history: every take's text, with its recording.

SQLite (standard library, one file, safe against a crash mid-write) in its
own file `dictation.sqlite3` under the user data folder, so that its schema
evolves independently of the file-transcription queue. Recordings are 16 kHz
16-bit mono WAV files under `recordings_dir()`, named `dictation-*.wav` and
published complete or not at all (`write_recording`); a row stores the file
name, not the path, so the whole data folder can move.

Order of operations, so that no dictated text can be lost: the controller
writes the WAV first, then transcribes it, then adds the row; only after the
row is committed may `apply_retention` delete old recordings. A crash in
between leaves a WAV without a row, which `orphan_recordings()` finds so it
can be transcribed again on the next start.

Deleting goes the other way, and a deleted take must stay deleted through any
crash (it is the user's privacy): were the row deleted first and the WAV
unlinked after, a crash in between would leave an "orphan" that recovery
transcribes right back into the history. So one transaction removes the row
(or, for retention, its reference to the WAV) *and* records the WAV's name in
`deleted_recordings`; only then is the file unlinked, the folder synced, and
the name forgotten. Opening the history finishes any deletion a crash
interrupted, and `orphan_recordings()` never offers a name that is listed
there. A crash before the commit leaves the take whole; after it, the take is
gone for good, whichever step the crash hit. The text is gone from the bytes
too: SQLite zeroes deleted content (secure_delete), and the write-ahead log,
which still holds the inserted text, is emptied after a delete and on open.

No Qt here: the panel reads the same object from the GUI thread while the
controller writes from its worker (one connection, serialised by a lock).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import atomic
from ..errors import TingjiError
from ..paths import dictation_database_path, recordings_dir

log = logging.getLogger(__name__)

RECORDING_PREFIX = "dictation-"
PARTIAL_SUFFIX = ".partial"  # a recording being written: hidden, and no `dictation-*.wav` until complete
# A take's columns, named as DictationTake's fields, and the query that reads them.
_TAKE_COLUMNS = (
    "id",
    "created",
    "text",
    "duration_s",
    "recording",
    "language",
    "model",
    "latency_s",
    "output",
    "error",
    "error_code",
)
_SELECT_TAKES = f"SELECT {', '.join(_TAKE_COLUMNS)} FROM takes"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS takes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,          -- unix time the take ended
    text TEXT NOT NULL,
    duration_s REAL NOT NULL,
    recording TEXT,                 -- file name in recordings_dir(); NULL once deleted
    language TEXT,
    model TEXT,
    latency_s REAL,                 -- end of take -> text inserted
    output TEXT NOT NULL DEFAULT '',-- 'paste', 'type', 'failed', 'none' (recovered)
    error TEXT,                     -- why the take was cut short or not inserted (English)
    error_code TEXT                 -- that error's code and fields (JSON), for a UI in another language
);
CREATE INDEX IF NOT EXISTS takes_created ON takes(created);
CREATE TABLE IF NOT EXISTS deleted_recordings (
    name TEXT PRIMARY KEY           -- a WAV to unlink: its take or its reference is already gone
);
"""


@dataclass
class DictationTake:
    """One row of the history."""

    text: str
    duration_s: float
    recording: str | None = None
    created: float = field(default_factory=time.time)
    language: str | None = None
    model: str | None = None
    latency_s: float | None = None
    output: str = ""
    error: str | None = None  # English, one line: the history keeps what happened as data
    error_code: str | None = None  # the error's code and fields (tingji.errors.ErrorReport.to_json)
    id: int | None = None

    def note(self, error: TingjiError | None) -> None:
        """Record why the take was cut short or not inserted (None: nothing went wrong)."""
        self.error = None if error is None else str(error)
        self.error_code = None if error is None else error.report().to_json()


class DictationHistory:
    """A small thread-safe store of takes."""

    def __init__(self, path: str | Path | None = None, recordings: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else dictation_database_path()
        self.recordings = Path(recordings) if recordings is not None else recordings_dir()
        self.recordings.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        # Deleted text is overwritten in the file, not just unlinked from the tree (builds of
        # SQLite differ in this default).
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        if "error_code" not in {r[1] for r in self._db.execute("PRAGMA table_info(takes)")}:
            self._db.execute("ALTER TABLE takes ADD COLUMN error_code TEXT")  # a history from before codes
        for partial in self.recordings.glob(f".{RECORDING_PREFIX}*{PARTIAL_SUFFIX}"):
            log.warning("removing %s: the app stopped while writing this recording", partial.name)
            partial.unlink(missing_ok=True)
        with self._lock:
            pending = [r[0] for r in self._db.execute("SELECT name FROM deleted_recordings")]
            self._unlink_deleted(pending)  # deletions a crash interrupted
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # see delete()

    # -- recordings -------------------------------------------------------------

    def new_recording_path(self) -> Path:
        """A fresh, unique WAV path for a take (time-stamped so files sort chronologically)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        ms = int((time.time() % 1) * 1000)
        with self._lock:  # a name still waiting to be unlinked must not be given to a new take
            doomed = {r[0] for r in self._db.execute("SELECT name FROM deleted_recordings")}
        for n in range(1000):
            suffix = f"-{n}" if n else ""
            path = self.recordings / f"{RECORDING_PREFIX}{stamp}-{ms:03d}{suffix}.wav"
            if not path.exists() and path.name not in doomed:
                return path
        raise FileExistsError(path)

    def write_recording(self, samples: np.ndarray, rate: int) -> Path:
        """Keep a take's audio as a new 16-bit WAV, complete or not at all.

        Written under a hidden temporary name, flushed and fsynced, then renamed
        and the folder fsynced: a crash or a power cut never leaves a truncated
        `dictation-*.wav` that recovery would transcribe as if it were the take.
        """
        import soundfile as sf

        path = self.new_recording_path()
        tmp = path.with_name(f".{path.name}{PARTIAL_SUFFIX}")
        try:
            with open(tmp, "xb") as fh:
                sf.write(fh, samples, rate, subtype="PCM_16", format="WAV")
                fh.flush()
                os.fsync(fh.fileno())
            return atomic.publish(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def recording_path(self, take: DictationTake) -> Path | None:
        """The take's WAV if it still exists."""
        if not take.recording:
            return None
        path = self.recordings / take.recording
        return path if path.is_file() else None

    def orphan_recordings(self) -> list[Path]:
        """Our WAVs that no row refers to (the app stopped between WAV and row).

        Deleted ones are not orphans, even where unlinking them failed (a file in use on Windows)."""
        with self._lock:
            known = {
                r[0]
                for r in self._db.execute(
                    "SELECT recording FROM takes WHERE recording IS NOT NULL UNION SELECT name FROM deleted_recordings"
                )
            }
        return sorted(p for p in self.recordings.glob(f"{RECORDING_PREFIX}*.wav") if p.name not in known)

    # -- rows ---------------------------------------------------------------------

    def add(self, take: DictationTake) -> DictationTake:
        """Store a take (committed when this returns); sets and returns it with its id."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO takes (created, text, duration_s, recording, language, model, latency_s, output, error,"
                " error_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    take.created,
                    take.text,
                    take.duration_s,
                    take.recording,
                    take.language,
                    take.model,
                    take.latency_s,
                    take.output,
                    take.error,
                    take.error_code,
                ),
            )
            take.id = int(cur.lastrowid)
        return take

    def update(self, take: DictationTake) -> None:
        """Save the fields that are only known after insertion (output, latency, error)."""
        if take.id is None:
            raise ValueError("take has no id; add() it first")
        with self._lock:
            self._db.execute(
                "UPDATE takes SET output = ?, latency_s = ?, error = ?, error_code = ? WHERE id = ?",
                (take.output, take.latency_s, take.error, take.error_code, take.id),
            )

    def recent(self, limit: int = 200) -> list[DictationTake]:
        """Newest first."""
        with self._lock:
            rows = self._db.execute(_SELECT_TAKES + " ORDER BY created DESC, id DESC LIMIT ?", (limit,)).fetchall()
        return [self._take(r) for r in rows]

    def get(self, take_id: int) -> DictationTake | None:
        with self._lock:
            row = self._db.execute(_SELECT_TAKES + " WHERE id = ?", (take_id,)).fetchone()
        return self._take(row) if row else None

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM takes").fetchone()[0])

    def delete(self, take_id: int) -> None:
        """Remove a take and its recording, for good (see the module docstring for the order)."""
        with self._lock:
            with self._transaction():
                row = self._db.execute("SELECT recording FROM takes WHERE id = ?", (take_id,)).fetchone()
                if row is None:
                    return
                if row[0]:
                    self._db.execute("INSERT OR IGNORE INTO deleted_recordings (name) VALUES (?)", (row[0],))
                self._db.execute("DELETE FROM takes WHERE id = ?", (take_id,))
            # The write-ahead log still holds the pages with the text as it was inserted:
            # copy the zeroed pages into the database and empty the log.
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._unlink_deleted([row[0]] if row[0] else [])

    def apply_retention(self, keep_recordings: int | None) -> int:
        """Delete the recordings of all but the newest `keep_recordings` takes (None: keep all).

        Only recordings go; the text stays. Returns how many files were deleted.
        """
        if keep_recordings is None or keep_recordings < 0:
            return 0
        with self._lock:
            with self._transaction():  # all marked at once: a crash half-way leaves no orphan to recover
                rows = self._db.execute(
                    "SELECT id, recording FROM takes WHERE recording IS NOT NULL"
                    " ORDER BY created DESC, id DESC LIMIT -1 OFFSET ?",
                    (keep_recordings,),
                ).fetchall()
                for take_id, name in rows:
                    self._db.execute("INSERT OR IGNORE INTO deleted_recordings (name) VALUES (?)", (name,))
                    self._db.execute("UPDATE takes SET recording = NULL WHERE id = ?", (take_id,))
            return self._unlink_deleted(name for _, name in rows)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- deleting, in crash-safe order (callers hold the lock) ---------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _unlink_deleted(self, names: Iterable[str]) -> int:
        """Unlink WAVs already listed in `deleted_recordings`, then forget them; returns how many
        files there were. One that cannot be unlinked now stays listed and is retried on the next open."""
        removed, done = 0, []
        for name in names:
            try:
                (self.recordings / name).unlink()
                removed += 1
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("cannot delete the recording %s yet: %s", name, exc)
                continue
            done.append(name)
        if done:
            # The unlinks must reach the disk before the names are forgotten, or a power
            # cut could bring a file back with nothing left to say it was deleted.
            atomic.fsync_dir(self.recordings)
            with self._transaction():
                self._db.executemany("DELETE FROM deleted_recordings WHERE name = ?", [(n,) for n in done])
        return removed

    @staticmethod
    def _take(row: tuple) -> DictationTake:
        return DictationTake(**dict(zip(_TAKE_COLUMNS, row)))
