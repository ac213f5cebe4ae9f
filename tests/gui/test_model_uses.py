"""A model per use (files, dictation), the first-run model picker, and the language menu (offscreen Qt).

Real windows, real engines built from the tiny checkpoints of each family
(conftest: Fun-ASR-Nano `tiny_model`, SenseVoice-Small `sv_model`, Qwen3-ASR
`q3_model`), the picker's download from a real HTTPS server on 127.0.0.1 and
its import converting a real official checkpoint. The only stand-in is the
microphone (tests/gui_helpers.ScriptedMicrophone). Every wait is for the
state itself, never a sleep.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtWidgets import QApplication

from tests.support.audio import write_wav
from tests.support.gui import ScriptedMicrophone, long_speech, open_window
from tests.support.https_server import FileServer, trust_local_ca
from tingji.engine import Engine
from tingji.engine.languages import NAMES
from tingji.engine.manifest import load_manifest
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.engine_host import EngineState
from tingji.gui.files.storage import Status
from tingji.gui.languages import SPOKEN_NAMES
from tingji.gui.main_window import MainWindow
from tingji.gui.settings import Settings
from tingji.gui.settings_dialog import SettingsDialog
from tingji.models.installed import list_models
from tingji.paths import models_dir, settings_path

pytestmark = [pytest.mark.gui, pytest.mark.dictation]
LOAD_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 240_000


def _open(qtbot, mics: list | None = None, **options) -> MainWindow:
    return open_window(qtbot, mics, tray=False, **options)


def _ready(qtbot, window: MainWindow) -> None:
    e = window.engine
    qtbot.waitUntil(
        lambda: (
            e.state_of("files") is EngineState.READY
            and e.state_of("dictation") is EngineState.READY
            and window.dictation_host.controller is not None
        ),
        timeout=LOAD_TIMEOUT_MS,
    )


def _take(qtbot, window: MainWindow, mic: ScriptedMicrophone, speech: np.ndarray) -> tuple[str, np.ndarray]:
    """One dictation take spoken as the user would (Dictate, speak, Stop); its text and recording."""
    panel, rows = window.dictation, window.dictation.table.rowCount()
    panel.record_button.click()
    qtbot.waitUntil(lambda: mic.recording, timeout=10_000)
    mic.speak(np.concatenate([np.zeros(4000, np.float32), speech, np.zeros(8000, np.float32)]))
    panel.record_button.click()
    qtbot.waitUntil(lambda: panel.table.rowCount() == rows + 1, timeout=RUN_TIMEOUT_MS)
    take = window.dictation.history.recent()[0]
    samples, _ = sf.read(str(window.dictation.history.recording_path(take)), dtype="float32")
    return take.text, samples


def _expected(model: Path, source, live: bool = False) -> str:
    engine = Engine(model)
    try:
        return (engine.live if live else engine).transcribe(source).text.strip()
    finally:
        engine.close()


def test_a_model_per_use_loads_two_engines_and_each_use_runs_on_its_own(
    qtbot, home: Path, tiny_model: Path, sv_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    settings_mod.save(Settings(model=str(tiny_model), dictation_model=str(sv_model)))
    mics: list[ScriptedMicrophone] = []
    window = _open(qtbot, mics)
    _ready(qtbot, window)
    e, host = window.engine, window.dictation_host
    files, dictation = e.loaded_of("files"), e.loaded_of("dictation")
    assert len(e.engines) == 2 and e.engine_of("files") is not e.engine_of("dictation")
    assert files.engine is not dictation.engine and files.engine.family == "fun-asr-nano"
    assert dictation.engine.family == "sense-voice-small"
    assert e.engine_of("files").thread is not e.engine_of("dictation").thread  # a thread of its own each
    assert host.engine_handle.current is dictation.engine  # dictation holds the SenseVoice engine
    assert f"Files: {tiny_model.name} · Dictation: {sv_model.name}" in window.engine_label.text()
    assert f"<b>{sv_model.name}</b> (files use {tiny_model.name})" in window.dictation.model_label.text()
    assert f"<b>{tiny_model.name}</b>" in window.files.files_bar.model_label.text()

    # A long file runs on the files engine; a take spoken meanwhile runs on the dictation engine.
    long = long_speech(tmp_path / "long.wav", speech_en, repeats=30)
    (job,) = window.controller.add_paths([str(long)])
    c = window.controller
    qtbot.waitUntil(lambda: c.model.job_by_id(job.id).status is Status.RUNNING, timeout=LOAD_TIMEOUT_MS)
    assert e.engine_of("files").users == {"files"}  # the take starts with the file under way
    text, samples = _take(qtbot, window, mics[-1], speech_en)
    file_running = c.model.job_by_id(job.id).status is Status.RUNNING
    assert text and text == _expected(sv_model, samples, live=True)
    assert text != _expected(tiny_model, samples, live=True)  # not what the files model would have said
    qtbot.waitUntil(lambda: c.model.job_by_id(job.id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)
    assert c.transcript(job.id).text == _expected(tiny_model, long)
    print(
        f"\nfiles on {files.engine.family}, dictation on {dictation.engine.family}: two Engines on two threads; "
        f"the take (started while the file ran) has SenseVoice's text, the file Nano's; the file was "
        f"{'still' if file_running else 'no longer'} running when the take's text arrived"
    )


def test_the_same_folder_for_both_uses_is_one_engine_and_changing_one_use_keeps_the_other(
    qtbot, home: Path, tiny_model: Path, sv_model: Path
) -> None:
    # A settings file from before per-use models (no dictation_model): dictation follows files.
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"model": str(tiny_model), "page": "dictation"}), encoding="utf-8")
    window = _open(qtbot)
    _ready(qtbot, window)
    e = window.engine
    assert window.settings.dictation_model == "" and len(e.engines) == 1 and e.shared()
    nano = e.loaded_of("files").engine
    assert e.loaded_of("dictation").engine is nano and window.dictation_host.engine_handle.current is nano
    assert window.engine_label.text().endswith(f"Ready · {tiny_model.name} on CPU")
    assert "the same as for files" in window.dictation.model_label.text()

    # The very same folder named for both uses explicitly: still one Engine.
    window.apply_settings(replace(window.settings, dictation_model=str(tiny_model)))
    assert len(e.engines) == 1 and e.loaded_of("dictation").engine is nano

    # Dictation moves to SenseVoice: the files Engine is not reloaded, a second one loads.
    window.models.use_model(str(sv_model), "dictation")
    assert settings_mod.load().dictation_model == str(sv_model)
    _ready(qtbot, window)
    assert e.loaded_of("files").engine is nano and e.loaded_of("dictation").engine is not nano
    assert window.dictation_host.engine_handle.current is e.loaded_of("dictation").engine
    # ... and back to "same as files": the SenseVoice Engine is closed, dictation is on Nano again.
    window.apply_settings(replace(window.settings, dictation_model=""))
    qtbot.waitUntil(
        lambda: window.dictation_host.engine_handle is not None and window.dictation_host.engine_handle.current is nano,
        timeout=LOAD_TIMEOUT_MS,
    )
    assert len(e.engines) == 1 and e.loaded_of("files").engine is nano
    qtbot.waitUntil(lambda: not e._retiring, timeout=LOAD_TIMEOUT_MS)  # the SenseVoice thread has ended
    print(
        "\none folder for both uses = one Engine (also from an old settings file); choosing another dictation "
        "model kept the files Engine and loaded a second; going back closed it"
    )


def test_idle_unload_works_for_each_engine(
    qtbot, home: Path, tiny_model: Path, sv_model: Path, speech_en: np.ndarray, tmp_path: Path
) -> None:
    settings_mod.save(Settings(model=str(tiny_model), dictation_model=str(sv_model), unload_after_min=1))
    mics: list[ScriptedMicrophone] = []
    window = _open(qtbot, mics)
    _ready(qtbot, window)
    e, host = window.engine, window.dictation_host
    unloads: list[bool] = []
    e.unloaded.connect(lambda: unloads.append(True))
    controller = host.controller
    window.apply_settings(replace(window.settings, unload_after_min=0.05 / 60))  # idle for 50 ms from here on
    qtbot.waitUntil(lambda: len(unloads) == 2, timeout=30_000)
    assert e.state_of("files") is EngineState.UNLOADED and e.state_of("dictation") is EngineState.UNLOADED
    assert host.controller is controller and host.engine_handle.current is None  # the hotkey keeps working
    assert "unloaded while idle" in window.engine_label.text()

    window.apply_settings(replace(window.settings, unload_after_min=0))  # no further unloads while the rest is checked
    text, samples = _take(qtbot, window, mics[-1], speech_en)  # a take brings back dictation's model only
    assert e.state_of("dictation") is EngineState.READY and e.state_of("files") is EngineState.UNLOADED
    assert host.controller is controller and text == _expected(sv_model, samples, live=True)
    short = write_wav(tmp_path / "short.wav", speech_en)
    (job,) = window.controller.add_paths([str(short)])  # a file brings back the files model
    c = window.controller
    qtbot.waitUntil(lambda: c.model.job_by_id(job.id).status is Status.DONE, timeout=RUN_TIMEOUT_MS)
    assert e.state_of("files") is EngineState.READY and c.transcript(job.id).text == _expected(tiny_model, short)
    print("\nidle unload, two models: both Engines unloaded; a take reloaded only SenseVoice, a file only Nano")


@pytest.fixture
def catalog(sv_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A catalog with one downloadable model (the SenseVoice model zipped) on a local HTTPS server."""
    blob = tmp_path / "sv.zip"
    with zipfile.ZipFile(blob, "w", zipfile.ZIP_STORED) as zf:
        for path in sorted(sv_model.iterdir()):
            zf.write(path, "sv/" + path.name)
    trust_local_ca(monkeypatch)
    with FileServer({"/sv.zip": blob.read_bytes()}) as server:
        path = tmp_path / "catalog.json"
        path.write_text(
            json.dumps(
                {
                    "format": 1,
                    "models": [
                        {
                            "name": "sense-voice-test",
                            "kind": "tingji-model",
                            "title": "SenseVoice-Small (test build)",
                            "archives": [
                                {"name": "sv.zip", "urls": [server.url("/sv.zip")], "size": None, "sha256": None}
                            ],
                            "files": [{"path": "manifest.json"}],
                            "about": {
                                "family": "sense-voice-small",
                                "download_mb": 1,
                                "languages": ["zh", "en", "yue", "ja", "ko"],
                                "speed": "fastest",
                                "best_for": ["dictation", "drafts"],
                                "rank": 1,
                            },
                        },
                        {
                            "name": "qwen-test",
                            "kind": "official-checkpoint",
                            "title": "Qwen3-ASR-0.6B (test)",
                            "mirrors": [server.url("/none/{path}")],
                            "files": [{"path": "config.json"}],
                            "about": {
                                "family": "qwen3-asr",
                                "download_mb": 1880,
                                "languages": sorted(NAMES),
                                "speed": "moderate",
                                "best_for": ["accuracy", "languages"],
                                "rank": 2,
                            },
                        },
                    ],
                }
            ),
            encoding="utf-8",
        )
        monkeypatch.setenv("TINGJI_CATALOG", str(path))
        yield server


