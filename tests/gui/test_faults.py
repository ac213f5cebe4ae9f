"""Storage faults and unexpected errors in the desktop app (issue 17 item 2), with real parts only.

A real SQLite queue database made to fail with SQLITE_FULL (its page count capped, every page
filled), databases that are damaged or were written by a newer Tingji, real worker threads that
raise, and the real app started in a subprocess on a damaged database.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QApplication

from tests.support.audio import write_wav
from tests.support.gui import empty_the_filler, fill_to_the_brim
from tests.support.paths import ROOT
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app, create_window, setup_logging
from tingji.gui.engine_host import EngineState
from tingji.gui.faults import FaultReporter
from tingji.gui.files.storage import SCHEMA_VERSION, Status, Store
from tingji.gui.main_window import MainWindow
from tingji.gui.settings import Settings
from tingji.gui.threads import start_worker, stop_threads
from tingji.paths import gui_log_path

pytestmark = pytest.mark.gui
RUN_TIMEOUT_MS = 180_000


def _open(qtbot) -> MainWindow:
    create_app()
    window = create_window(tray=False, use_hotkey=False)
    qtbot.addWidget(window)
    window.show()
    return window


def _rows(db: Path) -> dict[str, str]:
    """name -> status, read through another connection as a restarted app would."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT path, status FROM jobs WHERE path NOT LIKE '/filler/%'")
        return {Path(p).name: s for p, s in rows}
    finally:
        con.close()


