"""Unload the model after N idle minutes (issue 20): memory is really returned, and the next job reloads.

The real app window on the tiny model. The idle time is made short through the setting itself (a
fraction of a minute, as the settings file may hold), and every wait is for the state change itself
(the `unloaded` signal, a row's status), never a sleep. Dictation is spoken through the scripted
microphone (tests/support/gui.py); everything after it is real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import weakref
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtWidgets import QApplication

from tests.support.audio import write_wav
from tests.support.gui import ScriptedMicrophone, long_speech
from tests.support.paths import ROOT
from tingji.dictation.states import DictationState
from tingji.engine import Engine
from tingji.errors import Cancelled
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app, create_window
from tingji.gui.dictation.on_demand import OnDemandEngine
from tingji.gui.engine_host import EngineState
from tingji.gui.files.storage import Status
from tingji.gui.settings import Settings
from tingji.gui.settings_dialog import SettingsDialog

pytestmark = [pytest.mark.gui, pytest.mark.dictation]
LOAD_TIMEOUT_MS = 120_000


def test_unload_after_idle_is_off_by_default_and_set_in_the_dialog(qtbot) -> None:
    assert Settings().unload_after_min == 0
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    assert dialog.unload_after.text() == "Never"
    dialog.unload_after.setValue(15)
    assert dialog.settings().unload_after_min == 15
    assert SettingsDialog(dialog.settings()).unload_after.value() == 15


@pytest.mark.load_sensitive
def test_idle_unload_releases_the_model_and_the_next_job_reloads_it(
    qtbot, home: Path, tiny_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    a = write_wav(tmp_path / "a.wav", speech_en)
    b = write_wav(tmp_path / "b.wav", speech_en[::-1].copy())
    settings_mod.save(Settings(model=str(tiny_model), unload_after_min=1))
    create_app()
    mics: list[ScriptedMicrophone] = []
    window = create_window(tray=False, dictation_microphone=lambda s: mics.append(ScriptedMicrophone(s)) or mics[-1])
    qtbot.addWidget(window, before_close_func=lambda w: w.quit_app())
    engine, host, c = window.engine, window.dictation_host, window.controller
    states: list[tuple[EngineState, str]] = []  # each state with what the status bar said (updated first)
    unloads: list[bool] = []
    engine.stateChanged.connect(lambda: states.append((engine.state_of("files"), window.engine_label.text())))
    engine.unloaded.connect(lambda: unloads.append(True))
    window.show()
    qtbot.waitUntil(
        lambda: engine.state_of("files") is EngineState.READY and host.controller is not None, timeout=LOAD_TIMEOUT_MS
    )
    idle_timer = engine.engine_of("files").idle_timer
    assert idle_timer.isActive() and idle_timer.interval() == 60_000  # one real minute
    window.apply_settings(replace(window.settings, unload_after_min=0))
    assert not idle_timer.isActive()  # off: never unloaded
    dictation = host.controller

    (first,) = c.add_paths([str(a)])
    qtbot.waitUntil(lambda: c.model.job_by_id(first.id).status is Status.DONE, timeout=LOAD_TIMEOUT_MS)
    assert engine.state_of("files") is EngineState.READY
    first_engine = weakref.ref(engine.loaded_of("files").engine)

    window.apply_settings(replace(window.settings, unload_after_min=0.1 / 60))  # idle for 0.1 s from here on
    qtbot.waitUntil(lambda: len(unloads) == 1, timeout=30_000)
    assert engine.state_of("files") is EngineState.UNLOADED and engine.loaded_of("files") is None
    assert first_engine() is None  # closed and gone: nothing holds it any more
    assert "unloaded to free memory" in window.engine_label.text()
    assert host.controller is dictation and host.engine_handle.current is None  # the hotkey keeps working
    assert host.state is DictationState.IDLE

    # A dictation take brings it back: the load starts with the take, the take waits for it.
    # No idle unload while it is checked, however slowly the checks come round.
    window.apply_settings(replace(window.settings, unload_after_min=0))
    states.clear()
    mic = mics[-1]
    window.dictation.record_button.click()
    qtbot.waitUntil(lambda: mic.recording and bool(states), timeout=10_000)
    assert states[0][0] is EngineState.LOADING and "Loading model" in states[0][1]  # the user is told
    spoken = np.concatenate([np.zeros(4000, np.float32), speech_en, np.zeros(8000, np.float32)])
    mic.speak(spoken)
    window.dictation.record_button.click()
    qtbot.waitUntil(lambda: window.dictation.table.rowCount() == 1, timeout=LOAD_TIMEOUT_MS)
    assert [state for state, _ in states[:2]] == [EngineState.LOADING, EngineState.READY]
    assert host.controller is dictation and host.engine_handle.current is not None  # same controller
    take = window.dictation.history.recent()[0]
    samples, _ = sf.read(str(window.dictation.history.recording_path(take)), dtype="float32")
    reference = Engine(tiny_model)
    try:
        assert take.text and take.text == reference.live.transcribe(samples).text.strip()
    finally:
        reference.close()

    # Idle again, unloaded again; then a file brings it back, and the user is told.
    window.apply_settings(replace(window.settings, unload_after_min=0.1 / 60))  # the idle timer starts again, 0.1 s
    qtbot.waitUntil(lambda: len(unloads) == 2, timeout=30_000)
    (second,) = c.add_paths([str(b)])
    assert engine.state_of("files") is EngineState.LOADING
    assert window.statusBar().currentMessage() == "Loading the model again for b.wav…"
    qtbot.waitUntil(lambda: c.model.job_by_id(second.id).status is Status.DONE, timeout=LOAD_TIMEOUT_MS)
    expected = Engine(tiny_model)
    try:
        assert c.transcript(second.id).text == expected.transcribe(b).text
    finally:
        expected.close()
    print(
        "\nidle unload: the Engine closed and freed while dictation kept its controller; a take reloaded it "
        "(LOADING shown, same controller, the take's text right); unloaded again, a file reloaded it"
    )
    assert QApplication.instance() is not None


# The app alone in a fresh process, measured from /proc at each step: the window with no model
# (the runtime libraries already imported, as after any load), a short file transcribed, the
# idle unload, a long file transcribed, the idle unload again.
_RSS_SCRIPT = """
import gc, json, sys
from dataclasses import replace
from PySide6.QtCore import QEventLoop, QTimer
from tingji.engine.heap import limit_heaps
limit_heaps()  # as the tingji programs start (cli.main)
import onnxruntime, llama_cpp, tingji.engine  # in the baseline: they stay loaded after any load
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app, create_window
from tingji.gui.dictation.on_demand import OnDemandEngine
from tingji.gui.engine_host import EngineState
from tingji.gui.files.storage import Status

