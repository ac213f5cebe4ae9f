"""A CAM++ speaker model through the model manager: an official checkpoint folder imported (converted here),
listed as a companion rather than a speech model, and found by the CLI as "the installed speaker model"."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tingji.errors import ModelError
from tingji.models import store
from tingji.models.companions import speaker_model as speaker_model_installed
from tingji.models.installed import list_models


def test_official_checkpoint_imports_as_the_installed_speaker_model(home, speaker_checkpoint):
    assert speaker_model_installed() is None
    result = store.import_folder(speaker_checkpoint, "campplus")
    installed = {m.name: m for m in list_models()}
    assert installed["campplus"].family == "campplus" and installed["campplus"].manifest_ok
    assert not installed["campplus"].speech  # a companion: never offered as the files or dictation model
    assert speaker_model_installed() == result.path


def test_a_speaker_model_that_cannot_load_is_refused_at_import(home, speaker_model, tmp_path: Path):
    """The import loads it as the app will: a graph ONNX Runtime cannot read (its manifest entry matching)
    is one line naming the user's file, and nothing is installed."""
    src = shutil.copytree(speaker_model, tmp_path / "broken")
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["files"]["embedder"]
    data = b"\x08\x07" + bytes(range(256)) * 40
    (src / entry["path"]).write_bytes(data)
    entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (src / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelError) as info:
        store.import_folder(src, "broken")
    message = str(info.value)
    print(f"refused at import: {message[:160]}")
    assert message.startswith(f"{src / entry['path']}: cannot be loaded (")
    assert "\n" not in message and ".incoming-" not in message
    assert list_models() == [] and speaker_model_installed() is None
