"""The desktop app, driven as a user would (offscreen): drops, queue, results, settings, language.

Every window here runs the real engine in its worker thread: the tiny random model, and the
trained demo model where the words themselves are checked.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from tests.support.audio import damaged_at, write_wav
from tests.support.gui import StallMeter, drop_files, excuse_queue_writes, long_speech
from tests.support.paths import DEMO_MODEL
from tingji.engine import Engine
from tingji.engine.sessions import PROVIDER_CHOICES
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app, create_window
from tingji.gui.engine_host import EngineState
from tingji.gui.files.queue_model import Column
from tingji.gui.files.storage import Status, Store
from tingji.gui.main_window import MainWindow
from tingji.gui.settings import Settings
from tingji.gui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.gui
LOAD_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 180_000


def _open(qtbot, wait_ready: bool = True) -> MainWindow:
    app = create_app()
    window = create_window()
    qtbot.addWidget(window)
    window.show()
    if wait_ready:
        qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
    assert app is QApplication.instance()
    return window


@pytest.fixture
def window(qtbot, home: Path, tiny_model: Path):
    settings_mod.save(Settings(model=str(tiny_model)))
    w = _open(qtbot)
    yield w
    w.close()
    i18n.install(QApplication.instance(), "en")


def _status(window: MainWindow, name: str) -> Status:
    job = next(j for j in window.controller.model.jobs() if j.name == name)
    return job.status


def _wait_all_finished(qtbot, window: MainWindow, count: int) -> None:
    def finished() -> bool:
        jobs = window.controller.model.jobs()
        return len(jobs) == count and all(j.status.finished for j in jobs)

    qtbot.waitUntil(finished, timeout=RUN_TIMEOUT_MS)


@pytest.fixture
def media(tmp_path: Path, speech_en: np.ndarray) -> dict[str, Path]:
    folder = tmp_path / "media"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "notes.txt").write_text("not media, and inside a folder: ignored")
    bad = folder / "broken.mp3"
    bad.write_text("this is text, not audio")
    return {
        "a": write_wav(folder / "a.wav", speech_en),
        "b": write_wav(folder / "sub" / "b.wav", speech_en[: len(speech_en) // 2]),
        "bad": bad,
        "long": long_speech(folder / "long.wav", speech_en),
    }


def test_drop_files_and_folder_then_transcript_shown(window: MainWindow, qtbot, media, tiny_model: Path) -> None:
    drop_files(window, [media["a"], media["b"].parent])  # a file and a folder (holding b.wav and notes.txt)
    # The folder is walked on a worker thread; the files are queued together, in drop order.
    qtbot.waitUntil(lambda: len(window.controller.model.jobs()) == 2, timeout=10_000)
    names = [j.name for j in window.controller.model.jobs()]
    assert names == ["a.wav", "b.wav"]
    _wait_all_finished(qtbot, window, 2)
    assert {_status(window, n) for n in names} == {Status.DONE}

    engine = Engine(tiny_model)
    expected = engine.transcribe(media["a"])
    engine.close()
    window.files.queue.select_job(window.controller.model.jobs()[0].id)
    assert window.files.panel.title.text() == "a.wav"
    assert window.files.panel.shown_segments() == [s.text.strip() for s in expected.segments]
    window.files.panel.copy_button.click()
    assert QGuiApplication.clipboard().text() == expected.text
    assert window.controller.model.data(window.controller.model.index(0, Column.DURATION)) == "0:05"

    # Export through the panel (the dialog is skipped by passing the path).
    out = window.files.panel.export("srt", str(media["a"].with_suffix(".srt")))
    assert out is not None and "-->" in out.read_text(encoding="utf-8")

    # Clicking a segment plays that stretch of the source.
    seg = expected.segments[0]
    with qtbot.waitSignal(
        window.files.panel.player.playingChanged, timeout=20_000, check_params_cb=lambda playing: playing
    ):
        window.files.panel.table.clicked.emit(window.files.panel.segments.index(0, 1))
    assert window.files.panel.player.player.source().toLocalFile() == str(media["a"])
    assert window.files.panel.player.range_ms[0] == int(seg.start * 1000)


def test_bad_file_row_does_not_stop_queue(window: MainWindow, qtbot, media) -> None:
    drop_files(window, [media["bad"], media["a"]])
    _wait_all_finished(qtbot, window, 2)
    model = window.controller.model
    assert _status(window, "broken.mp3") is Status.FAILED
    assert _status(window, "a.wav") is Status.DONE
    reason = model.data(model.index(0, Column.PROGRESS))
    assert "not an audio or video file" in reason
    assert "broken.mp3" in model.data(model.index(0, Column.NAME), Qt.ItemDataRole.ToolTipRole)
    window.files.queue.select_job(model.jobs()[0].id)
    assert "not an audio or video file" in window.files.panel.placeholder.text()


def test_cancel_running_waiting_and_all(window: MainWindow, qtbot, media, tmp_path: Path) -> None:
    c = window.controller
    jobs = c.add_paths([str(media["long"]), str(media["a"]), str(media["b"])])
    long_id, a_id, b_id = (j.id for j in jobs)
    qtbot.waitUntil(lambda: _status(window, "long.wav") is Status.RUNNING, timeout=LOAD_TIMEOUT_MS)
    window.files.queue.select_job(a_id)
    window.files.cancel_selected()  # a waiting file
    assert _status(window, "a.wav") is Status.CANCELLED
    window.files.queue.select_job(long_id)
    window.actions["cancel"].trigger()  # the running file
    qtbot.waitUntil(lambda: _status(window, "long.wav") is Status.CANCELLED, timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: _status(window, "b.wav") is Status.DONE, timeout=RUN_TIMEOUT_MS)  # the queue goes on

    # Cancel all stops the running file and everything waiting.
    more = c.add_paths([str(media["long"]), str(media["a"])])
    qtbot.waitUntil(lambda: c.model.job_by_id(more[0].id).status is Status.RUNNING, timeout=LOAD_TIMEOUT_MS)
    window.actions["cancel_all"].trigger()
    qtbot.waitUntil(
        lambda: all(c.model.job_by_id(j.id).status is Status.CANCELLED for j in more), timeout=RUN_TIMEOUT_MS
    )
    assert not c.busy
    # Retry puts a cancelled file back in the queue, and it completes.
    c.retry([a_id])
    qtbot.waitUntil(lambda: c.model.job_by_id(a_id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)


@pytest.mark.load_sensitive
def test_event_loop_never_stalls_during_transcription(window: MainWindow, qtbot, media, monkeypatch) -> None:
    meter = StallMeter()
    excuse_queue_writes(meter, monkeypatch)  # fsynced on the GUI thread by design: the disk's time
    meter.start()
    (job,) = window.controller.add_paths([str(media["long"])])
    window.files.queue.select_job(job.id)  # live segments are shown as they arrive
    qtbot.waitUntil(lambda: window.controller.model.job_by_id(job.id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)
    meter.stop()
    print(f"\nlongest event-loop stall during a {job.name} transcription: {meter.summary()}")
    assert meter.ticks > 50
    assert meter.max_stall_s < 0.100  # the GUI thread's own work and waits; not other programs' turns
    assert window.files.panel.shown_segments()  # live + final segments on screen


def test_reorder_remove_and_no_model_start(qtbot, home: Path, media) -> None:
    settings_mod.save(Settings())  # nothing configured, nothing installed
    window = _open(qtbot, wait_ready=False)
    c = window.controller
    qtbot.waitUntil(
        lambda: window.engine.state_of("files") is EngineState.NONE and window.banner.isVisible(), timeout=10_000
    )
    # A desktop user is offered the in-app picker, never a terminal command.
    qtbot.waitUntil(lambda: window.models.picker is not None and window.models.picker.isVisible(), timeout=10_000)
    assert "tingji models" not in window.banner.label.text() and "terminal" not in window.banner.label.text()
    assert [b.text() for b in window.banner.buttons][0] == "Choose a model…"
    assert "No speech model installed" in window.engine_label.text()
    assert "Tingji" in window.windowTitle()

    drop_files(window, [media["a"], media["b"], media["long"]])
    ids = [j.id for j in c.model.jobs()]
    assert [c.model.job_by_id(i).status for i in ids] == [Status.WAITING] * 3  # they wait for a model

    window.files.queue.select_job(ids[2])
    window.files.queue.up_button.click()
    assert [j.id for j in c.model.jobs()] == [ids[0], ids[2], ids[1]]
    assert window.files.queue.selected_ids() == [ids[2]]  # the selection follows the row
    # Drag a row within the queue: b.wav (now last) dropped before row 0.
    model = c.model
    data = model.mimeData([model.index(2, 0)])
    model.dropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert [j.id for j in c.model.jobs()] == [ids[1], ids[0], ids[2]]
    window.files.queue.select_job(ids[0])
    window.files.queue.remove_button.click()
    assert [j.id for j in c.model.jobs()] == [ids[1], ids[2]]
    window.close()
    # The order and removal are in the database.
    store = Store(home / "tingji.sqlite3")
    assert [j.id for j in store.jobs()] == [ids[1], ids[2]]
    store.close()


def test_settings_dialog_round_trip_and_apply(window: MainWindow, qtbot, home: Path, tiny_model: Path) -> None:
    current = window.settings
    dialog = SettingsDialog(current, languages=window.engine.engine_of("files").languages)  # as the window does
    qtbot.addWidget(dialog)
    assert dialog.settings() == current  # what it shows is what it returns
    assert dialog.language.findData("en") > 0  # the files model's languages, Auto first
    dialog.language.setCurrentIndex(dialog.language.findData("en"))
    dialog.hotwords.setPlainText("Tingji\n通义, FunASR")
    dialog.auto_export.setChecked(True)
    dialog.formats["vtt"].setChecked(True)
    edited = dialog.settings()
    assert edited.hotwords == ["Tingji", "通义", "FunASR"] and edited.auto_export
    window.apply_settings(edited)
    on_disk = settings_mod.load()
    assert (on_disk.language, on_disk.hotwords, on_disk.auto_export) == ("en", edited.hotwords, True)
    assert "vtt" in on_disk.formats and on_disk.model == str(tiny_model)
    assert SettingsDialog(on_disk).settings() == on_disk


def test_settings_dialog_offers_the_engines_providers(qtbot, home: Path) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    assert [dialog.provider.itemData(i) for i in range(dialog.provider.count())] == list(PROVIDER_CHOICES)
    assert "CPU" in dialog.provider.itemText(dialog.provider.findData("cpu"))


def test_auto_export_writes_next_to_source(window: MainWindow, qtbot, media) -> None:
    window.apply_settings(replace(window.settings, auto_export=True, formats=["txt", "json"]))
    window.controller.add_paths([str(media["a"])])
    _wait_all_finished(qtbot, window, 1)
    assert media["a"].with_suffix(".txt").is_file()
    assert '"segments"' in media["a"].with_suffix(".json").read_text(encoding="utf-8")


def test_language_switch_shows_chinese(window: MainWindow, qtbot, media) -> None:
    window.controller.add_paths([str(media["bad"])])
    qtbot.waitUntil(lambda: _status(window, "broken.mp3") is Status.FAILED, timeout=RUN_TIMEOUT_MS)
    window.apply_settings(replace(window.settings, ui_language="zh_CN"))
    model = window.controller.model
    qtbot.waitUntil(lambda: "听记" in window.windowTitle(), timeout=5000)  # LanguageChange is a posted event
    assert window.actions["add_files"].text() == "添加文件"
    assert model.headerData(Column.NAME, Qt.Orientation.Horizontal) == "文件"
    assert model.data(model.index(0, Column.STATUS)) == "失败"
    assert "就绪" in window.engine_label.text()
    assert SettingsDialog(window.settings).windowTitle() == "设置"
    window.apply_settings(replace(window.settings, ui_language="en"))
    qtbot.waitUntil(lambda: window.actions["add_files"].text() == "Add files", timeout=5000)
    assert model.data(model.index(0, Column.STATUS)) == "Failed"


def test_broken_model_says_why(qtbot, home: Path, tmp_path: Path) -> None:
    not_a_model = tmp_path / "empty-folder"
    not_a_model.mkdir()
    settings_mod.save(Settings(model=str(not_a_model)))
    window = _open(qtbot, wait_ready=False)
    qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.FAILED, timeout=10_000)
    assert "manifest.json" in window.engine.detail_of("files")
    assert "Model failed to load" in window.engine_label.text()
    assert window.banner.isVisible() and "could not be loaded" in window.banner.label.text()
    window.close()


def test_close_mid_transcription_resumes_next_start(qtbot, home: Path, tiny_model: Path, media) -> None:
    settings_mod.save(Settings(model=str(tiny_model)))
    window = _open(qtbot)
    (job,) = window.controller.add_paths([str(media["long"])])
    qtbot.waitUntil(lambda: window.controller.model.job_by_id(job.id).status is Status.RUNNING, timeout=LOAD_TIMEOUT_MS)
    window.close()  # cancels the engine and joins the threads; the file is not marked cancelled
    store = Store(home / "tingji.sqlite3")
    assert store.get(job.id).status is Status.RUNNING
    store.close()
    again = _open(qtbot, wait_ready=False)
    assert again.controller.model.job_by_id(job.id).status is Status.WAITING
    again.close()


def test_ui_language_follows_system_locale() -> None:
    from PySide6.QtCore import QLocale

    assert i18n.resolve("system", QLocale("zh_CN")) == "zh_CN"
    assert i18n.resolve("system", QLocale("zh_TW")) == "zh_CN"
    assert i18n.resolve("system", QLocale("en_GB")) == "en"
    assert i18n.resolve("system", QLocale("de_DE")) == "en"
    assert i18n.resolve("zh_CN", QLocale("en_US")) == "zh_CN"  # an explicit choice wins


def test_removing_the_running_file_cancels_it_and_moves_on(window: MainWindow, qtbot, media) -> None:
    c = window.controller
    long_job, a_job = c.add_paths([str(media["long"]), str(media["a"])])
    qtbot.waitUntil(lambda: c.model.job_by_id(long_job.id).status is Status.RUNNING, timeout=LOAD_TIMEOUT_MS)
    window.files.queue.select_job(long_job.id)
    window.files.queue.remove_button.click()
    qtbot.waitUntil(lambda: c.model.job_by_id(long_job.id) is None, timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: c.model.job_by_id(a_job.id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)
    assert c.store.get(long_job.id) is None


def test_drop_speech_with_demo_model_shows_the_spoken_words(qtbot, home: Path, tmp_path: Path) -> None:
    """The trained demo model behind the GUI: dropped recordings come back as the words spoken.

    Voices and speeds the model never heard in training (held-out variants of
    tools/train_demo_model.py), synthesised in fresh processes so the audio is
    the same on every run; one short utterance per file (the model reads
    short utterances, see tests/fixtures/models/demo/README.md). The model
    gets ~80% of held-out utterances exactly right; these two are among them
    ("open file three two" in the second voice came out "go down file three
    two", so "save" replaced "open"): a fixed, known-good case, so any change
    in what the GUI shows is a regression.
    """
    import soundfile as sf
    from demo_model.recipe import SAMPLE_RATE
    from demo_model.speech import Speaker, espeak_many
    from demo_model.text import normalise_words

    spoken = {
        "memo one.wav": ("call home today", Speaker("en-gb-x-rp", "Hugo", 168, 40, 1)),
        "备忘 二.wav": ("save file three two", Speaker("en-us", "Mike", 170, 50, 0)),
    }
    clips = espeak_many(spoken.values())
    paths = []
    for name, clip in zip(spoken, clips):
        paths.append(tmp_path / name)
        padded = np.concatenate([np.zeros(8000, np.float32), clip * 0.6, np.zeros(8000, np.float32)])
        sf.write(str(paths[-1]), padded, SAMPLE_RATE, subtype="PCM_16")

    settings_mod.save(Settings(model=str(DEMO_MODEL)))
    window = _open(qtbot)
    try:
        drop_files(window, paths)
        _wait_all_finished(qtbot, window, 2)
        for job, (name, (text, _)) in zip(window.controller.model.jobs(), spoken.items()):
            assert job.name == name and job.status is Status.DONE
            window.files.queue.select_job(job.id)
            assert window.files.panel.title.text() == name
            shown = " ".join(window.files.panel.shown_segments())
            assert normalise_words(shown) == text.split(), (name, shown)
    finally:
        window.close()


def test_damaged_file_is_done_with_warnings_and_says_why(
    qtbot, home: Path, tiny_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    """A 90 s FLAC damaged half way in: the part before the damage is kept, the row says "Done with
    warnings" and why (in both languages), and so does the transcript pane, also after a restart."""
    speech = np.concatenate([speech_en, np.zeros(8000, np.float32)])
    sf.write(str(tmp_path / "talk.flac"), np.resize(speech, 90 * 16000), 16000)
    damaged = damaged_at(tmp_path / "talk.flac", 1 / 2)
    whole = write_wav(tmp_path / "whole.wav", speech_en)
    settings_mod.save(Settings(model=str(tiny_model)))
    window = _open(qtbot)
    window.controller.add_paths([str(damaged), str(whole)])
    _wait_all_finished(qtbot, window, 2)
    model = window.controller.model
    bad, good = model.jobs()
    assert bad.status is Status.DONE and bad.incomplete and not good.incomplete
    assert bad.warning.startswith("decoding stopped at ") and "of 90.0 s (the data is damaged)" in bad.warning
    assert model.data(model.index(0, Column.STATUS)) == "Done with warnings"
    assert model.data(model.index(1, Column.STATUS)) == "Done"
    assert model.data(model.index(0, Column.PROGRESS)) == bad.warning  # the reason, where the bar would be
    assert bad.warning in model.data(model.index(0, Column.NAME), Qt.ItemDataRole.ToolTipRole)
    partial = window.controller.transcript(bad.id)
    assert partial.complete is False and partial.segments and 30 < partial.duration < 50
    window.files.queue.select_job(bad.id)
    assert window.files.panel.warning.isVisible() and bad.warning in window.files.panel.warning.text()
    assert window.files.panel.shown_segments() == [s.text.strip() for s in partial.segments]  # the part is kept
    window.files.queue.select_job(good.id)
    assert not window.files.panel.warning.isVisible()

    window.apply_settings(replace(window.settings, ui_language="zh_CN"))
    qtbot.waitUntil(lambda: model.data(model.index(0, Column.STATUS)) == "完成（有警告）", timeout=5000)
    window.files.queue.select_job(bad.id)
    assert window.files.panel.warning.text().startswith("⚠ 此文件只转写了一部分：解码在 90.0 秒中的第 ")
    assert "（数据已损坏）" in window.files.panel.warning.text() and "decoding" not in window.files.panel.warning.text()
    window.apply_settings(replace(window.settings, ui_language="en"))
    window.close()

    again = _open(qtbot, wait_ready=False)  # a restart: the warning comes from the database
    try:
        model = again.controller.model
        job = model.job_by_id(bad.id)
        assert job.incomplete and job.warning == bad.warning and job.warning_code == bad.warning_code
        assert model.data(model.index(0, Column.STATUS)) == "Done with warnings"
        again.files.queue.select_job(bad.id)
        assert again.files.panel.warning.isVisible() and bad.warning in again.files.panel.warning.text()
        print(
            f"\n{damaged.name}: done with warnings ({bad.warning}); {len(partial.segments)} segments kept, "
            "shown in the row and the pane, in English and Chinese, and after a restart"
        )
    finally:
        again.close()


def _txt(transcript) -> str:
    from tingji.engine.writers import render

    return render(transcript, "txt")


def test_auto_export_never_replaces_a_file_tingji_did_not_write(
    qtbot, home: Path, tiny_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    """meeting.txt (the user's notes) beside meeting.mp3 stays; a.mp3 and a.wav keep apart; transcribing a
    file again updates its own output, unless the user changed it; the names used are shown."""
    from tests.support.audio import ffmpeg

    folder = tmp_path / "talks"
    folder.mkdir()
    write_wav(tmp_path / "speech.wav", speech_en)
    ffmpeg("-i", str(tmp_path / "speech.wav"), "-b:a", "64k", str(folder / "meeting.mp3"))
    ffmpeg("-i", str(tmp_path / "speech.wav"), "-b:a", "64k", str(folder / "a.mp3"))
    write_wav(folder / "a.wav", speech_en[::-1].copy())  # other words, same stem
    notes = folder / "meeting.txt"
    notes.write_text("my notes: ask about the budget\n", encoding="utf-8")
    settings_mod.save(Settings(model=str(tiny_model), auto_export=True, formats=["txt", "srt"]))
    window = _open(qtbot)
    c = window.controller
    meeting, a_mp3, a_wav = c.add_paths([str(folder / n) for n in ("meeting.mp3", "a.mp3", "a.wav")])
    _wait_all_finished(qtbot, window, 3)

    def names(job) -> list[str]:
        return [Path(p).name for p in c.model.job_by_id(job.id).exported]

    assert notes.read_text(encoding="utf-8") == "my notes: ask about the budget\n"  # untouched
    assert names(meeting) == ["meeting (2).txt", "meeting (2).srt"]  # one free name for both formats
    assert not (folder / "meeting.srt").exists()
    assert names(a_mp3) == ["a.txt", "a.srt"] and names(a_wav) == ["a (2).txt", "a (2).srt"]
    for job, txt in ((meeting, "meeting (2).txt"), (a_mp3, "a.txt"), (a_wav, "a (2).txt")):
        assert (folder / txt).read_text(encoding="utf-8") == _txt(c.transcript(job.id)), txt
    assert _txt(c.transcript(a_mp3.id)) != _txt(c.transcript(a_wav.id))  # each kept its own output
    window.files.queue.select_job(meeting.id)
    assert window.files.panel.exported.isVisible()
    assert window.files.panel.exported.text() == "Saved beside the source as meeting (2).txt, meeting (2).srt"
    assert "meeting (2).txt" in c.model.data(c.model.index(0, Column.NAME), Qt.ItemDataRole.ToolTipRole)

    # Again: a.wav's own output is updated in place (nobody changed it), not copied to "a (3)".
    c.retry([a_wav.id])
    qtbot.waitUntil(lambda: c.model.job_by_id(a_wav.id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)
    assert names(a_wav) == ["a (2).txt", "a (2).srt"] and not (folder / "a (3).txt").exists()
    assert "Saved a (2).txt, a (2).srt beside a.wav" in window.statusBar().currentMessage()
    # The user edits a (2).txt: it is theirs now, and the next run writes "a (3)".
    (folder / "a (2).txt").write_text("corrected by hand\n", encoding="utf-8")
    window.close()

    again = _open(qtbot)  # what Tingji wrote is remembered across restarts (the queue database)
    try:
        c = again.controller
        c.retry([a_wav.id, a_mp3.id])
        qtbot.waitUntil(
            lambda: all(c.model.job_by_id(j.id).status is Status.DONE for j in (a_wav, a_mp3)), timeout=RUN_TIMEOUT_MS
        )
        assert (folder / "a (2).txt").read_text(encoding="utf-8") == "corrected by hand\n"
        assert names(a_wav) == ["a (3).txt", "a (3).srt"]
        assert names(a_mp3) == ["a.txt", "a.srt"]  # still its own, unchanged: updated in place
        assert sorted(p.name for p in folder.iterdir()) == [
            "a (2).srt",
            "a (2).txt",
            "a (3).srt",
            "a (3).txt",
            "a.mp3",
            "a.srt",
            "a.txt",
            "a.wav",
            "meeting (2).srt",
            "meeting (2).txt",
            "meeting.mp3",
            "meeting.txt",
        ]
        print(
            "\nauto-export: meeting.txt kept, meeting (2).txt/.srt written; a.mp3 -> a.*, a.wav -> a (2).*; "
            "a rerun updates its own files; a hand-edited a (2).txt kept, the next run wrote a (3).*"
        )
    finally:
        again.close()
