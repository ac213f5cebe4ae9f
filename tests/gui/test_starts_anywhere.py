"""Issue 47, proof 4: the app starts on a machine without an optional system library.

A fresh Debian printed "the desktop app cannot start (libpulse.so.0: cannot open shared
object file)": libQt6Multimedia links PulseAudio's client and the app imported it at start,
only to play a segment. Here the real app (`run_app`, offscreen) runs in a child process
whose loader cannot load a library: a folder first on LD_LIBRARY_PATH holds an empty file of
that name, and the loader stops at it ("file too short") as it would at a missing one. The
window must open; then playing a segment (libpulse hidden) or dictating (PortAudio hidden)
must say, in the status bar or on the dictation page, which library is missing and which
package provides it; so must playback when Qt Multimedia loads but its FFmpeg backend plugin
does not (libXrandr.so.2 hidden). Then Qt's platform plugin: libxcb-cursor.so.0 hidden from the
xcb plugin under Xvfb, and xcb without a DISPLAY; instead of Qt's abort (SIGABRT and a paragraph),
the terminal gets one line, naming the package where a library is missing; as it does when a
library Qt's own modules link is missing (libEGL.so.1), before any of the app can load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.audio import write_wav
from tests.support.paths import ROOT
from tests.support.pulse import VirtualDisplay
from tingji.gui import settings as settings_mod
from tingji.gui.settings import Settings
from tingji.gui.startup import platform_names, platform_problem
from tingji.system_libraries import PORTAUDIO, PULSE, library

pytestmark = [pytest.mark.gui, pytest.mark.xdist_group("desktop")]  # an Xvfb display of its own
DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"  # the committed demo model: nothing to build

# The child: the real app; a timer drives it once the window is up, then quits it.
_CHILD = r"""
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from tingji.gui.app import run_app
from tingji.gui.main_window import MainWindow

clip, out, dictate = sys.argv[1], sys.argv[2], sys.argv[3] == "dictate"
said = {}
state = {"step": "window", "waits": 0}

def window():
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None)

def done():
    with open(out, "w", encoding="utf-8") as f:
        json.dump(said, f)
    window().quit_app()

def drive():
    w = window()
    step = state["step"]
    state["waits"] += 1
    if state["waits"] > 6000:  # 120 s: report where it stuck rather than hang the test
        said["stuck"] = step
        said["dictation"] = w.dictation.status_label.text() if w is not None else ""
        return done()
    if step == "window" and w is not None and w.isVisible():
        said["window"] = True
        said["multimedia_loaded"] = "PySide6.QtMultimedia" in sys.modules
        said["sounddevice_loaded"] = "sounddevice" in sys.modules
        w.files.panel.player.play(clip, 0.0, 0.5)  # what a click on a segment's play does
        said["playback"] = w.statusBar().currentMessage()
        if not dictate:
            return done()
        w.show_page("dictation")
        state["step"] = "dictation"
    elif step == "dictation" and w.dictation.record_button.isEnabled():
        w.dictation.record_button.click()  # the Dictate button, on the dictation model's engine
        state["step"] = "dictating"
    elif step == "dictating" and ".so" in w.dictation.status_label.text():  # a library named
        said["dictation"] = w.dictation.status_label.text()
        return done()
    QTimer.singleShot(20, drive)

QTimer.singleShot(0, drive)
sys.exit(run_app(argv=[sys.argv[0]]))
"""


def _hidden(folder: Path, *sonames: str) -> Path:
    """A folder of empty files named `sonames`: first on LD_LIBRARY_PATH, the loader fails on each."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in sonames:
        (folder / name).write_bytes(b"")
    return folder


def _env(home: Path, hidden: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "TINGJI_CATALOG")}
    path = os.environ.get("LD_LIBRARY_PATH")
    env.update(
        TINGJI_HOME=str(home),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=os.pathsep.join([str(ROOT / "app"), str(ROOT)]),
        LD_LIBRARY_PATH=os.pathsep.join([str(hidden), *([path] if path else [])]),
        PYTHONFAULTHANDLER="1",
        **more,
    )
    return env


