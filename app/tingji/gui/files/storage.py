"""The transcription queue and its results, kept in SQLite. Imports no Qt.

Why SQLite and not a JSON file: a queue of hundreds of files with hours of
transcripts must survive the app being killed at any instant. Every state
change is one small transaction, finished transcripts are committed the moment
they exist, and WAL mode with `synchronous=FULL` means a committed result is on
disk before `finish()` returns, so a crash, a SIGKILL or a power cut loses at
most the file that was being transcribed (which simply runs again).

Only the GUI thread uses a `Store`: the engine worker hands results back by
signal, so there is one writer and no locking to get wrong. Live progress is
deliberately *not* written here; it is cheap to lose and would otherwise turn
into a write per second per file.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from ...engine import messages
from ...engine.transcript import Segment, Transcript, VoicePrint, Word
from ...errors import ErrorReport, reports_to_json, warning
from ..databases import check_readable

SCHEMA_VERSION = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    path        TEXT NOT NULL,
    position    REAL NOT NULL,
    status      TEXT NOT NULL,
    duration    REAL,
    error       TEXT,
    error_code  TEXT,
    added_at    REAL NOT NULL,
    finished_at REAL,
    elapsed_s   REAL,
    transcript  TEXT,
    warning     TEXT,
    exported    TEXT,
    warning_code TEXT,
    speakers    TEXT
);
CREATE INDEX IF NOT EXISTS jobs_position ON jobs(position);
CREATE TABLE IF NOT EXISTS written (
    path        TEXT PRIMARY KEY,
    source      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    written_at  REAL NOT NULL
);
"""

# Every column but the (possibly large) transcript: listing the queue must stay cheap.
_JOB_COLUMNS = (
    "id, path, position, status, duration, error, added_at, finished_at, elapsed_s, error_code, warning, exported, "
    "warning_code, speakers"
)


class Status(str, Enum):
    """A file's place in its life cycle; the value is what the database stores."""

    WAITING = "waiting"
    RUNNING = "transcribing"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (Status.DONE, Status.FAILED, Status.CANCELLED)


@dataclass
class Job:
    """One queued file as the queue shows it (the transcript is fetched separately)."""

    id: int
    path: str
    position: float
    status: Status
    duration: float | None = None
    error: str | None = None
    added_at: float = 0.0
    finished_at: float | None = None
    elapsed_s: float | None = None
    # A known problem's code and arguments (JSON, see gui/errors.py), so the
    # reason is shown in the UI language even after a restart; None: unknown.
    error_code: str | None = None
    # Done, but the source could not be read to its end (a damaged file): why, in the engine's
    # words ("decoding stopped at 45.1 s of 150.0 s (the data is damaged)"). None: read whole.
    warning: str | None = None
    # The files automatic export wrote for this result (full paths), to show which names it chose.
    exported: tuple[str, ...] = ()
    # The warnings behind `warning` as data (code and fields, `warning_columns`), so they are shown in
    # the UI language after a restart too; None: rows from before warnings had codes (shown as stored).
    warning_code: str | None = None
    # "Identify speakers" for this file alone ("off", "auto", "2".."8"); None: as in Settings.
    speakers: str | None = None

    @property
    def name(self) -> str:
        return Path(self.path).name or self.path

    @property
    def incomplete(self) -> bool:
        """Done with warnings: the transcript covers only part of the file."""
        return self.status is Status.DONE and self.warning is not None


def _job(row: Sequence[Any]) -> Job:
    exported = tuple(json.loads(row[11])) if row[11] else ()
    return Job(row[0], row[1], row[2], Status(row[3]), *row[4:11], exported, row[12], row[13])


@dataclass(frozen=True)
class WrittenFile:
    """A file Tingji wrote for a source (automatic export), as it was right after writing."""

    path: str
    source: str
    size: int
    mtime_ns: int


def file_key(path: str | os.PathLike[str]) -> str:
    """How a path is compared: absolute, and case-folded where the file system folds case (Windows)."""
    return os.path.normcase(os.path.abspath(os.fspath(path)))


