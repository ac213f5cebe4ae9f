"""Speakers where users see them: the "Identify speakers" setting and a file's own choice, the coloured names
in the transcript, renaming, the voice library in Settings - and issue 33's proof 4: exports and the renamed
speakers round-trip through the queue database across a restart.

The app runs the trained demo ASR model (real words) with the random-weight speaker model
(tools/tiny_campplus.py) installed: it tells no voices apart by itself, so these tests check what the app
does with the labels it gets, not which voice is which (issue 33's proof 3).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.support.gui import drop_files
from tests.support.paths import DEMO_MODEL
from tests.support.speakers import three_speakers
from tingji.engine.transcript import Segment, Transcript, VoicePrint
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.engine_host import EngineState
from tingji.gui.files.storage import SCHEMA_VERSION, Status, Store
from tingji.gui.files.transcript_view import SegmentModel
from tingji.gui.settings import SPEAKER_CHOICES, Settings
from tingji.gui.voice_library import VoiceIdRole

pytestmark = pytest.mark.gui
LOAD_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 240_000


# -- the setting ------------------------------------------------------------------------------------


def test_the_setting_round_trips_and_reaches_files_only(home):
    assert Settings().speakers == "off" and SPEAKER_CHOICES == ("off", "auto", *map(str, range(2, 9)))
    path = settings_mod.save(Settings(speakers="3"))
    assert json.loads(path.read_text(encoding="utf-8"))["speakers"] == "3"
    s = settings_mod.load()
    assert s.speakers == "3"
    assert s.files_options().speakers == 3 and s.files_options("auto").speakers == "auto"
    assert s.files_options("off").speakers == "off"
    assert s.transcribe_options().speakers == "off"  # dictation's takes are never labelled
    for bad in ("1", "9", 3, "many"):
        path.write_text(json.dumps({"speakers": bad}), encoding="utf-8")
        assert settings_mod.load().speakers == "off"


def test_settings_greys_the_choice_without_a_speaker_model_and_offers_it_with_one(qtbot, home, speaker_model):
    from tingji.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(speakers="auto"))
    qtbot.addWidget(dialog)
    assert not dialog.speakers.isEnabled() and not dialog.speakers_reason.isHidden()
    assert "speaker model" in dialog.speakers_reason.text() and "\n" not in dialog.speakers_reason.text()
    assert dialog.settings().speakers == "auto"  # kept as it was, not lost for want of a model

    shutil.copytree(speaker_model, home / "models" / "campplus-tiny")
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    assert dialog.speakers.isEnabled() and dialog.speakers_reason.isHidden()
    dialog.speakers.setCurrentIndex(dialog.speakers.findData("4"))
    assert dialog.settings().speakers == "4"


def test_a_version_5_queue_gains_a_files_own_choice(tmp_path: Path):
    """A queue from before per-file speaker choices opens with its rows following Settings; nothing is lost."""
    path = tmp_path / "q.sqlite3"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, position REAL NOT NULL,
            status TEXT NOT NULL, duration REAL, error TEXT, error_code TEXT, added_at REAL NOT NULL,
            finished_at REAL, elapsed_s REAL, transcript TEXT, warning TEXT, exported TEXT, warning_code TEXT);
        INSERT INTO jobs(path, position, status, added_at, transcript) VALUES
            ('/m/old.wav', 1, 'done', 0, '{"segments": [{"start": 0, "end": 1, "text": "hi", "speaker": "Ann"}],
              "speakers": ["Ann"]}');
        PRAGMA user_version=5;
        """
    )
    con.close()
    store = Store(path)
    (job,) = store.jobs()
    assert job.speakers is None and store.transcript(job.id).speakers == ["Ann"]
    assert store.transcript(job.id).voice_prints == []  # rows from before prints: nothing to remember
    store.set_speakers([job.id], "3")
    assert store.get(job.id).speakers == "3"
    store.requeue([job.id])
    assert store.get(job.id).speakers == "3"  # a retry keeps the file's choice
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    store.close()


