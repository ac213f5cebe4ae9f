"""Dictation inside the desktop app, the tray, translated errors and folder walks (offscreen Qt).

The window runs the real engine on the tiny model; dictation shares that very
Engine object. The only stand-in is the microphone (tests/support/gui.py
ScriptedMicrophone): the test "speaks" into the controller, and everything
after it (VAD, WAV, the engine's live lane, history, output, the panel)
is real. No X display here, so the global hotkey and key sending report why
they cannot work; the fixture removes DISPLAY so a developer's desktop is
never typed into.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.support.audio import write_wav
from tests.support.gui import ScriptedMicrophone, StallMeter, drop_files, excuse_queue_writes, open_window
from tingji.dictation.states import DictationState
from tingji.engine import Engine, TranscribeOptions
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app
from tingji.gui.engine_host import EngineState
from tingji.gui.files.queue_model import Column
from tingji.gui.files.storage import Status, Store
from tingji.gui.main_window import MainWindow
from tingji.gui.settings import Settings
from tingji.paths import settings_path

# xdist: one worker runs the users of the virtual microphone and displays (tests/support/schedule.py)
pytestmark = [pytest.mark.gui, pytest.mark.dictation, pytest.mark.xdist_group("desktop")]
LOAD_TIMEOUT_MS = 120_000


def _open(qtbot, mics: list | None = None, wait_ready: bool = True, **options) -> MainWindow:
    window = open_window(qtbot, mics, **options)
    if wait_ready:
        qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
    return window


@pytest.fixture
def window(qtbot, home: Path, tiny_model: Path):
    settings_mod.save(Settings(model=str(tiny_model)))
    mics: list[ScriptedMicrophone] = []
    w = _open(qtbot, mics)
    w.mics = mics  # type: ignore[attr-defined]
    yield w
    w.quit_app()
    i18n.install(QApplication.instance(), "en")


def _threads(qtbot, window: MainWindow) -> list[threading.Thread]:
    """The dictation controller's threads (command, takes) once it has started (in the background)."""
    controller = window.dictation_host.controller
    assert controller is not None
    qtbot.waitUntil(lambda: len(controller._threads) == 2, timeout=10_000)
    return list(controller._threads)


def test_dictation_page_is_there_and_follows_the_language(window: MainWindow, qtbot) -> None:
    pages = window.pages
    assert [pages.tabText(i) for i in range(pages.count())] == ["Files", "Dictation"]
    window.dictation_label.linkActivated.emit("dictation")  # the status-bar item opens the page
    assert pages.currentWidget() is window.dictation
    panel = window.dictation
    assert panel.record_button.text() == "Dictate" and panel.form.title() == "Dictation settings"
    assert "Ctrl+Alt+Space" in panel.hint_label.text() or "no X display" in panel.hotkey_label.text()

    window.apply_settings(replace(window.settings, ui_language="zh_CN"))
    qtbot.waitUntil(lambda: pages.tabText(1) == "听写", timeout=5000)
    assert pages.tabText(0) == "文件"
    assert panel.record_button.text() == "开始听写"
    assert panel.form.title() == "听写设置"
    assert panel.status_text() == "就绪"
    assert panel.form.mode_combo.currentText() == "按住说话"
    assert panel.form.device_combo.itemText(0) == "系统默认"
    assert "听写" in window.dictation_label.text()
    # The global hotkey cannot work without a display: said, and in Chinese.
    qtbot.waitUntil(lambda: not panel.hotkey_label.isHidden(), timeout=10_000)
    assert "全局快捷键不可用" in panel.hotkey_label.text()
    window.apply_settings(replace(window.settings, ui_language="en"))
    qtbot.waitUntil(lambda: pages.tabText(1) == "Dictation", timeout=5000)
    assert panel.status_text() == "Ready"