def incompleteness(transcript: Transcript) -> list[ErrorReport] | None:
    """Why a transcript covers only part of its file (its warnings), or None when the file was read whole."""
    if transcript.complete:
        return None
    return list(transcript.warnings) or [warning(messages.NOT_READ_TO_END)]


def warning_columns(warnings: list[ErrorReport] | None) -> tuple[str | None, str | None]:
    """A job's `warning` (the English lines) and `warning_code` (each one's code and fields, JSON)."""
    if warnings is None:
        return None, None
    return "; ".join(w.text for w in warnings), reports_to_json(warnings)


class Store:
    """The queue: add, order, move through states, keep transcripts.

    Opening raises `sqlite3.DatabaseError` for a damaged file and
    `databases.NewerDatabaseError` for one a newer Tingji wrote (the app sets
    such a file aside: gui/databases.py). Methods raise `sqlite3.Error` only for
    real I/O trouble (disk full, file locked by another process); the queue
    controller reports those and goes on in memory.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per change.
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        try:
            check_readable(self._db, self.path, SCHEMA_VERSION)  # damaged, or from a newer Tingji: raise
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    def _migrate(self) -> None:
        """Bring a database from an older version up to date (columns are only ever added)."""
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(jobs)")}
        if "error_code" not in columns:  # version 1 -> 2: error codes for translated reasons
            self._db.execute("ALTER TABLE jobs ADD COLUMN error_code TEXT")
        if "warning" not in columns:  # 2 -> 3: files done with warnings (read only in part)
            self._db.execute("ALTER TABLE jobs ADD COLUMN warning TEXT")
        if "exported" not in columns:  # 3 -> 4: what automatic export wrote (and the `written` table)
            self._db.execute("ALTER TABLE jobs ADD COLUMN exported TEXT")
        if "warning_code" not in columns:  # 4 -> 5: warnings as codes; older rows keep their English text
            self._db.execute("ALTER TABLE jobs ADD COLUMN warning_code TEXT")
        if "speakers" not in columns:  # 5 -> 6: a file's own "Identify speakers"; older rows follow Settings
            self._db.execute("ALTER TABLE jobs ADD COLUMN speakers TEXT")
        if self._db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    def _write(self, sql: str, params: Iterable[Any] = ()) -> sqlite3.Cursor:
        with self._db:  # BEGIN ... COMMIT (or ROLLBACK on error)
            self._db.execute("BEGIN")
            return self._db.execute(sql, tuple(params))

    # -- reading ------------------------------------------------------------------

    def jobs(self) -> list[Job]:
        """Every job in queue order (finished ones stay, as history)."""
        rows = self._db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs ORDER BY position, id").fetchall()
        return [_job(r) for r in rows]

    def get(self, job_id: int) -> Job | None:
        row = self._db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id=?", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def next_waiting(self) -> Job | None:
        row = self._db.execute(
            f"SELECT {_JOB_COLUMNS} FROM jobs WHERE status=? ORDER BY position, id LIMIT 1", (Status.WAITING.value,)
        ).fetchone()
        return None if row is None else _job(row)

    def transcript(self, job_id: int) -> Transcript | None:
        """The stored transcript (full, or the partial one of a cancelled file)."""
        row = self._db.execute("SELECT transcript FROM jobs WHERE id=?", (job_id,)).fetchone()
        if row is None or row[0] is None:
            return None
        return transcript_from_dict(json.loads(row[0]))

    # -- changing -----------------------------------------------------------------

    def add(self, paths: Sequence[str | os.PathLike[str]]) -> list[Job]:
        """Append files to the end of the queue, in the given order."""
        now = time.time()
        added: list[Job] = []
        with self._db:
            self._db.execute("BEGIN")
            top = self._db.execute("SELECT COALESCE(MAX(position), 0) FROM jobs").fetchone()[0]
            for i, p in enumerate(paths, 1):
                path = os.fspath(p)
                cur = self._db.execute(
                    "INSERT INTO jobs(path, position, status, added_at) VALUES (?, ?, ?, ?)",
                    (path, top + i, Status.WAITING.value, now),
                )
                added.append(Job(int(cur.lastrowid or 0), path, top + i, Status.WAITING, added_at=now))
        return added

    def set_duration(self, job_id: int, duration: float | None) -> None:
        self._write("UPDATE jobs SET duration=? WHERE id=?", (duration, job_id))

    def start(self, job_id: int) -> None:
        self._write(
            "UPDATE jobs SET status=?, error=NULL, error_code=NULL, warning=NULL, warning_code=NULL, exported=NULL "
            "WHERE id=?",
            (Status.RUNNING.value, job_id),
        )

    def finish(self, job_id: int, transcript: Transcript, elapsed_s: float | None = None) -> None:
        """Commit a finished transcript (an incomplete one is done with warnings); durable once this returns."""
        text, code = warning_columns(incompleteness(transcript))
        self._write(
            "UPDATE jobs SET status=?, transcript=?, error=NULL, error_code=NULL, warning=?, warning_code=?, "
            "finished_at=?, elapsed_s=?, duration=COALESCE(duration, ?) WHERE id=?",
            (
                Status.DONE.value,
                transcript_json(transcript),
                text,
                code,
                time.time(),
                elapsed_s,
                transcript.duration,
                job_id,
            ),
        )

    def fail(self, job_id: int, reason: str, code: str | None = None) -> None:
        """Mark failed with the engine's English reason and, for a known problem, its code."""
        self._write(
            "UPDATE jobs SET status=?, error=?, error_code=?, finished_at=? WHERE id=?",
            (Status.FAILED.value, reason, code, time.time(), job_id),
        )

    def cancel(self, job_id: int, partial: Transcript | None = None) -> None:
        """Mark cancelled, keeping whatever part was transcribed before the request."""
        data = None
        if partial is not None and partial.segments:
            data = transcript_json(partial)
        self._write(
            "UPDATE jobs SET status=?, transcript=?, finished_at=? WHERE id=?",
            (Status.CANCELLED.value, data, time.time(), job_id),
        )

    def save_transcript(self, job_id: int, transcript: Transcript) -> None:
        """Keep an edited transcript (a speaker renamed) in place of the stored one; durable once this returns."""
        self._write("UPDATE jobs SET transcript=? WHERE id=?", (transcript_json(transcript), job_id))

    def set_speakers(self, job_ids: Sequence[int], speakers: str | None) -> None:
        """A file's own "Identify speakers" ("off", "auto", "2".."8"), or None to follow Settings."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("UPDATE jobs SET speakers=? WHERE id=?", [(speakers, i) for i in job_ids])

    def requeue(self, job_ids: Sequence[int]) -> None:
        """Send failed/cancelled/done files back to waiting (a retry); keeps their place."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "UPDATE jobs SET status=?, error=NULL, error_code=NULL, warning=NULL, warning_code=NULL, "
                "exported=NULL, transcript=NULL, finished_at=NULL, elapsed_s=NULL WHERE id=? AND status<>?",
                [(Status.WAITING.value, i, Status.RUNNING.value) for i in job_ids],
            )

    def remove(self, job_ids: Sequence[int]) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("DELETE FROM jobs WHERE id=?", [(i,) for i in job_ids])

    def reorder(self, job_ids: Sequence[int]) -> None:
        """Give the listed jobs positions 1..n in this order (the others keep theirs, after them)."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "UPDATE jobs SET position=? WHERE id=?", [(float(n), i) for n, i in enumerate(job_ids, 1)]
            )

    # -- files written for sources (automatic export) ------------------------------

    def written(self, path: str | os.PathLike[str]) -> WrittenFile | None:
        """What Tingji recorded when it wrote `path`, or None: a file Tingji did not write."""
        row = self._db.execute(
            "SELECT path, source, size, mtime_ns FROM written WHERE path=?", (file_key(path),)
        ).fetchone()
        return None if row is None else WrittenFile(*row)

    def record_written(self, job_id: int, source: str, paths: Sequence[Path]) -> None:
        """Remember the files just written for `source` (as they are now: size and mtime), and show
        them on the job."""
        now = time.time()
        rows = []
        for p in paths:
            st = p.stat()
            rows.append((file_key(p), file_key(source), st.st_size, st.st_mtime_ns, now))
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR REPLACE INTO written(path, source, size, mtime_ns, written_at) VALUES (?, ?, ?, ?, ?)", rows
            )
            self._db.execute(
                "UPDATE jobs SET exported=? WHERE id=?",
                (json.dumps([str(p) for p in paths], ensure_ascii=False), job_id),
            )

    def recover(self) -> int:
        """After a crash: files left "transcribing" go back to waiting. Returns how many."""
        cur = self._write("UPDATE jobs SET status=? WHERE status=?", (Status.WAITING.value, Status.RUNNING.value))
        return cur.rowcount


def transcript_json(transcript: Transcript) -> str:
    """What the store keeps of a transcript: `to_dict()` and the speakers' voice prints (for "Remember this
    voice"; float32 bytes in base64), which no export writes."""
    data = transcript.to_dict()
    if transcript.voice_prints:
        data["voice_prints"] = [
            {
                "embedding": base64.b64encode(np.asarray(p.embedding, "<f4").tobytes()).decode(),
                "windows": p.windows,
                "model": p.model,
            }
            for p in transcript.voice_prints
        ]
    return json.dumps(data, ensure_ascii=False)