def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))

def wait(done):
    loop, timer = QEventLoop(), QTimer()
    timer.timeout.connect(lambda: done() and loop.quit())
    timer.start(20)
    QTimer.singleShot(120_000, loop.quit)
    loop.exec()
    timer.stop()
    assert done(), "timed out"

model, files = sys.argv[1], sys.argv[2:]
settings_mod.save(settings_mod.Settings(unload_after_min=1))
create_app()
window = create_window(tray=False, use_hotkey=False)
window.show()
engine, queue = window.engine, window.controller
unloads = []
engine.unloaded.connect(lambda: unloads.append(True))
wait(lambda: engine.state_of("files") is EngineState.NONE)
gc.collect()
sizes = {"app": rss_mb()}
window.apply_settings(replace(window.settings, model=model))
for n, path in enumerate(files, 1):
    (job,) = queue.add_paths([path])
    wait(lambda: queue.model.job_by_id(job.id).status is Status.DONE)
    gc.collect()
    sizes[f"loaded{n}"] = rss_mb()
    window.apply_settings(replace(window.settings, unload_after_min=0.05 / 60))  # idle for 50 ms from now on
    wait(lambda: len(unloads) == n)
    sizes[f"unloaded{n}"] = rss_mb()
    window.apply_settings(replace(window.settings, unload_after_min=10))