def test_dictation_uses_the_worker_engine_and_takes_reach_the_history(
    window: MainWindow, qtbot, tiny_model: Path, speech_en: np.ndarray
) -> None:
    host = window.dictation_host
    qtbot.waitUntil(lambda: host.controller is not None, timeout=10_000)
    controller = host.controller
    assert controller.engine.current is window.engine.loaded_of("files").engine  # the very Engine object the queue uses
    assert host.state is DictationState.IDLE and "Dictation" in window.dictation_label.text()
    mic = window.mics[-1]
    panel = window.dictation
    assert panel.table.rowCount() == 0

    panel.record_button.click()  # start a take as the user would
    qtbot.waitUntil(lambda: mic.recording, timeout=5000)
    qtbot.waitUntil(lambda: panel.record_button.text() == "Stop", timeout=5000)
    assert host.state is DictationState.LISTENING and "listening" in window.dictation_label.text()
    mic.speak(np.concatenate([np.zeros(4000, np.float32), speech_en, np.zeros(8000, np.float32)]))
    panel.record_button.click()  # and stop it
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=60_000)
    assert controller.wait_idle(30)

    take = window.dictation.history.recent()[0]
    wav = window.dictation.history.recording_path(take)
    assert wav is not None
    samples, rate = sf.read(str(wav), dtype="float32")
    engine = Engine(tiny_model)
    expected = engine.live.transcribe(samples).text.strip()
    engine.close()
    assert rate == 16000 and take.text == expected and expected
    assert panel.table.item(0, 1).text() == expected
    # No display to paste into: the take is kept and the page says why (the text is in the history).
    assert take.output == "failed"
    qtbot.waitUntil(lambda: "history" in panel.status_text(), timeout=5000)
    copy = [b for b in panel.table.cellWidget(0, 2).children() if b.objectName() == "dictationCopy"][0]
    copy.click()
    assert QApplication.clipboard().text() == expected


def test_dictation_settings_are_saved_with_the_app_settings(window: MainWindow, qtbot) -> None:
    panel = window.dictation
    qtbot.waitUntil(lambda: window.dictation_host.controller is not None, timeout=10_000)
    panel.form.mode_combo.setCurrentIndex(panel.form.mode_combo.findData("toggle"))
    panel.form.silence_spin.setValue(1.5)
    panel.form.output_combo.setCurrentIndex(panel.form.output_combo.findData("type"))
    on_disk = settings_mod.load()
    assert (on_disk.dictation.mode, on_disk.dictation.silence_s, on_disk.dictation.output) == ("toggle", 1.5, "type")
    controller = window.dictation_host.controller
    assert controller.wait_idle(5) and controller.settings.mode == "toggle"
    # The spoken language and hotwords are the app's: one TranscribeOptions for files and dictation.
    window.apply_settings(replace(window.settings, language="en", hotwords=["Tingji"]))
    assert controller.wait_idle(5)
    assert controller.options == window.settings.transcribe_options() == TranscribeOptions("en", ("Tingji",))
    assert settings_mod.load().dictation.mode == "toggle"  # not lost by the other change
    panel.form.keep_open_check.setChecked(True)  # a later edit on the page keeps the app's language
    assert controller.wait_idle(5)
    assert (controller.settings.keep_mic_open, controller.options.language) == (True, "en")
    assert "language" not in json.loads(settings_path().read_text(encoding="utf-8"))["dictation"]  # stored once


def test_hand_edited_dictation_settings_keep_dictation_on(qtbot, home: Path, tiny_model: Path, caplog) -> None:
    """settings.json edited by hand (or by a newer Tingji): the usable dictation fields are used, each
    bad one falls back to its default with a logged reason, and dictation starts all the same."""
    settings_path().write_text(
        json.dumps(
            {
                "model": str(tiny_model),
                "dictation": {
                    "mode": "toggle",
                    "output": "type",
                    "silence_s": "long",
                    "hotkey": "ctrl+banana",
                    "keep_recordings": -5,
                    "from_the_future": True,
                },
            }
        ),
        "utf-8",
    )
    window = _open(qtbot)
    qtbot.waitUntil(lambda: window.dictation_host.controller is not None, timeout=10_000)
    s = window.dictation_host.controller.settings
    assert (s.mode, s.output) == ("toggle", "type")
    assert (s.silence_s, s.hotkey, s.keep_recordings) == (1.0, "ctrl+alt+space", 200)
    logged = caplog.text
    assert all(f"ignoring {key}=" in logged for key in ("silence_s", "hotkey", "keep_recordings")), logged
    assert window.dictation.form.mode_combo.currentData() == "toggle"
    window.quit_app()
    print("hand-edited settings.json: mode/output kept, silence_s/hotkey/keep_recordings defaulted, dictation on")