def test_renames_merge_and_prints_survive_the_store(tmp_path: Path):
    import numpy as np

    from tingji.engine.speakers.labels import rename_speaker

    e = np.eye(4, dtype=np.float32)
    t = three_speakers([VoicePrint(e[i], 10 * (i + 1), "m1") for i in range(3)])
    assert rename_speaker(t, 1, "Ann") == 1 and t.speakers == ["Speaker 1", "Ann", "Speaker 3"]
    assert rename_speaker(t, 0, "Ann") == 0  # named like another: one speaker, numbered by first appearance
    assert t.speakers == ["Ann", "Speaker 3"] and [s.speaker for s in t.segments] == [0, 0, 1]
    assert t.voice_prints[0].windows == 30 and np.allclose(t.voice_prints[0].embedding, (e[0] * 10 + e[1] * 20) / 30)

    store = Store(tmp_path / "q.sqlite3")
    (job,) = store.add(["/m/x.wav"])
    store.finish(job.id, t)
    store.close()
    again = Store(tmp_path / "q.sqlite3").transcript(job.id)
    assert again.speakers == t.speakers and [p.windows for p in again.voice_prints] == [30, 30]
    assert all(np.array_equal(a.embedding, b.embedding) for a, b in zip(again.voice_prints, t.voice_prints))


# -- the app ----------------------------------------------------------------------------------------


def _open(qtbot):
    from tingji.gui.app import create_app, create_window

    create_app()
    window = create_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
    return window


def _done(qtbot, window, count: int) -> None:
    def finished() -> bool:
        jobs = window.controller.model.jobs()
        return len(jobs) == count and all(j.status.finished for j in jobs)

    qtbot.waitUntil(finished, timeout=RUN_TIMEOUT_MS)


def _answer(qtbot, dialog, text: str) -> None:
    """Type a name into the panel's name dialog and press OK."""
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=5000)
    dialog.setTextValue(text)
    dialog.accept()


def _shown_speakers(panel) -> list[str]:
    model = panel.segments
    return [model.data(model.index(r, SegmentModel.SPEAKER)) for r in range(model.rowCount())]