print(json.dumps(sizes))
window.quit_app()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_idle_unload_returns_the_memory_to_the_system(
    home: Path, tiny_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    short = write_wav(tmp_path / "short.wav", speech_en)
    long = long_speech(tmp_path / "long.wav", speech_en)  # minutes of audio: the work's memory shows too
    env = {
        **os.environ,
        "TINGJI_HOME": str(home),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), os.environ.get("PYTHONPATH", "")]),
    }
    cycles = [str(short), str(long), str(short)]  # one load-transcribe-unload cycle per file
    r = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, str(tiny_model), *cycles],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    mb = json.loads(r.stdout.strip().splitlines()[-1])
    print("\nRSS (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in mb.items()))
    # After the long file the process held more; the unload gave (almost) all of it back. (Since the
    # engine streams its features and trims ONNX Runtime's arena after each run, a long file adds little
    # beyond the tiny model's own ~35 MB: a 15 MB floor still keeps the measurement well above the 1-2 MB
    # that cycles differ by.)
    added = mb["loaded2"] - mb["unloaded1"]
    assert added > 15 and mb["loaded2"] - mb["unloaded2"] > 0.8 * added, mb
    # Later load-unload cycles leave (almost) nothing behind: what a model frees goes back whole, not
    # as heap pages pinned by small blocks (engine.heap.map_large_blocks; without it 6-13 MB stayed per
    # cycle and added up), and the load's threads share two heaps (engine.heap.limit_heaps; without it
    # 2-7 MB stayed after the second cycle and 2-8 after the third, and a CI run failed at 7.0 and about 7.5). One
    # cycle may leave a few MB that the next reuses (with both, 2026-11-27, two runs at a time: 0.5-1.5
    # after the second, 0.8-4.4 after the third), so the process must come back near its first unload
    # in one of the two.
    assert min(mb["unloaded2"], mb["unloaded3"]) - mb["unloaded1"] < 5, mb
    # ... back near the app's own size: the window with no model, plus what stays after a first load
    # (library pages touched, Silero's VAD session, which dictation listens with while unloaded).
    assert mb["unloaded1"] < mb["loaded1"] and mb["unloaded1"] - mb["app"] < 60, mb


def test_a_take_waits_for_the_model_to_load_again_or_ends_when_dictation_closes(
    tiny_model: Path, speech_en: np.ndarray
) -> None:
    """OnDemandEngine with a real Engine: a transcription asks once for a reload and goes on when the engine
    is attached; closing dictation ends a waiting take with Cancelled (its WAV stays for recovery)."""
    engine = Engine(tiny_model)
    try:
        expected = engine.live.transcribe(speech_en).text
        asked = threading.Event()
        handle = OnDemandEngine(engine, str(tiny_model), asked.set)
        assert handle.vad is engine.vad and handle.model_name == engine.model_name
        handle.detach()  # the idle unload
        results: list[object] = []
        cancel = threading.Event()
        take = threading.Thread(target=lambda: results.append(handle.live.transcribe(speech_en, cancel=cancel)))
        take.start()
        assert asked.wait(10)  # the take asked the app to load the model again ...
        assert take.is_alive() and not results  # ... and waits for it
        handle.attach(engine)
        take.join(60)
        assert not take.is_alive() and results[0].text == expected

        handle.detach()
        outcome: list[BaseException] = []

        def waiting_take() -> None:
            try:
                handle.live.transcribe(speech_en, cancel=threading.Event())
            except Cancelled as exc:
                outcome.append(exc)

        take = threading.Thread(target=waiting_take)
        take.start()
        handle.close()  # dictation is closed (a reload of another model, quitting)
        take.join(10)
        assert not take.is_alive() and isinstance(outcome[0], Cancelled)
        print(
            "\non demand: a take asked for the model, waited, and ran on it once attached; a waiting take "
            "ended Cancelled when dictation closed"
        )
    finally:
        engine.close()