def test_microphone_list_comes_from_the_sound_system(window: MainWindow, qtbot) -> None:
    from tests.support.pulse import VirtualMic, pulse_available
    from tingji.dictation.devices import refresh_devices

    if not pulse_available():
        pytest.skip("PulseAudio is not installed")
    mic = VirtualMic().start()  # a sound server with one (virtual) microphone
    try:
        refresh_devices()  # PortAudio lists devices once; no stream is open now
        window.show_page("dictation")  # the list is read when the page is first shown
        combo = window.dictation.form.device_combo
        values = [combo.itemData(i) for i in range(combo.count())]
        assert values[0] is None and combo.itemText(0) == "System default"
        assert "pulse, ALSA" in values, values
        combo.setCurrentIndex(combo.findData("pulse, ALSA"))
        assert settings_mod.load().dictation.device == "pulse, ALSA"
        controller = window.dictation_host.controller
        assert controller.wait_idle(5) and controller.settings.device == "pulse, ALSA"
    finally:
        mic.stop()
        refresh_devices()


def test_model_reload_restarts_dictation_on_the_new_engine(window: MainWindow, qtbot) -> None:
    host = window.dictation_host
    qtbot.waitUntil(lambda: host.controller is not None, timeout=10_000)
    first, first_engine = host.controller, window.engine.loaded_of("files").engine
    window.engine.reload()
    assert host.controller is None and host.state is DictationState.OFF  # closed before the engine goes
    qtbot.waitUntil(
        lambda: window.engine.state_of("files") is EngineState.READY and host.controller is not None,
        timeout=LOAD_TIMEOUT_MS,
    )
    assert host.controller is not first
    assert host.controller.engine.current is window.engine.loaded_of("files").engine is not first_engine


def test_close_hides_to_tray_and_quit_ends_everything(qtbot, home: Path, tiny_model: Path) -> None:
    settings_mod.save(Settings(model=str(tiny_model)))
    window = _open(qtbot, tray=True)
    host = window.dictation_host
    qtbot.waitUntil(lambda: host.controller is not None, timeout=10_000)
    quit_signals: list[bool] = []
    window.quitting.connect(lambda: quit_signals.append(True))

    threads = _threads(qtbot, window)
    window.close()  # the window's close button
    assert window.isHidden() and not quit_signals
    assert host.running and all(t.is_alive() for t in threads)  # dictation keeps working
    assert not window.controller.stopped and not window.engine.stopped
    notice = window.tray_notice  # no balloons offscreen: a small window instead, once
    assert (
        notice is not None
        and notice.isVisible()
        and "still running" in notice.text().lower() + notice.windowTitle().lower()
    )
    notice.close()
    assert settings_mod.load().tray_notice_shown

    window.tray.showRequested.emit()  # clicking the tray icon
    assert window.isVisible()
    window.tray_notice = None
    window.close()
    assert window.isHidden() and window.tray_notice is None  # said only once

    window.tray.quit_action.trigger()  # Quit in the tray menu
    assert quit_signals == [True]
    assert window.controller.stopped and window.engine.stopped and window.engine.loaded_of("files") is None
    assert host.controller is None and not any(t.is_alive() for t in threads)


def test_close_without_tray_quits(qtbot, home: Path, tiny_model: Path) -> None:
    settings_mod.save(Settings(model=str(tiny_model)))
    window = _open(qtbot, tray=False)
    qtbot.waitUntil(lambda: window.dictation_host.controller is not None, timeout=10_000)
    threads = _threads(qtbot, window)
    window.close()
    assert window.controller.stopped and window.engine.stopped and window.dictation_host.controller is None
    assert threads and not any(t.is_alive() for t in threads)


