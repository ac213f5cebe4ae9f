"""The preview's model in the app (offscreen Qt): with SenseVoice-Small installed beside a slower dictation
model, Settings names the model that previews, the preview moves to SenseVoice-Small once the dictation
model is measured too slow for it, and the inserted text stays the dictation model's.

Real window, real engines (the tiny Fun-ASR-Nano as the dictation model, the tiny SenseVoice-Small
installed under the models folder), a scripted microphone spoken into in real time. The budget the
measured cost is held against is set to 0 s (every real run exceeds it), so the verdict does not depend
on how busy the machine is.
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtWidgets import QApplication

from tests.support.gui import open_window
from tingji.dictation.states import DictationState
from tingji.engine import Engine
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.settings import Settings
from tingji.paths import models_dir

pytestmark = [pytest.mark.gui, pytest.mark.dictation, pytest.mark.load_sensitive]


def _speak_in_real_time(mic, samples: np.ndarray, block: int = 512) -> threading.Thread:
    def run() -> None:
        for i in range(0, len(samples), block):
            mic.speak(samples[i : i + block])
            time.sleep(block / 16000)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _take(qtbot, window, samples: np.ndarray) -> tuple[str, list[str]]:
    """A take spoken as the user would; its text and the previews the overlay showed."""
    panel, overlay, mic = window.dictation, window.dictation_host.overlay, window.mics[-1]
    shown: list[str] = []
    overlay.stateShown.connect(
        lambda phase, state, text: shown.append(text) if overlay.showing(DictationState.LISTENING) and text else None
    )
    rows = panel.table.rowCount()
    panel.record_button.click()
    qtbot.waitUntil(lambda: mic.recording, timeout=10_000)
    speaker = _speak_in_real_time(mic, samples)
    qtbot.waitUntil(lambda: not speaker.is_alive(), timeout=60_000)
    panel.record_button.click()
    qtbot.waitUntil(lambda: panel.table.rowCount() == rows + 1, timeout=120_000)
    overlay.stateShown.disconnect()
    return panel.history.recent()[0].text, shown


def test_a_slow_dictation_model_previews_on_the_installed_sense_voice(
    qtbot, home: Path, tiny_model: Path, sv_model: Path, speech_en: np.ndarray
) -> None:
    shutil.copytree(sv_model, models_dir() / "sense-voice-small")
    settings_mod.save(Settings(model=str(tiny_model)))
    mics: list = []
    window = open_window(qtbot, mics, tray=False)
    window.mics = mics  # type: ignore[attr-defined]
    host, panel = window.dictation_host, window.dictation
    qtbot.waitUntil(lambda: host.controller is not None, timeout=120_000)
    note = panel.form.preview_note
    assert note.objectName() == "dictationPreviewModel"
    model = host.controller.preview_model
    assert model.faster is not None and model.faster.name == "sense-voice-small"
    assert set(model.faster.languages) == {"zh", "en", "yue", "ja", "ko"}  # from the catalog, before it loads
    assert note.text() == (
        f"The preview runs on the dictation model ({tiny_model.name}) while it keeps up with a refresh "
        "every 0.5 s, else on sense-voice-small."
    )

    model.interval_s = 0.0  # the budget: any measured run is over it
    take = np.concatenate([speech_en, np.zeros(4000, np.float32), speech_en])[: 4 * 16000]
    first, _ = _take(qtbot, window, take)
    qtbot.waitUntil(lambda: note.text().startswith("The preview runs on sense-voice-small:"), timeout=120_000)
    assert f"the dictation model ({tiny_model.name}) took" in note.text()
    assert f"The inserted text still comes from {tiny_model.name}." in note.text()

    second, previews = _take(qtbot, window, take)
    assert previews  # the overlay showed SenseVoice's words while the take recorded
    recording = panel.history.recording_path(panel.history.recent()[0])
    samples, _ = sf.read(str(recording), dtype="float32")
    nano = Engine(tiny_model, "cpu")
    try:
        assert second == nano.live.transcribe(samples).text.strip() and second  # the dictation model's text
    finally:
        nano.close()
    assert first == second  # the same speech, the same dictation model: the same text

    window.apply_settings(replace(window.settings, ui_language="zh_CN"))
    qtbot.waitUntil(lambda: note.text().startswith("预览改用 sense-voice-small"), timeout=10_000)
    assert tiny_model.name in note.text() and "The" not in note.text()
    window.apply_settings(replace(window.settings, ui_language="en"))
    i18n.install(QApplication.instance(), "en")

    host.stop()  # the dictation engine goes: the faster preview model with it
    assert model.choice.state != "faster"
    window.quit_app()
