"""The app's punctuation setting: on by default, kept in settings.json, shown in Settings, and obeyed by the
engine thread (a model that writes no punctuation gets the installed punctuation model, or not)."""

from __future__ import annotations

import json
import shutil

import pytest

from tingji.gui import settings as settings_mod

pytestmark = pytest.mark.gui


def test_the_setting_round_trips(home):
    assert settings_mod.Settings().punctuation is True
    path = settings_mod.save(settings_mod.Settings(punctuation=False))
    assert json.loads(path.read_text(encoding="utf-8"))["punctuation"] is False
    assert settings_mod.load().punctuation is False
    path.write_text(json.dumps({"punctuation": "no"}), encoding="utf-8")
    assert settings_mod.load().punctuation is True  # not a boolean: the default


def test_settings_dialog_shows_and_writes_it(qtbot, home):
    from tingji.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(settings_mod.Settings(punctuation=False))
    qtbot.addWidget(dialog)
    assert not dialog.punctuation.isChecked()
    dialog.punctuation.setChecked(True)
    assert dialog.settings().punctuation is True


def test_engine_thread_punctuates_only_when_asked(qapp, home, pf_model, punc_model):
    from tingji.gui.engine_worker import EngineWorker

    shutil.copytree(punc_model, home / "models" / "ct-punc-zh")
    worker = EngineWorker()
    loaded = []
    worker.ready.connect(loaded.append)
    worker.load_failed.connect(lambda seq, error: pytest.fail(str(error)))
    worker.load(str(pf_model), "cpu", "", True, 1)  # "": the default adapter (DirectML only)
    assert loaded[-1].engine.punctuator is not None and loaded[-1].engine.punctuator.folder.name == "ct-punc-zh"
    worker.load(str(pf_model), "cpu", "", False, 2)
    assert loaded[-1].engine.punctuator is None
    worker.close_engine()
    print("punctuation on: the installed ct-punc-zh is used; off: none")


def test_a_punctuation_model_is_never_chosen_as_the_speech_model(qtbot, home, pf_model, punc_model):
    """Installed alongside Paraformer (and first by name), the punctuation model is not what the app loads
    when no model is set, nor offered in Settings' model lists."""
    from tingji.gui.model_choice import choose_model
    from tingji.gui.settings_dialog import SettingsDialog

    shutil.copytree(punc_model, home / "models" / "aa-punctuation")
    shutil.copytree(pf_model, home / "models" / "paraformer-zh")
    assert choose_model("").name == "paraformer-zh"
    dialog = SettingsDialog(settings_mod.Settings())
    qtbot.addWidget(dialog)
    offered = [dialog.model.itemData(i) for i in range(dialog.model.count())]
    print(f"Settings offers {offered}")
    assert "paraformer-zh" in offered and "aa-punctuation" not in offered
