"""Helpers for the GUI tests: the app's window, real drops, test media, an event-loop stall meter, a full
queue database."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from tests.support.audio import write_wav


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
    """Records the longest gap between ticks of a 5 ms timer: how long the GUI thread was blocked."""

    def __init__(self, interval_ms: int = 5) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.max_gap_s = 0.0
        self.ticks = 0
        self._last: float | None = None

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.max_gap_s = max(self.max_gap_s, now - self._last)
        self._last = now
        self.ticks += 1

    def start(self) -> None:
        self._last = None
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()


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