def test_first_run_offers_the_picker_which_installs_with_progress_and_the_app_is_ready(
    qtbot, home: Path, catalog: FileServer, q3_checkpoint: Path
) -> None:
    window = _open(qtbot)
    qtbot.waitUntil(lambda: window.models.picker is not None and window.models.picker.isVisible(), timeout=10_000)
    picker = window.models.picker
    assert window.engine.state_of("files") is EngineState.NONE and "tingji models" not in window.banner.label.text()
    assert [card.entry.name for card in picker.cards] == ["sense-voice-test", "qwen-test"]
    sv, qwen = picker.cards
    facts = sv.facts.text()
    assert "Fastest" in facts and "Chinese, English, Cantonese, Japanese, Korean" in facts and "dictation" in facts
    assert sv.size.text() == "about 1.0 MB" and qwen.size.text() == "about 1.9 GB"
    assert "30 languages: " in qwen.facts.text() and "German" in qwen.facts.toolTip()  # shortened, all in the tip
    assert "converted on this computer" in qwen.note.text() and sv.button.text() == "Download"

    stages: list[str] = []
    values: list[int] = []

    def seen(*_args) -> None:
        stages.append(picker.task_box.stage_label.text())
        values.append(picker.task_box.progress_bar.value())

    picker._worker.progress.connect(seen)  # after the picker's own slot: what it shows
    sv.button.click()
    assert picker.busy and not sv.button.isEnabled() and not picker.import_button.isEnabled()
    qtbot.waitUntil(lambda: not picker.busy, timeout=RUN_TIMEOUT_MS)
    assert "Downloading sv.zip" in stages and max(values) == 1000  # the download's bar filled
    assert "sense-voice-test is installed" in picker.outcome.text() and sv.button.text() == "Installed"
    assert not sv.button.isEnabled() and picker.close_button.text() == "Start using Tingji"
    qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
    assert window.engine.detail_of("files") == "sense-voice-test" and window.dictation_host.controller is not None
    assert not window.banner.isVisible()

    # Import a folder in the official Qwen3-ASR layout: converted on the spot, with its stages shown.
    stages.clear()
    picker.start_import(str(q3_checkpoint), "qwen3-tiny")
    qtbot.waitUntil(lambda: not picker.busy, timeout=RUN_TIMEOUT_MS)
    assert any(s.startswith("Converting: ") for s in stages), stages
    assert "qwen3-tiny is installed" in picker.outcome.text()
    assert sorted(m.name for m in list_models()) == ["qwen3-tiny", "sense-voice-test"]
    assert load_manifest(models_dir() / "qwen3-tiny").family == "qwen3-asr"
    picker.close_button.click()
    qtbot.waitUntil(lambda: window.models.picker is None, timeout=10_000)
    print(
        f"\nfirst run: the picker offered {len(picker.cards)} models, downloaded one over HTTPS "
        f"({len(values)} progress updates) and the app became ready; an official Qwen3-ASR folder converted "
        f"with {sum(s.startswith('Converting: ') for s in stages)} conversion stages shown"
    )


