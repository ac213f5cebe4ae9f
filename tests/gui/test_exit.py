"""The app ends cleanly: every Qt object has one owner, and quitting mid-download exits with 0 and no Qt warning.

A QObject that Python owns while a Qt parent owns it too is deleted twice over at the
interpreter's exit, when PySide deletes what Python owns in no set order: the test process
printed "QObject: shared QObject was deleted directly" and died by SIGSEGV after
test_models.py's main-window test (2 runs in 2). PySide leaves a widget so when it was put
in a layout no widget held yet, and a dialog after `exec()` (gui/__init__.py, "Ownership").
The first test finds such objects the way the crash did, through Python's own list of
objects (`findChildren` would hide them: PySide hands every child it returns to its
parent); the second runs the real app (`run_app`) in a child process, quits it while the
first-run picker downloads and the model manager is open, and reads how the process ended.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from tests.support.https_server import FileServer, trust_local_ca
from tests.support.paths import ROOT
from tingji.gui.app import create_app, create_window

pytestmark = pytest.mark.gui

_EXIT_WARNINGS = (
    "shared QObject was deleted directly",
    "QThread: Destroyed while thread",
    "Timers cannot be stopped from another thread",
    "Fatal Python error",
    "did not stop in time",
)


def double_owners() -> list[str]:
    """Live QObjects that Python owns although they have a Qt parent, as "Class in ParentClass"."""
    found = []
    for obj in gc.get_objects():  # not findChildren(): it hands what it returns to the parent
        if not isinstance(obj, QObject) or not shiboken6.isValid(obj) or not shiboken6.ownedByPython(obj):
            continue
        parent = obj.parent()
        if parent is not None:
            found.append(f"{type(obj).__name__} in {type(parent).__name__}")
    return sorted(found)


def _close_when_modal(seen: list[str]) -> None:
    dialog = QApplication.activeModalWidget()
    if dialog is None:
        QTimer.singleShot(20, lambda: _close_when_modal(seen))
        return
    seen.append(type(dialog).__name__)
    dialog.reject()


def test_the_window_and_its_dialogs_leave_every_qt_object_one_owner(qtbot, home: Path) -> None:
    create_app()
    window = create_window(tray=True, use_hotkey=False)  # the tray too: its menu is the window's
    qtbot.addWidget(window, before_close_func=lambda w: w.quit_app())
    window.show()
    qtbot.waitUntil(lambda: window.models.picker is not None, timeout=10_000)  # no model: the picker opens
    window.show_page("dictation")
    assert double_owners() == []

    seen: list[str] = []
    QTimer.singleShot(0, lambda: _close_when_modal(seen))
    window.models.open_manager()
    QTimer.singleShot(0, lambda: _close_when_modal(seen))
    window.open_settings()
    assert seen == ["ModelManagerDialog", "SettingsDialog"]
    assert double_owners() == []  # exec() made each dialog Python's too; closed, they were handed to Qt
    window.quit_app()
    assert double_owners() == []


_CHILD = r"""
import gc, sys
import shiboken6
from PySide6.QtCore import QThread, QTimer
from PySide6.QtWidgets import QApplication
from tingji.gui.app import create_app, run_app
from tingji.gui.main_window import MainWindow
from tingji.gui.models.manager import ModelManagerDialog

app = create_app()
state = {"step": "picker"}
QTimer.singleShot(180_000, lambda: (print("stuck at", state["step"], flush=True), window().quit_app()))

def window():
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None)

def drive():
    w = window()
    picker = w.models.picker if w is not None else None
    if state["step"] == "picker" and picker is not None and picker.isVisible() and picker.cards:
        picker.cards[0].button.click()
        state["step"] = "downloading"
    elif state["step"] == "downloading" and picker.task_box.progress_bar.value() > 0:
        state["step"] = "manager"
        QTimer.singleShot(0, w.models.open_manager)  # modal: its own loop runs this timer from here on
    elif state["step"] == "manager" and isinstance(QApplication.activeModalWidget(), ModelManagerDialog):
        state["step"] = "quit"
        print("quitting with a download running and the model manager open", flush=True)
        w.quit_app()  # as the tray's Quit or Ctrl+Q: the picker's download is cancelled, every thread ends
        return
    QTimer.singleShot(20, drive)

QTimer.singleShot(0, drive)
code = run_app(argv=[sys.argv[0]])
running = [o for o in gc.get_objects() if isinstance(o, QThread) and shiboken6.isValid(o) and o.isRunning()]
print(f"run_app returned {code}; threads still running: {len(running)}; steps done: {state['step']}", flush=True)
sys.exit(code)
"""


def _catalog(path: Path, url: str) -> Path:
    entry = {
        "name": "slow-model",
        "kind": "tingji-model",
        "title": "A model whose download never ends",
        "archives": [{"name": "slow.zip", "urls": [url], "size": None, "sha256": None}],
        "files": [{"path": "manifest.json"}],
        "about": {
            "family": "sense-voice-small",
            "download_mb": 2,
            "languages": ["zh", "en"],
            "speed": "fastest",
            "best_for": ["dictation"],
            "rank": 1,
        },
    }
    path.write_text(json.dumps({"format": 1, "models": [entry]}), encoding="utf-8")
    return path


def test_quitting_mid_download_with_the_manager_open_exits_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trust_local_ca(monkeypatch)  # the child inherits SSL_CERT_FILE
    with FileServer({"/slow.zip": os.urandom(2_000_000)}) as server:
        server.behaviour["/slow.zip"] = {"stall_after": 200_000}  # goes quiet: the download is in flight
        env = dict(
            os.environ,
            QT_QPA_PLATFORM="offscreen",
            PYTHONPATH=os.pathsep.join([str(ROOT / "app"), str(ROOT)]),
            TINGJI_CATALOG=str(_catalog(tmp_path / "catalog.json", server.url("/slow.zip"))),
            PYTHONFAULTHANDLER="1",
        )
        for run in range(2):  # the crash it guards against came at random points of the exit
            home = tmp_path / f"home{run}"
            env["TINGJI_HOME"] = str(home)
            child = subprocess.run(
                [sys.executable, "-c", _CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
            )
            said = f"exit {child.returncode}\nstdout:\n{child.stdout[-3000:]}\nstderr:\n{child.stderr[-3000:]}"
            assert child.returncode == 0, said
            assert "run_app returned 0; threads still running: 0; steps done: quit" in child.stdout, said
            assert not [w for w in _EXIT_WARNINGS if w in child.stderr], said
            log = (home / "logs" / "tingji-gui.log").read_text(encoding="utf-8")
            assert not [w for w in _EXIT_WARNINGS if w in log], log[-3000:]
            parts = list((home / "cache" / "slow-model").rglob("*.part"))
            assert parts and parts[0].stat().st_size > 0, "the cancelled download keeps its partial file"