def test_speakers_are_shown_renamed_remembered_and_kept_across_a_restart(
    qtbot, home, tmp_path, two_voices, speaker_model
):
    """Proof 4: transcribe with speakers, rename one, close the app, open it again: the names are back in
    the view and in every export; a remembered voice names the speaker of a later file; a file's own
    choice (off) wins over Settings; the voice library in Settings lists, renames and deletes voices."""
    shutil.copytree(speaker_model, home / "models" / "campplus-tiny")
    settings_mod.save(Settings(model=str(DEMO_MODEL), speakers="2"))
    first, plain = tmp_path / "interview.wav", tmp_path / "plain.wav"
    shutil.copy(two_voices, first)
    shutil.copy(two_voices, plain)

    window = _open(qtbot)
    try:
        drop_files(window, [first])
        _done(qtbot, window, 1)
        (job,) = window.controller.model.jobs()
        assert job.status is Status.DONE
        window.files.queue.select_job(job.id)
        panel = window.files.panel
        assert not panel.table.isColumnHidden(SegmentModel.SPEAKER)
        names = _shown_speakers(panel)
        speakers = panel.transcript.speakers
        print(f"labelled: {speakers}, per segment {names}")
        assert set(names) == set(speakers) and 1 <= len(speakers) <= 2 and all(names)
        colors = {}
        for r in range(panel.segments.rowCount()):  # one colour per speaker, the same on every segment
            color = panel.segments.data(panel.segments.index(r, SegmentModel.SPEAKER), Qt.ItemDataRole.ForegroundRole)
            color = color.name()
            assert colors.setdefault(names[r], color) == color
        assert len(set(colors.values())) == len(speakers)

        # rename the first speaker through the view's dialog
        panel.ask_rename(0)
        _answer(qtbot, panel.name_dialog, "Ann Lee")
        qtbot.waitUntil(lambda: panel.transcript.speakers[0] == "Ann Lee", timeout=5000)
        renamed = _shown_speakers(panel)
        assert [n == "Ann Lee" for n in renamed] == [n == speakers[0] for n in names]
        out = panel.export("txt", str(tmp_path / "out.txt"))
        lines = out.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("Ann Lee: ") and sum(line.startswith("Ann Lee: ") for line in lines) == names.count(
            speakers[0]
        )

        # remember that voice; the next file (the same audio) is named by the library
        menu = panel.speaker_menu(0)
        remember = next(a for a in menu.actions() if a.text().startswith("Remember"))
        assert remember.isEnabled()
        remember.trigger()
        _answer(qtbot, panel.name_dialog, "Ann Lee")
        qtbot.waitUntil(lambda: (home / "voices").is_dir() and any((home / "voices").glob("*.json")), timeout=5000)

        # a file of its own set to off, through the queue's menu, is not labelled
        drop_files(window, [plain])
        qtbot.waitUntil(lambda: len(window.controller.model.jobs()) == 2, timeout=10_000)
        _done(qtbot, window, 2)
        second = window.controller.model.jobs()[1]
        assert window.controller.transcript(second.id).speakers[0] == "Ann Lee"  # named from the library
        window.files.queue.select_job(second.id)
        off = next(a for a in window.files.queue.speakers_menu([second]).actions() if a.text() == "Off")
        assert off.isEnabled()
        off.trigger()
        window.controller.retry([second.id])
        _done(qtbot, window, 2)
        assert window.controller.model.job_by_id(second.id).speakers == "off"
        assert window.controller.transcript(second.id).speakers == []
        assert window.files.panel.table.isColumnHidden(SegmentModel.SPEAKER)
    finally:
        window.close()

    # the restart: the names come back from the queue database, and so do the exports'
    window = _open(qtbot)
    try:
        again = window.controller.model.job_by_id(job.id)
        assert again is not None and again.status is Status.DONE
        window.files.queue.select_job(job.id)
        panel = window.files.panel
        assert _shown_speakers(panel) == renamed
        assert window.controller.model.job_by_id(second.id).speakers == "off"
        for fmt, mark in (("srt", "Ann Lee: "), ("vtt", "<v Ann Lee>"), ("txt", "Ann Lee: ")):
            text = panel.export(fmt, str(tmp_path / f"again.{fmt}")).read_text(encoding="utf-8")
            assert text.count(mark) == names.count(speakers[0]), fmt
        data = json.loads(panel.export("json", str(tmp_path / "again.json")).read_text(encoding="utf-8"))
        assert [s["speaker"] for s in data["segments"]] == renamed and "voice_prints" not in data
        print(f"after the restart: {data['speakers']}")

        # the voice library in Settings: listed, renamed, deleted (its file gone from the folder)
        from tingji.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(window.settings)
        qtbot.addWidget(dialog)
        box = dialog.voices
        assert box.names() == ["Ann Lee"]
        box.select("Ann Lee")
        box.ask_rename()
        _answer(qtbot, box.name_dialog, "Ann")
        qtbot.waitUntil(lambda: box.names() == ["Ann"], timeout=5000)
        (voice_file,) = (home / "voices").glob("*.json")
        assert json.loads(voice_file.read_text(encoding="utf-8"))["name"] == "Ann"
        box.select("Ann")
        assert box.list.currentItem().data(VoiceIdRole) == voice_file.stem
        assert box.delete(voice_file.stem)
        assert box.names() == [] and list((home / "voices").iterdir()) == []
    finally:
        window.close()
        i18n.install(QApplication.instance(), "en")


def test_without_a_speaker_model_the_files_menu_says_why(qtbot, home, tiny_model):
    settings_mod.save(Settings(model=str(tiny_model)))
    store = Store(home / "tingji.sqlite3")
    store.add(["/m/a.wav"])
    store.close()
    window = _open(qtbot)
    try:
        jobs = window.controller.model.jobs()
        menu = window.files.queue.speakers_menu(jobs)
        first = menu.actions()[0]
        assert not first.isEnabled() and "speaker model" in first.text()
        choices = [a for a in menu.actions() if a.isCheckable()]
        assert len(choices) == 1 + len(SPEAKER_CHOICES) and not any(a.isEnabled() for a in choices)
    finally:
        window.close()


# -- the view and the words, without a run ------------------------------------------------------------