def test_the_language_menu_lists_the_files_models_own_languages(
    qtbot, home: Path, q3_model: Path, tiny_model: Path, sv_model: Path
) -> None:
    assert set(SPOKEN_NAMES) == set(NAMES)  # every engine language has a translatable name
    settings_mod.save(Settings(model=str(q3_model)))
    window = _open(qtbot, model_picker=False)
    _ready(qtbot, window)
    named = load_manifest(q3_model).section.language_names
    menu = window.files.files_bar.language
    assert window.files.files_bar.languages() == ["", *named]  # Auto first, then the manifest's 30, in its order
    assert len(named) == 30 and menu.itemText(0) == "Auto (detect)"
    assert [menu.itemText(i) for i in range(1, menu.count())] == [NAMES[code] for code in named]
    dialog = SettingsDialog(window.settings, languages=window.engine.engine_of("files").languages)
    qtbot.addWidget(dialog)
    assert [dialog.language.itemData(i) for i in range(dialog.language.count())] == ["", *named]

    menu.setCurrentIndex(menu.findData("de"))
    menu.activated.emit(menu.currentIndex())  # what a click on "German" sends
    assert window.settings.language == "de" and settings_mod.load().language == "de"

    i18n.install(QApplication.instance(), "zh_CN")
    try:
        qtbot.waitUntil(lambda: menu.itemText(0) == "自动识别", timeout=5000)
        assert menu.currentText() == "德语" and menu.itemText(menu.findData("ja")) == "日语"
    finally:
        i18n.install(QApplication.instance(), "en")

    # Another files model offers its own list; German stays chosen, marked as not known to it.
    window.apply_settings(replace(window.settings, model=str(tiny_model), dictation_model=str(sv_model)))
    _ready(qtbot, window)
    nano_codes = list(window.engine.loaded_of("files").engine.capabilities.languages)
    assert window.files.files_bar.languages() == ["", *nano_codes, "de"] and "zh" in nano_codes
    assert menu.currentText() == "German (this model detects instead)"
    print(f"\nlanguage menu: Auto + the Qwen3-ASR manifest's {len(named)} languages, then Nano's {nano_codes}")
