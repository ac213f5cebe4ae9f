"""What the picker and the model manager say a build can install, and what an installed copy is (offscreen Qt).

Official checkpoints are converted without torch, from graph templates (`export.templates`): a card
is offered when this build has templates of its family (here a test folder, `TINGJI_TEMPLATES`, with
`TINGJI_GRAPHS=templates` as in the installed app), and says in one sentence, with its button off,
when it has none; nothing speaks of pip or an extra. An installed Fun-ASR-Nano says which mirror it
came from and whether it times its words: Hugging Face's model.pt has no CTC head, ModelScope's has.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tingji.export import templates
from tingji.gui import i18n
from tingji.gui.app import create_app
from tingji.gui.models.manager import ModelManagerDialog
from tingji.gui.models.picker import ModelPickerDialog
from tingji.models.catalog import load_catalog
from tingji.paths import models_dir

pytestmark = pytest.mark.gui
CONVERTED_HERE = "Downloaded from the publisher and converted on this computer."
WITH_HEAD = "Timestamps: per word (CTC head)"
WITHOUT_HEAD = "Timestamps: none - this copy has no CTC head (the Hugging Face model.pt); the ModelScope copy has one"


@pytest.fixture
def only_templates(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Graphs from templates only, as in the installed app: those of the families given, none built in."""
    monkeypatch.setenv("TINGJI_GRAPHS", "templates")
    monkeypatch.setattr(templates, "BUILTIN", tmp_path / "no-builtin-templates")

    def use(families: set[str]) -> Path:
        folder = tmp_path / f"templates-{len(list(tmp_path.glob('templates-*')))}"
        folder.mkdir()
        for n, family in enumerate(sorted(families)):
            key = {"format": templates.FORMAT, "family": family, "role": "encoder", "precision": "fp32", "config": {}}
            (folder / f"{n:04d}.json").write_text(json.dumps({"key": key, "recipes": {}}), encoding="utf-8")
        monkeypatch.setenv(templates.ENV_FOLDERS, str(folder))
        return folder

    return use


def _official_families() -> set[str]:
    return {m.about.family for m in load_catalog() if m.kind == "official-checkpoint"}


def test_every_official_card_is_offered_where_its_templates_are(qtbot, only_templates) -> None:
    only_templates(_official_families())
    picker = ModelPickerDialog()
    qtbot.addWidget(picker)
    official = [c for c in picker.cards if c.entry.kind == "official-checkpoint"]
    assert {c.entry.name for c in official} >= {
        "fun-asr-nano-2512",
        "sense-voice-small",
        "qwen3-asr-0.6b",
        "qwen3-asr-1.7b",
        "paraformer-zh",
    }
    for card in picker.cards:
        assert card.button.isEnabled() and card.button.text() == "Download", card.entry.name
        assert not re.search(r"pip|extra", card.note.text() + card.entry.description), card.entry.name
    assert all(c.note.text() == CONVERTED_HERE for c in official)
    print(f"\nwith templates of {sorted(_official_families())}: all {len(picker.cards)} cards offered")
    picker.reject()


def test_a_family_without_templates_is_not_offered_and_says_why(qtbot, only_templates) -> None:
    # No Qwen3-ASR templates, and none of the punctuation model that Paraformer-zh comes with.
    only_templates(_official_families() - {"qwen3-asr", "ct-punc"})
    picker = ModelPickerDialog()
    qtbot.addWidget(picker)
    off = {c.entry.name for c in picker.cards if not c.button.isEnabled()}
    assert off == {"qwen3-asr-0.6b", "qwen3-asr-1.7b", "paraformer-zh"}
    q06 = picker.card("qwen3-asr-0.6b")
    assert q06.note.text() == "This build of Tingji cannot convert Qwen3-ASR-0.6B, so it cannot be downloaded here."
    assert picker.card("sense-voice-small").note.text() == CONVERTED_HERE
    assert picker.card("fun-asr-nano-2512").button.isEnabled()
    app = create_app()
    i18n.install(app, "zh_CN")
    try:
        q06.retranslate()
        chinese = q06.note.text()
    finally:
        i18n.install(app, "en")
    assert "Qwen3-ASR-0.6B" in chinese and re.search(r"[\u4e00-\u9fff]", chinese) and "pip" not in chinese
    print(f"\nwithout Qwen3-ASR and CT-punc templates: {sorted(off)} off; {q06.note.text()!r} / {chinese!r}")
    picker.reject()

    manager = ModelManagerDialog()
    qtbot.addWidget(manager)
    manager.select("qwen3-asr-0.6b")
    assert not manager.buttons["download"].isEnabled() and "cannot convert Qwen3-ASR-0.6B" in manager.details.text()
    manager.select("sense-voice-small")
    assert manager.buttons["download"].isEnabled() and CONVERTED_HERE in manager.details.text()
    manager.reject()


def _install_copy(tiny_model: Path, name: str, *, head: bool, mirror: str) -> Path:
    """The tiny Fun-ASR-Nano installed as `name`, as a download from `mirror` records it; without
    `head`, as a checkpoint without CTC tensors converts (no ctc graph, no tokens, no CTC section)."""
    folder = models_dir() / name
    shutil.copytree(tiny_model, folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["source"] = {**manifest["source"], "mirror": mirror, "mirror_url": f"https://{mirror}/x/{{path}}"}
    if not head:
        for role in ("ctc", "ctc_data", "tokens"):
            (folder / manifest["files"].pop(role)["path"]).unlink()
        manifest["fun-asr-nano"].pop("ctc")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_an_installed_nano_says_where_it_came_from_and_whether_it_has_timestamps(qtbot, home, tiny_model) -> None:
    _install_copy(tiny_model, "fun-asr-nano-2512", head=True, mirror="www.modelscope.cn")
    _install_copy(tiny_model, "nano-from-hf", head=False, mirror="huggingface.co")
    manager = ModelManagerDialog()
    qtbot.addWidget(manager)
    assert {r.name: r.state for r in manager.rows if r.installed} == {
        "fun-asr-nano-2512": "installed",
        "nano-from-hf": "installed",
    }
    manager.select("fun-asr-nano-2512")
    with_head = manager.details.text()
    assert "Downloaded from: www.modelscope.cn" in with_head and WITH_HEAD in with_head
    manager.select("nano-from-hf")
    without = manager.details.text()
    assert "Downloaded from: huggingface.co" in without and WITHOUT_HEAD in without and WITH_HEAD not in without
    manager.select("sense-voice-small")  # not installed: nothing of a copy to say
    assert "Timestamps" not in manager.details.text() and "Downloaded from:" not in manager.details.text()
    app = create_app()
    i18n.install(app, "zh_CN")
    try:
        manager.select("fun-asr-nano-2512")
        manager.select("nano-from-hf")
        chinese = manager.details.text()
    finally:
        i18n.install(app, "en")
    assert WITHOUT_HEAD not in chinese and "ModelScope" in chinese and "huggingface.co" in chinese
    print(f"\nwith the CTC head: {WITH_HEAD!r}; Hugging Face's copy: {WITHOUT_HEAD!r}")
    manager.reject()
