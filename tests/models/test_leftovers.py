"""Half-installed models a crash left behind are cleaned when the app or `tingji models` starts.

Real processes: the desktop app (offscreen) and the CLI, started on a data
folder holding a crashed install (`.incoming-*`, its lock file not held), a
crashed removal (`.removing-*`) and a live install (its lock held by this test).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.paths import ROOT
from tingji.models.staging import Staging
from tingji.paths import gui_log_path, models_dir


def leave_leftovers() -> tuple[Path, Path]:
    dead = models_dir() / ".incoming-crashed-deadbeef"
    (dead / "model").mkdir(parents=True)
    (dead / "model" / "decoder.gguf").write_bytes(b"half" * 1000)
    (dead / ".lock").write_text("")  # its installer is gone: nobody holds the lock
    removing = models_dir() / ".removing-old-12345678"
    removing.mkdir()
    return dead, removing


def env(home: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT / "app"), TINGJI_HOME=str(home), QT_QPA_PLATFORM="offscreen")


def test_the_desktop_app_cleans_leftovers_at_start_up(home):
    dead, removing = leave_leftovers()
    with Staging("live") as live:  # an install running in another process keeps its folder
        app = subprocess.Popen(
            [sys.executable, "-m", "tingji", "gui"],
            env=env(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            log = gui_log_path()
            deadline = time.monotonic() + 120
            while "start-up: removed" not in (log.read_text(encoding="utf-8") if log.exists() else ""):
                assert app.poll() is None, f"the app exited: {app.stderr.read() if app.stderr else ''}"
                assert time.monotonic() < deadline, "the app started but never cleaned the leftovers"
                time.sleep(0.05)  # waiting for the app's log line, not for time to pass
        finally:
            app.kill()
            app.wait()
        line = next(x for x in log.read_text(encoding="utf-8").splitlines() if "start-up: removed" in x)
        assert not dead.exists() and not removing.exists()
        assert live.dir.exists()
    print(f"the app's log: {line.split(': ', 1)[-1]}; the live install's folder was kept")


def test_tingji_models_cleans_leftovers_at_start_up(home):
    dead, removing = leave_leftovers()
    with Staging("live") as live:
        r = subprocess.run(
            [sys.executable, "-m", "tingji", "models", "list"],
            env=env(home),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        assert not dead.exists() and not removing.exists()
        assert live.dir.exists()
    assert "crashed" not in r.stdout and "no models installed" in r.stdout
    print("`tingji models list` removed the crashed install and removal, kept the live one")
