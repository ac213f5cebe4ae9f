"""One policy for which companion model a use loads (`models.companions`), asked by the CLI, the app's files
and dictation alike: the one named, else the installed one of the family, else none."""

from __future__ import annotations

import ast
import shutil

import pytest

from tests.support.paths import APP
from tingji.errors import ModelError
from tingji.models import companions
from tingji.paths import models_dir


def test_named_then_installed_then_none(home, punc_model, speaker_model, tmp_path):
    assert companions.punctuation_model() is None and companions.speaker_model() is None
    models_dir().mkdir(parents=True, exist_ok=True)
    installed = shutil.copytree(punc_model, models_dir() / "ct-punc-zh")
    shutil.copytree(speaker_model, models_dir() / "campplus")
    assert companions.punctuation_model() == installed
    assert companions.speaker_model() == models_dir() / "campplus"
    assert companions.speaker_model(speaker_model) == speaker_model.resolve()  # a folder named wins
    assert companions.punctuation_model("ct-punc-zh") == installed  # so does an installed name
    with pytest.raises(ModelError) as info:
        companions.speaker_model(tmp_path / "nothing-here")
    print(info.value)
    assert "\n" not in str(info.value)


# Where a companion model is chosen: each caller asks models.companions, none looks through the installed
# models itself.
CALLERS = ("cli/transcribe.py", "gui/engine_worker.py", "gui/speakers.py")


def test_the_cli_and_the_app_ask_the_one_policy():
    asked, looked_itself = [], []
    for path in (APP / "tingji").rglob("*.py"):
        rel = path.relative_to(APP / "tingji").as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("models.companions"):
                asked.append(rel)
            if isinstance(node, ast.ImportFrom) and any(a.name == "first_of_family" for a in node.names):
                looked_itself.append(rel)
    print(f"ask models.companions: {sorted(set(asked))}; import first_of_family: {looked_itself}")
    assert set(CALLERS) <= set(asked)
    assert looked_itself == ["models/companions.py"]