def test_chinese_ui_translates_file_errors_even_after_a_restart(
    qtbot, home: Path, tiny_model: Path, tmp_path: Path
) -> None:
    settings_mod.save(Settings(model=str(tiny_model), ui_language="zh_CN"))
    bad = tmp_path / "会议记录.mp3"
    bad.write_text("this is text, not audio")
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    odd = tmp_path / "odd.wav"
    i18n.install(create_app(), "zh_CN")
    try:
        window = _open(qtbot, tray=False)
        window.files.add_paths([str(bad), str(empty), str(odd)])  # odd.wav does not exist
        model = window.controller.model
        qtbot.waitUntil(lambda: all(j.status is Status.FAILED for j in model.jobs()), timeout=60_000)
        reasons = [model.data(model.index(r, Column.PROGRESS)) for r in range(3)]
        assert reasons == ["不是听记能读取的音频或视频文件", "文件是空的", "文件不存在"]
        tip = model.data(model.index(0, Column.NAME), Qt.ItemDataRole.ToolTipRole)  # the path and the reason
        assert "会议记录.mp3" in tip and "不是听记能读取的音频或视频文件" in tip
        window.files.queue.select_job(model.jobs()[0].id)
        assert "不是听记能读取的音频或视频文件" in window.files.panel.placeholder.text()
        window.close()

        # The store keeps the English text and the code; a new app shows the row translated again.
        con = sqlite3.connect(home / "tingji.sqlite3")
        rows = con.execute("SELECT error, error_code FROM jobs ORDER BY id").fetchall()
        con.close()
        assert rows[0][0] == "not an audio or video file Tingji can read"
        assert json.loads(rows[0][1])["code"] == "audio.not_media"
        again = _open(qtbot, tray=False, wait_ready=False)
        model = again.controller.model
        assert model.data(model.index(0, Column.PROGRESS)) == "不是听记能读取的音频或视频文件"
        again.close()
    finally:
        i18n.install(QApplication.instance(), "en")


@pytest.mark.load_sensitive
def test_dropping_a_huge_folder_does_not_block_the_window(
    window: MainWindow, qtbot, tmp_path: Path, speech_en: np.ndarray, monkeypatch
) -> None:
    root = tmp_path / "archive"
    for i in range(300):  # 30 000 files, three of them media
        folder = root / f"box {i:03d}"
        folder.mkdir(parents=True)
        for j in range(100):
            (folder / f"note {j}.txt").touch()
    for name in ("box 007/b.wav", "box 100/a.wav", "box 299/c.wav"):
        write_wav(root / name, speech_en[:16000])
    window.files.scan_status._delay.setInterval(0)  # show the busy sign at once (normally after 300 ms)
    meter = StallMeter()
    excuse_queue_writes(meter, monkeypatch)  # fsynced on the GUI thread by design: the disk's time
    meter.start()
    drop_files(window, [root])
    assert window.controller.scanning and window.controller.model.jobs() == []  # the drop returned at once
    qtbot.waitUntil(lambda: window.files.scan_status.isVisible(), timeout=5000)
    assert "找到" in window.files.scan_status.label.text() or "found" in window.files.scan_status.label.text()
    qtbot.waitUntil(lambda: len(window.controller.model.jobs()) == 3, timeout=60_000)
    meter.stop()
    assert [j.name for j in window.controller.model.jobs()] == ["b.wav", "a.wav", "c.wav"]  # natural order
    assert not window.files.scan_status.isVisible()
    print(f"\nlongest event-loop stall while 30 000 files were walked: {meter.summary()}")
    assert meter.max_stall_s < 0.1, meter.summary()


def test_cancelled_folder_walk_adds_nothing(window: MainWindow, qtbot, tmp_path: Path, speech_en) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    write_wav(root / "a.wav", speech_en[:16000])
    window.files.add_paths([str(root)])
    window.controller.cancel_scan()
    qtbot.waitUntil(lambda: not window.controller.scanning, timeout=10_000)
    assert window.controller.model.jobs() == []


def test_old_queue_database_gains_error_codes(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, position REAL NOT NULL,
                           status TEXT NOT NULL, duration REAL, error TEXT, added_at REAL NOT NULL,
                           finished_at REAL, elapsed_s REAL, transcript TEXT);
        INSERT INTO jobs(path, position, status, error, added_at) VALUES ('/x/a.mp3', 1, 'failed', 'file is empty', 0);
        PRAGMA user_version=1;
    """)
    con.commit()
    con.close()
    store = Store(db)
    (job,) = store.jobs()
    assert job.error == "file is empty" and job.error_code is None
    from tingji.gui.errors import localized_stored

    assert localized_stored(job.error, job.error_code) == "file is empty"  # English UI; classified from the text
    store.close()
