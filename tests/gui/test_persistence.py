"""Kill the app mid-queue (SIGKILL, no chance to clean up), reopen it: nothing finished is lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from tests.support.audio import write_wav
from tests.support.gui import long_speech
from tests.support.paths import ROOT
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app, create_window
from tingji.gui.files.storage import Status
from tingji.gui.settings import Settings

pytestmark = pytest.mark.gui


def _rows(db: Path) -> dict[str, tuple[str, str | None, float | None]]:
    """name -> (status, transcript text, finished_at), read as another process would."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = con.execute("SELECT path, status, transcript, finished_at FROM jobs").fetchall()
    finally:
        con.close()
    return {Path(p).name: (s, json.loads(t)["text"] if t else None, f) for p, s, t, f in rows}


def test_killed_mid_queue_reopens_with_results_and_resumes(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_model: Path, speech_en: np.ndarray
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TINGJI_HOME", str(home))
    settings_mod.save(Settings(model=str(tiny_model)))
    first = write_wav(tmp_path / "first.wav", speech_en)
    long = long_speech(tmp_path / "long.wav", speech_en)
    last = write_wav(tmp_path / "last.wav", speech_en[::-1].copy())

    env = {
        **os.environ,
        "TINGJI_HOME": str(home),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), os.environ.get("PYTHONPATH", "")]),
    }
    code = "import sys; from tingji.gui.app import run_app; sys.exit(run_app(files=sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(first), str(long), str(last)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    db = home / "tingji.sqlite3"
    deadline = time.monotonic() + 180
    rows: dict = {}
    try:
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode(errors="replace")[-2000:]
            if db.exists():
                try:
                    rows = _rows(db)
                except sqlite3.OperationalError:  # the schema is being created
                    rows = {}
                if rows.get("first.wav", ("",))[0] == "done" and rows.get("long.wav", ("",))[0] == "transcribing":
                    break
            time.sleep(0.05)
        else:
            pytest.fail(f"the queue did not get going: {rows}")
        proc.kill()  # SIGKILL (TerminateProcess on Windows), mid-transcription of long.wav
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
        proc.stderr.close()
    assert proc.returncode == (-signal.SIGKILL if os.name == "posix" else 1)

    after_kill = _rows(db)
    assert after_kill["first.wav"][0] == "done" and after_kill["first.wav"][1] is not None
    assert after_kill["long.wav"][0] == "transcribing"
    assert after_kill["last.wav"][0] == "waiting"

    # Reopen (in this process, same data folder): the interrupted file is waiting again and the
    # queue resumes; the finished result is untouched.
    create_app()
    window = create_window()
    qtbot.addWidget(window)
    by_name = {j.name: j for j in window.controller.model.jobs()}
    assert by_name["long.wav"].status is Status.WAITING
    assert by_name["first.wav"].status is Status.DONE
    window.show()

    def all_done() -> bool:
        return all(j.status is Status.DONE for j in window.controller.model.jobs())

    qtbot.waitUntil(all_done, timeout=180_000)
    window.close()
    final = _rows(db)
    assert final["first.wav"] == after_kill["first.wav"]  # same text, same finish time: not redone
    assert final["long.wav"][0] == final["last.wav"][0] == "done"
    assert QApplication.instance() is not None