def _contrast(a, b) -> float:
    """WCAG's contrast ratio of two QColors."""

    def luminance(c) -> float:
        rgb = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in (c.redF(), c.greenF(), c.blueF())]
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_speaker_colours_are_readable_in_light_and_dark_mode(qapp):
    from PySide6.QtGui import QPalette

    from tingji.gui import theme
    from tingji.gui.speakers import SPEAKER_COLORS, speaker_color

    light = qapp.style().standardPalette()
    assert not theme.is_dark(light) and theme.is_dark(theme.dark_palette())
    worst = 99.0
    for palette in (light, theme.dark_palette()):
        for role in (QPalette.ColorRole.Base, QPalette.ColorRole.AlternateBase):
            for n in range(len(SPEAKER_COLORS)):
                worst = min(worst, _contrast(speaker_color(n, palette), palette.color(role)))
    print(f"least contrast of a speaker's name with its background: {worst:.2f}")
    assert worst >= 4.5  # WCAG AA for text
    assert len({speaker_color(n, light).name() for n in range(len(SPEAKER_COLORS))}) == len(SPEAKER_COLORS)
    assert speaker_color(len(SPEAKER_COLORS), light) == speaker_color(0, light)


def test_panel_shows_names_copies_them_and_asks_for_a_rename(qtbot, qapp):
    from PySide6.QtGui import QGuiApplication

    from tingji.gui.files.storage import Job
    from tingji.gui.files.transcript_view import TranscriptPanel

    panel = TranscriptPanel()
    qtbot.addWidget(panel)
    job = Job(7, "/m/talk.wav", 1.0, Status.DONE)
    t = Transcript(
        [Segment(0, 1, "hello there", speaker=0), Segment(1, 2, "hi", speaker=1), Segment(2, 3, "bye", speaker=0)],
        3.0,
        "m",
        "cpu",
        "",
        speakers=["Speaker 1", "Ann"],
    )
    panel.show_job(job, t)
    assert not panel.table.isColumnHidden(SegmentModel.SPEAKER)
    assert _shown_speakers(panel) == ["Speaker 1", "Ann", "Speaker 1"]
    panel.copy_all()
    assert QGuiApplication.clipboard().text() == "Speaker 1: hello there\nAnn: hi\nSpeaker 1: bye"
    menu = panel.speaker_menu(1)
    texts = [a.text() for a in menu.actions()]
    assert texts[0] == "Rename Ann…" and not menu.actions()[1].isEnabled()  # no print: nothing to remember
    asked = []
    panel.speakerRenamed.connect(lambda *args: asked.append(args))
    panel.table.doubleClicked.emit(panel.segments.index(2, SegmentModel.SPEAKER))
    _answer(qtbot, panel.name_dialog, "Bo")
    assert asked == [(7, 0, "Bo")]
    panel.table.doubleClicked.emit(panel.segments.index(2, SegmentModel.TEXT))  # the text: no rename
    assert asked == [(7, 0, "Bo")] and not panel.name_dialog.isVisible()

    panel.show_job(job, Transcript([Segment(0, 1, "plain")], 1.0, "m", "cpu", ""))
    assert panel.table.isColumnHidden(SegmentModel.SPEAKER)


def test_default_names_and_a_bad_voice_file_in_the_ui_language(qtbot, qapp, home):
    from tingji.gui.settings_dialog import SettingsDialog
    from tingji.gui.speakers import speaker_name

    (home / "voices").mkdir(parents=True)
    (home / "voices" / "broken.json").write_text("{not json", encoding="utf-8")
    try:
        i18n.install(qapp, "zh_CN")
        assert speaker_name("Speaker 2") == "说话人 2" and speaker_name("Ann") == "Ann"
        dialog = SettingsDialog(Settings())
        qtbot.addWidget(dialog)
        problem = dialog.voices.problem
        print(f"a broken voice file, in Chinese: {problem.text()}")
        assert not problem.isHidden() and "已另存为 broken.json.bad-" in problem.text()
        assert dialog.voices.names() == [] and not (home / "voices" / "broken.json").exists()
    finally:
        i18n.install(qapp, "en")
