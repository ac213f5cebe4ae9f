"""The dictation overlay inside the app (offscreen Qt): its window kind, its states during a take, the tray
mirroring them, and its settings on the Dictation page.

The microphone is scripted and spoken into in real time from a thread (the live preview refreshes by the
clock); everything after it is real: the tiny engine's live lane, the history, the overlay, the tray.
The X server's view (focus, clicks through) is tests/gui/test_overlay_x11.py.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.support.gui import open_window
from tests.support.preview_counts import previews_expected
from tingji.dictation.events import PreviewText
from tingji.dictation.states import DictationState
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.dictation.overlay import OverlayPhase
from tingji.gui.engine_host import EngineState
from tingji.gui.settings import Settings

pytestmark = [pytest.mark.gui, pytest.mark.dictation]


@pytest.fixture
def window(qtbot, home: Path, tiny_model: Path):
    settings_mod.save(Settings(model=str(tiny_model)))
    mics: list = []
    w = open_window(qtbot, mics, tray=True)
    qtbot.waitUntil(lambda: w.dictation_host.controller is not None, timeout=120_000)
    assert w.engine.state_of("dictation") is EngineState.READY
    w.mics = mics  # type: ignore[attr-defined]
    yield w
    w.quit_app()
    i18n.install(QApplication.instance(), "en")


def _speak_in_real_time(mic, samples: np.ndarray, block: int = 512) -> threading.Thread:
    def run() -> None:
        for i in range(0, len(samples), block):
            mic.speak(samples[i : i + block])
            time.sleep(block / 16000)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_overlay_is_a_floating_window_that_takes_no_focus_and_no_clicks(window) -> None:
    overlay = window.dictation_host.overlay
    assert overlay is not None  # offscreen is not Wayland
    flags = overlay.windowFlags()
    for flag in (
        Qt.WindowType.Tool,
        Qt.WindowType.FramelessWindowHint,
        Qt.WindowType.WindowStaysOnTopHint,
        Qt.WindowType.WindowDoesNotAcceptFocus,
        Qt.WindowType.WindowTransparentForInput,
    ):
        assert flags & flag, flag
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    assert overlay.focusPolicy() == Qt.FocusPolicy.NoFocus
    assert not overlay.isVisible() and window.dictation.form.overlay_note.isHidden()


@pytest.mark.load_sensitive  # how many preview runs fit the take depends on the machine's load
def test_a_take_shows_the_overlay_states_in_order_and_the_tray_mirrors_them(window, qtbot, speech_en) -> None:
    host, panel, tray = window.dictation_host, window.dictation, window.tray
    overlay = host.overlay
    shown: list[tuple[str, str]] = []
    trays: list[DictationState] = []
    overlay.stateShown.connect(
        lambda phase, state, text: (shown.append((_label(phase, state), text)), trays.append(tray.dictation))
    )
    run_s: list[float] = []
    panel.bridge.event.connect(lambda e: run_s.append(e.run_s) if isinstance(e, PreviewText) else None)
    mic = window.mics[-1]
    take = np.concatenate([speech_en, np.zeros(4000, np.float32), speech_en])[: 5 * 16000]

    panel.record_button.click()
    # The overlay hears "begin" through the GUI thread's queue: mic.recording can be true before that queue
    # has run (the test has not yet yielded to the event loop), so wait for both.
    qtbot.waitUntil(lambda: mic.recording and overlay.isVisible(), timeout=10_000)
    assert overlay.showing(DictationState.LISTENING)
    speaker = _speak_in_real_time(mic, take)
    qtbot.waitUntil(lambda: not speaker.is_alive(), timeout=60_000)
    assert tray.dictation is DictationState.LISTENING
    level_seen = overlay.level
    panel.record_button.click()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=120_000)
    qtbot.waitUntil(lambda: overlay.phase is OverlayPhase.HIDDEN, timeout=30_000)

    states = [s for s, _ in shown]
    collapsed = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
    text = panel.history.recent()[0].text
    assert collapsed in (
        ["listening", "transcribing", "final", "hidden"],
        ["listening", "transcribing", "error", "hidden"],  # no display to paste into: said, the text is kept
    ), shown
    previews = [t for s, t in shown if s == "listening" and t]
    assert len(previews) >= previews_expected(len(take) / 16000, run_s), (shown, run_s)
    assert level_seen > 0.0  # the meter moved with the speech
    if collapsed[2] == "final":
        assert ("final", text) in shown
    # The tray's dot: red while listening, amber while transcribing, gone after.
    assert DictationState.LISTENING in trays[:2]
    assert DictationState.TRANSCRIBING in trays and tray.dictation is DictationState.IDLE


def _label(phase: OverlayPhase, state: DictationState) -> str:
    """What the overlay shows, in one word: the take's state while it is live, else the phase."""
    return state.value if phase is OverlayPhase.LIVE else phase.value


def test_overlay_settings_live_on_the_dictation_page(window, qtbot, speech_en) -> None:
    from dataclasses import replace

    panel, host = window.dictation, window.dictation_host
    assert (
        panel.form.overlay_combo.currentData(),
        panel.form.preview_check.isChecked(),
        panel.form.sounds_check.isChecked(),
    ) == (
        "bottom",
        True,
        False,  # quiet by default
    )
    assert window.settings.dictation.sounds is False
    assert Path(host.engine.choice_of("dictation").path).name in panel.form.preview_note.text()
    panel.form.overlay_combo.setCurrentIndex(panel.form.overlay_combo.findData("off"))
    panel.form.preview_check.setChecked(False)
    on_disk = settings_mod.load().dictation
    assert (on_disk.overlay, on_disk.preview) == ("off", False)
    controller = host.controller
    assert controller.wait_idle(5) and controller.settings.preview is False
    # Off: a take does not show it (the tray still says what happens).
    mic = window.mics[-1]
    panel.record_button.click()
    qtbot.waitUntil(lambda: mic.recording, timeout=10_000)
    qtbot.waitUntil(lambda: window.tray.dictation is DictationState.LISTENING, timeout=10_000)
    assert not host.overlay.isVisible()
    mic.speak(speech_en)
    panel.record_button.click()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=120_000)
    assert not host.overlay.isVisible()
    # In Chinese.
    window.apply_settings(replace(window.settings, ui_language="zh_CN"))
    qtbot.waitUntil(lambda: panel.form.sounds_check.text() == "开始和结束听写时播放提示音", timeout=5000)
    assert panel.form.overlay_combo.currentText() == "关闭（由托盘图标显示状态）"
    assert "预览使用听写模型" in panel.form.preview_note.text()