def _voice_prints(data: dict[str, Any], speakers: int) -> list[VoicePrint]:
    """The stored prints, one per speaker; none when they do not fit (an older row, a hand-edited one)."""
    try:
        prints = [
            VoicePrint(
                np.frombuffer(base64.b64decode(p["embedding"]), "<f4").copy(), int(p["windows"]), str(p["model"])
            )
            for p in data.get("voice_prints") or []
        ]
    except (KeyError, TypeError, ValueError):
        return []
    return prints if len(prints) == speakers else []


def transcript_from_dict(data: dict[str, Any]) -> Transcript:
    """Rebuild a `Transcript` from `Transcript.to_dict()` output (what the store keeps).

    The stored whole text becomes the one "window text", so `.text` (Copy all, TXT export) is
    exactly what the engine returned, not a re-join of the display segments."""
    text = data.get("text")
    speakers = [str(n) for n in data.get("speakers") or []]
    number = {name: i for i, name in reversed(list(enumerate(speakers)))}  # a name given twice: its first number
    segments = [
        Segment(
            float(s["start"]),
            float(s["end"]),
            str(s["text"]),
            speaker=number.get(s.get("speaker")),
            words=_words(s.get("words"), number),
        )
        for s in data.get("segments", [])
    ]
    return Transcript(
        segments=segments,
        duration=float(data.get("duration") or 0.0),
        model=str(data.get("model") or ""),
        provider=str(data.get("provider") or ""),
        device=str(data.get("device") or ""),
        decoder_device=str(data.get("decoder_device") or ""),
        language=data.get("language"),
        source=data.get("source"),
        timings=dict(data.get("timings") or {}),
        windows=int(data.get("windows") or 0),
        skipped_windows=int(data.get("skipped_windows") or 0),
        warnings=_warnings(data),
        window_texts=[text] if isinstance(text, str) and text else [],
        family=str(data.get("family") or ""),
        complete=data.get("complete") is not False,
        speakers=speakers,
        voice_prints=_voice_prints(data, len(speakers)),
        speaker_granularity=str(data.get("speaker_granularity") or ""),
    )


def _words(items: Any, number: dict[str, int]) -> list[Word] | None:
    """A stored segment's timed words (`Word.to_dict`), their speakers numbered as the segments'; None: untimed."""
    if not isinstance(items, list):
        return None
    return [Word(float(w["start"]), float(w["end"]), str(w["text"]), number.get(w.get("speaker"))) for w in items]


def _warnings(data: dict[str, Any]) -> list[ErrorReport]:
    """A stored transcript's warnings: English lines, with their codes where the row has them."""
    codes = data.get("warning_codes") or []
    texts = [str(t) for t in data.get("warnings") or []]
    return [ErrorReport.from_data(t, codes[i] if i < len(codes) else None) for i, t in enumerate(texts)]