def _run_app(tmp_path: Path, *sonames: str, dictate: bool) -> dict[str, object]:
    """Run the app with `sonames` hidden: play a segment, then (`dictate`) press Dictate; what each said."""
    home = tmp_path / "home"
    home.mkdir()
    # The dictation model is installed and chosen, so the Dictate button becomes usable.
    settings_mod.save(Settings(model=str(DEMO), dictation_model=str(DEMO)), home / "settings.json")
    clip = write_wav(tmp_path / "clip.wav", np.zeros(16000, dtype=np.float32))
    out = tmp_path / "said.json"
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(clip), str(out), "dictate" if dictate else "play"],
        cwd=ROOT,
        env=_env(home, _hidden(tmp_path / "hidden", *sonames)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = f"exit {child.returncode}\nstdout:\n{child.stdout[-3000:]}\nstderr:\n{child.stderr[-3000:]}"
    assert child.returncode == 0 and out.exists(), report
    said = json.loads(out.read_text(encoding="utf-8"))
    assert "stuck" not in said, (said, report)
    return said


def test_without_libpulse_the_window_opens_and_playback_names_the_package(tmp_path: Path) -> None:
    said = _run_app(tmp_path, PULSE.soname, dictate=False)
    assert said["window"] is True and said["multimedia_loaded"] is False, said
    playback = str(said["playback"])
    assert PULSE.soname in playback and PULSE.package in playback, said
    assert "\n" not in playback


def test_without_a_multimedia_backend_playback_names_the_package(tmp_path: Path) -> None:
    """Qt Multimedia loads but its FFmpeg backend plugin does not (it links libXrandr.so.2)."""
    xrandr = library("libXrandr.so.2")
    said = _run_app(tmp_path, xrandr.soname, dictate=False)
    assert said["window"] is True, said
    playback = str(said["playback"])
    assert xrandr.soname in playback and xrandr.package in playback and "\n" not in playback, said


def test_without_portaudio_the_window_opens_and_dictation_names_the_package(tmp_path: Path) -> None:
    said = _run_app(tmp_path, PORTAUDIO.soname, dictate=True)
    assert said["window"] is True and said["sounddevice_loaded"] is False, said
    dictation = str(said["dictation"])
    assert PORTAUDIO.soname in dictation and PORTAUDIO.package in dictation and "\n" not in dictation, said
    assert PORTAUDIO.soname not in str(said["playback"])  # playback has its own library


def test_a_platform_plugin_that_cannot_load_is_one_line_naming_the_package(tmp_path: Path) -> None:
    """Qt's xcb plugin without libxcb-cursor.so.0: Qt itself would abort with a paragraph (SIGABRT)."""
    cursor = library("libxcb-cursor.so.0")
    xvfb = VirtualDisplay(record=False).start()
    try:
        env = _env(tmp_path / "home", _hidden(tmp_path / "hidden", cursor.soname), DISPLAY=xvfb.display)
        env["QT_QPA_PLATFORM"] = "xcb"
        child = subprocess.run(
            [sys.executable, "-m", "tingji"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        xvfb.stop()
    lines = child.stderr.strip().splitlines()
    assert child.returncode == 1 and len(lines) == 1, child.stderr
    assert lines[0].startswith("tingji: ") and cursor.soname in lines[0] and cursor.package in lines[0], lines
    assert "xcb" in lines[0] and "Reinstalling" not in child.stderr


def test_xcb_without_a_display_is_one_line_too(tmp_path: Path) -> None:
    """From an ssh session (no DISPLAY), Qt's xcb plugin loads and then aborts: one line instead."""
    env = _env(tmp_path / "home", _hidden(tmp_path / "hidden"))
    env["QT_QPA_PLATFORM"] = "xcb"
    child = subprocess.run(
        [sys.executable, "-m", "tingji"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    lines = child.stderr.strip().splitlines()
    assert child.returncode == 1 and len(lines) == 1 and "DISPLAY" in lines[0], child.stderr


def test_the_plugins_qt_tries_are_read_as_qt_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    assert platform_names(["tingji"]) == ["xcb"]
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    assert platform_names(["tingji"]) == ["wayland", "xcb"]
    monkeypatch.setenv("QT_QPA_PLATFORM", "wayland-egl;xcb:nomitshm")
    assert platform_names(["tingji"]) == ["wayland-egl", "xcb"]
    # Qt's own option wins over the variable (`tingji-gui -platform offscreen FILE`).
    assert platform_names(["tingji-gui", "-platform", "offscreen", "a.wav"]) == ["offscreen"]
    assert platform_names(["tingji-gui", "-platform=minimal"]) == ["minimal"]
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert platform_problem(["tingji"]) is None  # the wheel's offscreen plugin loads here


def test_a_library_qt_itself_links_is_one_line_naming_the_package(tmp_path: Path) -> None:
    """libQt6Gui links libEGL.so.1: without it nothing of the window can load, and the line says which package."""
    egl = library("libEGL.so.1")
    env = _env(tmp_path / "home", _hidden(tmp_path / "hidden", egl.soname))
    child = subprocess.run(
        [sys.executable, "-m", "tingji"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    lines = child.stderr.strip().splitlines()
    assert child.returncode == 1 and len(lines) == 1, child.stderr
    assert egl.soname in lines[0] and f"package {egl.package}" in lines[0], lines
