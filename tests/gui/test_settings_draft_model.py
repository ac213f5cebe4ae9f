"""Settings' "Let an installed SenseVoice-Small or Fun-ASR-Nano draft for Qwen3-ASR" (issue 46): the switch
round-trips, follows the drafting switch, and reaches the engine thread, which loads the installed draft model."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.audio import write_wav
from tingji.gui import settings as settings_mod
from tingji.gui.settings import Settings

pytestmark = pytest.mark.gui

LOAD_TIMEOUT_MS = 120_000


def test_the_switch_round_trips_and_follows_the_drafting_switch(qtbot, home: Path) -> None:
    from tingji.gui.devices import DecoderDevices
    from tingji.gui.settings_dialog import SettingsDialog

    assert Settings().draft_model is True  # on by default: it takes effect only where a model that drafts is installed
    path = settings_mod.save(Settings(draft_model=False))
    assert json.loads(path.read_text(encoding="utf-8"))["draft_model"] is False
    path.write_text(json.dumps({"draft_model": "no"}), encoding="utf-8")
    assert settings_mod.load().draft_model is True  # a bad value: the default
    dialog = SettingsDialog(Settings(draft=False), decoders=DecoderDevices())
    qtbot.addWidget(dialog)
    assert dialog.draft_model.isChecked() and not dialog.draft_model.isEnabled()  # no drafts at all
    dialog.draft.setChecked(True)
    assert dialog.draft_model.isEnabled()
    dialog.draft_model.setChecked(False)
    assert (dialog.settings().draft, dialog.settings().draft_model) == (True, False)


def test_the_switch_reaches_the_engine_thread(qtbot, home: Path, q3_model: Path, sv_model: Path, speech_en, tmp_path):
    """With SenseVoice installed, the Qwen3-ASR engine drafts with it; switched off, the engine reloads without."""
    from tingji.gui.engine_host import EngineHost, EngineState
    from tingji.gui.engine_worker import Request

    shutil.copytree(sv_model, home / "models" / "sv-tiny")
    src = write_wav(tmp_path / "talk.wav", speech_en)
    host = EngineHost(Settings(model=str(q3_model), decoder_device="cpu", language="en"))
    done: dict[int, object] = {}
    host.files_lane.finished.connect(lambda job, transcript, _s: done.__setitem__(job, transcript))
    host.files_lane.failed.connect(lambda job, error: pytest.fail(str(error)))
    sources = []
    try:
        host.reload()
        qtbot.waitUntil(lambda: host.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
        sources.append(host.loaded_of("files").engine.recognizer.draft_source)
        host.transcribe(Request(1, str(src), host.settings.files_options()))
        qtbot.waitUntil(lambda: 1 in done, timeout=LOAD_TIMEOUT_MS)

        host.apply_settings(replace(host.settings, draft_model=False))
        qtbot.waitUntil(
            lambda: host.state_of("files") is EngineState.READY and not host.engine_of("files").draft_model_setting,
            timeout=LOAD_TIMEOUT_MS,
        )
        sources.append(host.loaded_of("files").engine.recognizer.draft_source)
        host.transcribe(Request(2, str(src), host.settings.files_options()))
        qtbot.waitUntil(lambda: 2 in done, timeout=LOAD_TIMEOUT_MS)
    finally:
        host.shutdown()
        qtbot.waitUntil(lambda: host.stopped, timeout=LOAD_TIMEOUT_MS)
    drafted, plain = done[1], done[2]
    print(f"\ndrafted by SenseVoice: {drafted.timings}\nswitched off: {plain.timings}")
    assert sources[0] is not None and sources[0].family == "sense-voice-small" and sources[1] is None
    assert "draft" in drafted.timings and "draft_tokens" in drafted.timings  # the source heard the window
    assert "draft" not in plain.timings
    assert drafted.text == plain.text
