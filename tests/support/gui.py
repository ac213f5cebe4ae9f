"""Helpers for the GUI tests: the app's window, real drops, test media, an event-loop stall meter, a full
queue database."""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from tests.support.audio import write_wav

T = TypeVar("T")


def open_window(qtbot, mics: list | None = None, **options):
    """The app's window as `tingji` opens it (gui/app.py), dictation listening to scripted microphones
    (each one made is added to `mics`), shown; closing it at the test's end really quits.
    `options`: create_window's (tray, use_hotkey, model_picker)."""
    from tingji.gui.app import create_app, create_window

    create_app()

    def microphone(settings) -> ScriptedMicrophone:
        mic = ScriptedMicrophone(settings)
        if mics is not None:
            mics.append(mic)
        return mic

    window = create_window(dictation_microphone=microphone, **options)
    qtbot.addWidget(window, before_close_func=lambda w: w.quit_app())  # really quit, even with a tray
    window.show()
    return window


def drop_files(widget: QWidget, paths: Sequence[Path], at: QPoint | None = None) -> None:
    """Send a real drag-enter + drop with file URLs to `widget`, as a file manager would."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = at or widget.rect().center()
    enter = QDragEnterEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted(), "the window refused the drag"
    drop = QDropEvent(
        QPointF(pos), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(widget, drop)
    assert drop.isAccepted(), "the window refused the drop"


def long_speech(path: Path, speech: np.ndarray, repeats: int = 40) -> Path:
    """`speech` repeated with short pauses: several 60 s windows, seconds of work for the tiny model."""
    gap = np.zeros(8000, np.float32)
    return write_wav(path, np.concatenate([np.concatenate([speech, gap])] * repeats))


class StallMeter:
    """How long the GUI thread was kept from its event loop, from the late ticks of a 5 ms timer.

    A tick comes late because the GUI thread was working, or waiting (a lock, a join, the GIL held
    by a worker), or ready to run with no core free. The last is other programs' doing on a busy
    machine, and so is a worker that held the GIL while it waited for a core. `max_stall_s` is the
    longest gap less the time the kernel counted as waiting for a core in it (Linux's schedstat),
    for the GUI thread and for the one other thread of this process that waited longest (the GIL's
    holder, if the GUI thread waited for it), and less the time spent in calls wrapped by `excusing`
    (waits the app accepts by design): a gap the app's own work or other waits make stays in it.
    `max_gap_s` is the longest gap as it was; where the kernel gives no such count the two agree.
    """

    def __init__(self, interval_ms: int = 5) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.max_gap_s = 0.0
        self.max_stall_s = 0.0
        self.ticks = 0
        self._last: float | None = None
        self._queued: dict[int, float] = {}  # thread id -> seconds it waited for a core, at the last tick
        self._gui = threading.get_native_id()  # made and ticking on the GUI thread
        self._tasks = Path(f"/proc/{os.getpid()}/task")
        self._files: dict[int, int] = {}  # thread id -> its open schedstat file
        self._excused = 0.0  # seconds the GUI thread spent in excused calls since the last tick
        self.excused_s = 0.0  # ... in all

    def _queued_now(self) -> dict[int, float]:
        """Each thread's total wait for a core so far, in seconds (empty where the kernel does not say)."""
        out = {}
        try:
            tids = [int(name) for name in os.listdir(self._tasks)]
        except OSError:
            return out
        for tid in tids:
            try:
                fd = self._files.get(tid)
                if fd is None:
                    fd = self._files[tid] = os.open(self._tasks / str(tid) / "schedstat", os.O_RDONLY)
                out[tid] = int(os.pread(fd, 64, 0).split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                fd = self._files.pop(tid, None)
                if fd is not None:
                    os.close(fd)
        for tid in self._files.keys() - out.keys():  # threads that ended
            os.close(self._files.pop(tid))
        return out

    def _tick(self) -> None:
        queued, now = self._queued_now(), time.perf_counter()
        if self._last is not None:
            gap = now - self._last
            waited = {tid: q - self._queued[tid] for tid, q in queued.items() if tid in self._queued}
            gui = waited.pop(self._gui, 0.0)
            other = max(waited.values(), default=0.0)
            self.max_gap_s = max(self.max_gap_s, gap)
            stall = gap - gui - min(other, max(0.0, gap - gui)) - self._excused
            self.max_stall_s = max(self.max_stall_s, stall)
        self._last, self._queued, self._excused = now, queued, 0.0
        self.ticks += 1

    def excusing(self, fn: Callable[..., T]) -> Callable[..., T]:
        """`fn`, with the time the GUI thread spends in it left out of the stalls."""

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> T:
            if threading.get_native_id() != self._gui:
                return fn(*args, **kwargs)
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - t
                self._excused += spent
                self.excused_s += spent

        return timed

    def start(self) -> None:
        self._last = None
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()

    def summary(self) -> str:
        excused = f", {self.excused_s * 1000:.0f} ms in excused calls" if self.excused_s else ""
        return (
            f"{self.max_stall_s * 1000:.1f} ms ({self.max_gap_s * 1000:.1f} ms as it was{excused}; {self.ticks} ticks)"
        )


# The queue database's writers: each commits on the GUI thread and is fsynced (gui/files/storage.py, synchronous
# FULL), so a finished transcript survives a crash. How long that takes is the disk's business: 30-80 ms a write
# here while other programs used the disk.
QUEUE_WRITES = ("add", "set_duration", "start", "finish", "fail", "cancel", "requeue", "remove", "reorder")


def excuse_queue_writes(meter: StallMeter, monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave the GUI thread's durable queue writes out of `meter`'s stalls (the rest of its waits stay in)."""
    from tingji.gui.files.storage import Store

    for name in QUEUE_WRITES:
        monkeypatch.setattr(Store, name, meter.excusing(getattr(Store, name)))


class ScriptedMicrophone:
    """The dictation controller's microphone without a sound card (capture.Microphone's interface).

    The test "speaks" by calling `speak(samples)`: the blocks go to the controller's live
    VAD and, while a take is recording, into the take, as the real microphone's worker
    thread delivers them. Everything after the microphone (VAD, WAV, engine, history,
    output, the panel) is the real thing."""

    def __init__(self, settings: object = None) -> None:
        import threading

        self.on_audio = None
        self.on_error = None
        self.recording = False
        self.closed = False
        self._parts: list[np.ndarray] = []
        self._lock = threading.Lock()

    def open(self) -> None:
        pass

    def prepare(self, armed: bool = True) -> None:
        pass

    def begin(self) -> None:
        with self._lock:
            self.recording, self._parts = True, []

    def end(self, tail_s: float | None = None):
        from tingji.dictation.capture import TakeAudio

        with self._lock:
            self.recording = False
            samples = np.concatenate(self._parts) if self._parts else np.zeros(0, np.float32)
        return TakeAudio(samples.astype(np.float32))

    def set_options(self, **kwargs: object) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def speak(self, samples: np.ndarray, block: int = 512) -> None:
        for i in range(0, len(samples), block):
            chunk = np.ascontiguousarray(samples[i : i + block], dtype=np.float32)
            with self._lock:
                live = self.recording
                if live:
                    self._parts.append(chunk)
            if live and self.on_audio is not None:
                self.on_audio(chunk)


def fill_to_the_brim(db: sqlite3.Connection) -> int:
    """Cap the queue database at its current size and fill its jobs page to the last byte with rows of
    finished history: from now on any write that makes a row bigger (a file starting, a transcript)
    fails with SQLite's own SQLITE_FULL. Returns the page count. (While the database is this small,
    every job is in one page: with the cap, the page cannot split.)"""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")

    def fits(sql: str, *args: object) -> bool:
        try:
            db.execute(sql, args)
        except sqlite3.OperationalError as exc:
            assert "database or disk is full" in str(exc)
            return False
        return True

    for size in (1024, 256, 64, 16, 4, 1):  # new rows, while the table and its index take them
        while fits(
            "INSERT INTO jobs(path, position, status, added_at) VALUES (?, 0, 'done', 0)", "/filler/" + "x" * size
        ):
            pass
    last = db.execute("SELECT MAX(id) FROM jobs WHERE path LIKE '/filler/%'").fetchone()[0]
    for size in (256, 64, 16, 4, 1):  # then the last row grows into whatever the table's page has left
        while fits("UPDATE jobs SET path = path || ? WHERE id=?", "x" * size, last):
            pass
    assert db.execute("PRAGMA page_count").fetchone()[0] == pages
    return pages


def empty_the_filler(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM jobs WHERE path LIKE '/filler/%'")
