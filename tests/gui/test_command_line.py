"""`tingji-gui FILE...`: the files on the program's command line are queued (Windows starts it so
when files are dropped on its shortcut), Qt's own options are not taken for files, and a lock left
by a killed app whose process ID came back is no reason to refuse to start."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QLockFile

from tests.support.audio import write_wav
from tests.support.paths import ROOT
from tingji.gui import settings as settings_mod
from tingji.gui.app import command_line_files, take_app_lock
from tingji.gui.settings import Settings

pytestmark = pytest.mark.gui


def test_command_line_files_are_the_arguments_qt_leaves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["tingji-gui", "-platform", "offscreen", "a b.wav", "-style", "fusion", "会议 录音.mp3", "a b.wav"]
    # What QApplication leaves on Linux: its options taken out.
    kept = ["tingji-gui", "a b.wav", "会议 录音.mp3", "a b.wav"]
    want = [str(tmp_path / "a b.wav"), str(tmp_path / "会议 录音.mp3"), str(tmp_path / "a b.wav")]
    assert command_line_files(argv, kept) == want
    # On Windows Qt rebuilds its list from the process's command line: a script's interpreter
    # arguments come first, and are no files of ours.
    windows = ["python.exe", "-m", "tingji", "a b.wav", "会议 录音.mp3", "a b.wav"]
    assert command_line_files(argv, windows) == want
    assert command_line_files(["tingji-gui", "-platform", "offscreen"], ["tingji-gui"]) == []


def _rows(db: Path) -> dict[str, str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return {path: status for path, status in con.execute("SELECT path, status FROM jobs")}
    finally:
        con.close()


def test_tingji_gui_queues_and_transcribes_the_files_it_is_given(
    tmp_path: Path, tiny_model: Path, speech_en: np.ndarray
) -> None:
    """gui_main() - the `tingji-gui` program - with `-platform offscreen` and a file whose folder and
    name have spaces and CJK characters: no QT_QPA_PLATFORM and no display, so only Qt's own handling
    of `-platform` can start it, and the file is done without anything else asking for it."""
    home = tmp_path / "home"
    home.mkdir()
    folder = tmp_path / "会议 录音"
    folder.mkdir()
    clip = write_wav(folder / "第一段 talk.wav", speech_en)
    settings_mod.save(Settings(model=str(tiny_model)), home / "settings.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "DISPLAY", "WAYLAND"))}
    env.update(TINGJI_HOME=str(home), PYTHONPATH=str(ROOT / "app"))
    code = "import sys; from tingji.cli import gui_main; sys.exit(gui_main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "-platform", "offscreen", clip.name],
        cwd=folder,  # a relative path, as a shell passes it
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    db, rows = home / "tingji.sqlite3", {}
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and rows.get(str(clip)) != "done":
            assert proc.poll() is None, proc.stderr.read().decode(errors="replace")[-3000:]
            try:
                rows = _rows(db) if db.exists() else {}
            except sqlite3.OperationalError:  # the schema is being created
                rows = {}
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait(30)
        proc.stderr.close()
    assert rows == {str(clip): "done"}, rows  # the one file, by its absolute path; no option taken for a file
    log = (home / "logs" / "tingji-gui.log").read_text(encoding="utf-8")
    assert "Traceback" not in log, log[-3000:]


def test_a_lock_naming_this_process_is_taken_over(tmp_path: Path) -> None:
    """Windows gives a new process the ID of the killed Tingji that left its lock: that lock is stale."""
    path = tmp_path / "gui.lock"
    written = QLockFile(str(path))  # Qt's own lock file naming this process...
    assert written.tryLock(0)
    contents = path.read_bytes()
    written.unlock()
    path.write_bytes(contents)  # ...left behind by a process that no longer holds it
    assert not QLockFile(str(path)).tryLock(0)  # what Qt alone makes of it: "already running"
    lock = QLockFile(str(path))
    assert take_app_lock(lock)
    lock.unlock()


def test_a_lock_held_by_a_live_app_is_respected(tmp_path: Path) -> None:
    path = tmp_path / "gui.lock"
    code = (
        "import sys, time; from PySide6.QtCore import QLockFile\n"
        "lock = QLockFile(sys.argv[1]); assert lock.tryLock(0); print('held', flush=True); time.sleep(60)"
    )
    other = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        assert not take_app_lock(QLockFile(str(path)))
    finally:
        other.kill()
        other.wait(30)
        other.stdout.close()
