"""The dictation panel and the Qt clipboard adapter (offscreen Qt)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import soundfile as sf

pytest.importorskip("pytestqt")
from PySide6.QtCore import QMimeData  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402

from tingji.dictation import messages  # noqa: E402
from tingji.dictation.devices import MicrophoneError  # noqa: E402
from tingji.dictation.events import Problem, StateChanged, TakeStored  # noqa: E402
from tingji.dictation.history import DictationHistory, DictationTake  # noqa: E402
from tingji.dictation.hotkey import HotkeyError  # noqa: E402
from tingji.dictation.settings import DictationSettings  # noqa: E402
from tingji.dictation.states import DictationState  # noqa: E402
from tingji.gui.dictation.panel import DictationPanel  # noqa: E402
from tingji.gui.dictation.qt_clipboard import QtClipboard  # noqa: E402

pytestmark = [pytest.mark.dictation, pytest.mark.gui]


@pytest.fixture
def history(tmp_path) -> DictationHistory:
    h = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    for i, text in enumerate(["first take", "第二次"]):
        wav = h.new_recording_path()
        sf.write(str(wav), np.zeros(1600, np.float32), 16000)
        h.add(DictationTake(text, 0.1, recording=wav.name, created=1000.0 + i))
    return h


class FakeController:
    def __init__(self) -> None:
        self.applied: list[DictationSettings] = []
        self.toggles = 0
        self.state = DictationState.IDLE
        self.on_event = None
        self.hotkey_unavailable = HotkeyError(messages.HOTKEY_UNAVAILABLE, reason=HotkeyError(messages.NO_X_DISPLAY))

    def apply_settings(self, s: DictationSettings) -> None:
        self.applied.append(s)

    def toggle(self) -> None:
        self.toggles += 1


def test_dictation_panel_lists_plays_copies_and_deletes(qtbot, history) -> None:
    played: list[str] = []
    panel = DictationPanel(history, DictationSettings(), play=played.append)
    qtbot.addWidget(panel)
    table = panel.table
    assert table.rowCount() == 2
    assert table.item(0, 1).text() == "第二次"  # newest first
    newest = history.recent()[0]
    panel.play_take(newest)
    assert played == [str(history.recording_path(newest))]
    panel.copy_take(newest)
    assert QGuiApplication.clipboard().text() == "第二次"
    panel.delete_take(newest)
    assert table.rowCount() == 1 and history.count() == 1
    # a take whose recording went (retention) cannot be played, but says why
    history.apply_retention(0)
    panel.refresh()
    panel.play_take(history.recent()[0])
    assert "deleted" in panel.status_text() and len(played) == 1


def test_dictation_panel_settings_drive_the_controller(qtbot, history) -> None:
    panel = DictationPanel(history, DictationSettings(hotkey="ctrl+alt+space"))
    qtbot.addWidget(panel)
    controller = FakeController()
    panel.attach(controller)
    assert controller.on_event == panel.bridge.post
    assert not panel.hotkey_label.isHidden() and "no X display" in panel.hotkey_label.text()

    with qtbot.waitSignal(panel.settingsChanged) as sig:
        panel.form.mode_combo.setCurrentIndex(panel.form.mode_combo.findData("toggle"))
    assert sig.args[0].mode == "toggle" and controller.applied[-1].mode == "toggle"

    panel.form.hotkey_edit.setText("ctrl+banana")
    panel.form.hotkey_edit.editingFinished.emit()
    assert not panel.form.hotkey_error.isHidden() and "banana" in panel.form.hotkey_error.text()
    assert len(controller.applied) == 1  # nothing applied

    panel.form.hotkey_edit.setText("Shift+Ctrl+D")
    panel.form.hotkey_edit.editingFinished.emit()
    assert panel.form.hotkey_error.isHidden() and controller.applied[-1].hotkey == "ctrl+shift+d"

    panel.form.keep_spin.setValue(-1)
    assert controller.applied[-1].keep_recordings is None
    panel.record_button.click()
    assert controller.toggles == 1


def test_dictation_panel_shows_events_from_worker_threads(qtbot, history) -> None:
    panel = DictationPanel(history)
    qtbot.addWidget(panel)
    panel.attach(FakeController())

    def worker() -> None:
        panel.bridge.post(StateChanged(DictationState.LISTENING))
        panel.bridge.post(Problem(MicrophoneError(messages.DISCONNECTED)))

    threading.Thread(target=worker).start()
    qtbot.waitUntil(lambda: "disconnected" in panel.status_text(), timeout=30_000)  # bounds a hang only
    assert panel.record_button.text() == "Stop"
    take = history.add(DictationTake("new words", 0.5))
    panel.bridge.post(TakeStored(take))
    qtbot.waitUntil(lambda: panel.table.rowCount() == 3, timeout=30_000)


def test_dictation_qt_clipboard_works_from_a_worker_thread(qtbot) -> None:
    board = QGuiApplication.clipboard()
    md = QMimeData()
    md.setText("plain previous")
    md.setHtml("<b>rich previous</b>")
    board.setMimeData(md)
    clip = QtClipboard()
    result: dict[str, object] = {}

    def worker() -> None:
        snap = clip.save()
        clip.set_text("dictated")
        result["during"] = clip.text()
        clip.restore(snap)
        result["done"] = True

    t = threading.Thread(target=worker)
    t.start()
    qtbot.waitUntil(lambda: result.get("done") is True, timeout=5000)  # the GUI thread serves the calls
    t.join()
    assert result["during"] == "dictated"
    assert board.text() == "plain previous"
    assert "rich previous" in board.mimeData().html()