def test_a_full_database_never_stalls_the_queue_and_keeps_the_transcripts(
    qtbot, home: Path, tiny_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    media = tmp_path / "media"
    media.mkdir()
    a = write_wav(media / "a.wav", speech_en)
    b = write_wav(media / "b.wav", speech_en[: len(speech_en) // 2])
    c = write_wav(media / "c.wav", speech_en[::-1].copy())
    settings_mod.save(Settings())  # no model yet: the files wait while the database fills up
    window = _open(qtbot)
    controller = window.controller
    qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.NONE, timeout=10_000)
    first, second = controller.add_paths([str(a), str(b)])
    db = controller.store._db  # the app's own connection: the cap is per connection
    pages = fill_to_the_brim(db)

    window.apply_settings(replace(window.settings, model=str(tiny_model)))
    qtbot.waitUntil(
        lambda: all(controller.model.job_by_id(j.id).status is Status.DONE for j in (first, second)),
        timeout=RUN_TIMEOUT_MS,
    )  # the queue went on through the failed writes
    on_disk = _rows(home / "tingji.sqlite3")
    assert on_disk["a.wav"] != "done" and on_disk["b.wav"] != "done"  # the writes really failed
    assert "database or disk is full" in controller.storage_error
    assert controller.unsaved_count == 2
    banner = window.storage_banner
    assert banner.isVisible() and "database or disk is full" in banner.label.text()
    assert "2 finished transcript(s) are kept only in memory" in banner.label.text()

    kept = controller.transcript(first.id)  # in memory, shown like any other
    assert kept is not None and kept.segments
    window.files.queue.select_job(first.id)
    assert window.files.panel.shown_segments() == [s.text.strip() for s in kept.segments]
    assert "Not saved" in window.files.panel.warning.text() and window.files.panel.export_button.isEnabled()

    out = tmp_path / "rescued"
    out.mkdir()
    (out / "a.txt").write_text("my own notes", encoding="utf-8")  # never replaced
    window.apply_settings(replace(window.settings, formats=["txt", "json"]))
    window.storage_banner.save_to(str(out))
    assert (out / "a.txt").read_text(encoding="utf-8") == "my own notes"
    assert json.loads((out / "a (2).json").read_text(encoding="utf-8"))["text"] == kept.text
    assert (out / "a (2).txt").read_text(encoding="utf-8").strip() and (out / "b.txt").is_file()

    empty_the_filler(db)  # room again
    (third,) = controller.add_paths([str(c)])
    qtbot.waitUntil(lambda: controller.model.job_by_id(third.id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)
    assert _rows(home / "tingji.sqlite3") == {"a.wav": "done", "b.wav": "done", "c.wav": "done"}
    assert controller.unsaved_count == 0 and controller.storage_error == ""
    assert not banner.isVisible()
    assert controller.store.transcript(first.id).text == kept.text  # the kept one reached the store
    print(
        f"\nqueue database capped at {pages} pages and filled: 2 files done in memory, saved to a folder "
        "without replacing a.txt, stored once there was room; the third file ran and was stored"
    )
    window.close()


def _damage(path: Path) -> bytes:
    data = b"this is not a SQLite database, it was damaged " * 100
    path.write_bytes(data)
    return data


def test_damaged_and_newer_databases_are_set_aside_and_the_app_starts(qtbot, home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True)
    settings_mod.save(Settings())
    queue_bytes = _damage(home / "tingji.sqlite3")
    history_bytes = _damage(home / "dictation.sqlite3")
    window = _open(qtbot)
    text = window.storage_banner.label.text()
    assert window.storage_banner.isVisible()
    assert "The queue database could not be read (file is not a database)" in text
    assert "The dictation history could not be read" in text
    bad = sorted(home.glob("tingji.sqlite3.bad-*"))
    assert len(bad) == 1 and bad[0].read_bytes() == queue_bytes and str(bad[0]) in text  # kept, and said where
    assert sorted(home.glob("dictation.sqlite3.bad-*"))[0].read_bytes() == history_bytes
    (job,) = window.controller.add_paths([str(tmp_path / "later.wav")])  # the fresh database works
    window.storage_banner.buttons[-1].click()  # Dismiss
    assert not window.storage_banner.isVisible()
    window.close()

    # A database written by a newer Tingji: set aside too (not damaged; the newer app can read it).
    store = Store(home / "tingji.sqlite3")
    assert [j.id for j in store.jobs()] == [job.id]
    store.close()
    con = sqlite3.connect(home / "tingji.sqlite3")
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.close()
    settings_mod.save(Settings(ui_language="zh_CN"))
    try:
        window = _open(qtbot)
        text = window.storage_banner.label.text()
        assert "队列数据库由更新版本的听记写入" in text, text
        newer = sorted(home.glob("tingji.sqlite3.newer-*"))
        assert len(newer) == 1 and str(newer[0]) in text
        assert window.controller.model.jobs() == []  # an empty queue, and the app runs
        window.close()
    finally:
        i18n.install(QApplication.instance(), "en")
    con = sqlite3.connect(newer[0])
    assert con.execute("SELECT COUNT(*) FROM jobs").fetchone()[0] == 1  # nothing in it was lost
    con.close()
    print(
        "\ndamaged tingji.sqlite3 and dictation.sqlite3 set aside as .bad-*, a newer one as .newer-*; "
        "each time the app started and said where the file went"
    )


class _Raiser(QObject):
    boom = Signal()

    @Slot()
    def fail(self) -> None:
        raise RuntimeError("a worker slot failed")


def test_unexpected_errors_in_any_thread_are_logged_and_shown(qtbot, home: Path) -> None:
    app = create_app()
    root_level = logging.getLogger().level
    handler = setup_logging()  # sets the root level for the app; put back below
    reporter = FaultReporter(gui_log_path())
    reporter.install()
    raiser = _Raiser()
    thread = start_worker(raiser, "tingji-test-raiser")
    try:
        raiser.boom.connect(raiser.fail)
        raiser.boom.emit()  # queued to the worker's QThread
        plain = threading.Thread(target=lambda: 1 / 0, name="tingji-test-plain")
        plain.start()
        plain.join()
        QTimer.singleShot(0, lambda: {}["missing key on the GUI thread"])
        qtbot.waitUntil(lambda: reporter.dialog is not None and reporter.count == 3, timeout=10_000)
    finally:
        reporter.uninstall()
        stop_threads([thread])
        logging.getLogger().removeHandler(handler)
        logging.getLogger().setLevel(root_level)
        handler.close()
    log = gui_log_path().read_text(encoding="utf-8")
    for thread_name, error in (
        ("tingji-test-raiser", "RuntimeError: a worker slot failed"),
        ("tingji-test-plain", "ZeroDivisionError"),
        ("MainThread", "KeyError: 'missing key on the GUI thread'"),
    ):
        assert f"unexpected error in thread {thread_name}" in log and error in log, (thread_name, log)
    dialog = reporter.dialog
    assert dialog.isVisible() and str(gui_log_path()) in dialog.text()
    assert "2 more problem(s)" in dialog.text()
    dialog.close()
    assert app is QApplication.instance()
    print(
        f"\n3 unexpected errors (QThread slot, Python thread, GUI thread) logged in {gui_log_path().name}, "
        "one dialog counting them"
    )


_START_SCRIPT = """
import sys, threading
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from tingji.gui.app import create_app, run_app
from tingji.gui.main_window import MainWindow

app = create_app()

def check():
    window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
    print("BANNER", window.storage_banner.isVisible(), window.storage_banner.label.text(), flush=True)
    worker = threading.Thread(target=lambda: [][1], name="tingji-probe-fault")
    worker.start()
    worker.join()
    def shown():
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        if not boxes:
            QTimer.singleShot(50, shown)
            return
        print("DIALOG", boxes[0].text().replace("\\n", " "), flush=True)
        window.quit_app()
    shown()

QTimer.singleShot(500, check)
sys.exit(run_app())
"""


def test_the_app_starts_on_a_damaged_database_and_logs_what_happened(home: Path) -> None:
    """The real start-up path in its own process: logging, the fault hooks, the window, quitting."""
    home.mkdir(parents=True)
    settings_mod.save(Settings())
    _damage(home / "tingji.sqlite3")
    env = {
        **os.environ,
        "TINGJI_HOME": str(home),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), os.environ.get("PYTHONPATH", "")]),
    }
    r = subprocess.run([sys.executable, "-c", _START_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    banner = next(line for line in r.stdout.splitlines() if line.startswith("BANNER "))
    assert banner.startswith("BANNER True") and "could not be read" in banner
    dialog = next(line for line in r.stdout.splitlines() if line.startswith("DIALOG "))
    assert "IndexError: list index out of range" in dialog and "tingji-gui.log" in dialog
    log = (home / "logs" / "tingji-gui.log").read_text(encoding="utf-8")
    assert "set aside as tingji.sqlite3.bad-" in log
    assert "unexpected error in thread tingji-probe-fault" in log and "IndexError" in log
    print(
        "\nthe app started in a fresh process on a damaged tingji.sqlite3: banner shown, the set-aside and a "
        "thread's error logged in logs/tingji-gui.log, the error shown in a dialog, exit status 0"
    )
