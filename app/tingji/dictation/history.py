"""The dictation history: every take's text, with its recording.

SQLite (standard library, one file, safe against a crash mid-write) in its
own file `dictation.sqlite3` under the user data folder, so that its schema
evolves independently of the file-transcription queue. Recordings are 16 kHz
16-bit mono WAV files under `recordings_dir()`, named `dictation-*.wav`; a
row stores the file name, not the path, so the whole data folder can move.

Order of operations, so that no dictated text can be lost: the controller
writes the WAV first, then transcribes it, then adds the row; only after the
row is committed may `apply_retention` delete old recordings. A crash in
between leaves a WAV without a row, which `orphan_recordings()` finds so it
can be transcribed again on the next start.

No Qt here: the panel reads the same object from the GUI thread while the
controller writes from its worker (one connection, serialised by a lock).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import dictation_database_path, recordings_dir

RECORDING_PREFIX = "dictation-"

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
    error TEXT                      -- why the take was cut short or not inserted
);
CREATE INDEX IF NOT EXISTS takes_created ON takes(created);
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
    error: str | None = None
    id: int | None = None


class DictationHistory:
    """A small thread-safe store of takes."""

    def __init__(self, path: str | Path | None = None, recordings: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else dictation_database_path()
        self.recordings = Path(recordings) if recordings is not None else recordings_dir()
        self.recordings.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    # -- recordings -------------------------------------------------------------

    def new_recording_path(self) -> Path:
        """A fresh, unique WAV path for a take (time-stamped so files sort chronologically)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        ms = int((time.time() % 1) * 1000)
        for n in range(1000):
            suffix = f"-{n}" if n else ""
            path = self.recordings / f"{RECORDING_PREFIX}{stamp}-{ms:03d}{suffix}.wav"
            if not path.exists():
                return path
        raise FileExistsError(path)

    def recording_path(self, take: DictationTake) -> Path | None:
        """The take's WAV if it still exists."""
        if not take.recording:
            return None
        path = self.recordings / take.recording
        return path if path.is_file() else None

    def orphan_recordings(self) -> list[Path]:
        """Our WAVs that no row refers to (the app stopped between WAV and row)."""
        with self._lock:
            known = {r[0] for r in self._db.execute("SELECT recording FROM takes WHERE recording IS NOT NULL")}
        return sorted(p for p in self.recordings.glob(f"{RECORDING_PREFIX}*.wav") if p.name not in known)

    # -- rows ---------------------------------------------------------------------

    def add(self, take: DictationTake) -> DictationTake:
        """Store a take (committed when this returns); sets and returns it with its id."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO takes (created, text, duration_s, recording, language, model, latency_s, output, error)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (take.created, take.text, take.duration_s, take.recording, take.language, take.model,
                 take.latency_s, take.output, take.error))
            take.id = int(cur.lastrowid)
        return take

    def update(self, take: DictationTake) -> None:
        """Save the fields that are only known after insertion (output, latency, error)."""
        if take.id is None:
            raise ValueError("take has no id; add() it first")
        with self._lock:
            self._db.execute("UPDATE takes SET output = ?, latency_s = ?, error = ? WHERE id = ?",
                             (take.output, take.latency_s, take.error, take.id))

    def recent(self, limit: int = 200) -> list[DictationTake]:
        """Newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, created, text, duration_s, recording, language, model, latency_s, output, error"
                " FROM takes ORDER BY created DESC, id DESC LIMIT ?", (limit,)).fetchall()
        return [self._take(r) for r in rows]

    def get(self, take_id: int) -> DictationTake | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, created, text, duration_s, recording, language, model, latency_s, output, error"
                " FROM takes WHERE id = ?", (take_id,)).fetchone()
        return self._take(row) if row else None

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM takes").fetchone()[0])

    def delete(self, take_id: int) -> None:
        """Remove a take and its recording."""
        take = self.get(take_id)
        with self._lock:
            self._db.execute("DELETE FROM takes WHERE id = ?", (take_id,))
        if take is not None and take.recording:
            (self.recordings / take.recording).unlink(missing_ok=True)

    def apply_retention(self, keep_recordings: int | None) -> int:
        """Delete the recordings of all but the newest `keep_recordings` takes (None: keep all).

        Only recordings go; the text stays. Returns how many files were deleted.
        """
        if keep_recordings is None or keep_recordings < 0:
            return 0
        with self._lock:
            rows = self._db.execute(
                "SELECT id, recording FROM takes WHERE recording IS NOT NULL"
                " ORDER BY created DESC, id DESC LIMIT -1 OFFSET ?", (keep_recordings,)).fetchall()
            for take_id, _ in rows:
                self._db.execute("UPDATE takes SET recording = NULL WHERE id = ?", (take_id,))
        removed = 0
        for _, name in rows:
            path = self.recordings / name
            if path.is_file():
                path.unlink()
                removed += 1
        return removed

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @staticmethod
    def _take(row: tuple) -> DictationTake:
        return DictationTake(id=row[0], created=row[1], text=row[2], duration_s=row[3], recording=row[4],
                             language=row[5], model=row[6], latency_s=row[7], output=row[8], error=row[9])
