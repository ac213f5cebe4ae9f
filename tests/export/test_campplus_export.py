"""The CAM++ checkpoint reader: a damaged or different release is one clear line naming the file, nothing written.

The export itself and its equality with funasr are tests/engine/test_speakers.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
import yaml

from tingji.errors import ModelError
from tingji.export import detect_family, export_model


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tiny_campplus import make_checkpoint

    return make_checkpoint(tmp_path_factory.mktemp("cp-ckpt") / "campplus-tiny", seed=1)


def _copy(checkpoint: Path, tmp_path: Path) -> Path:
    out = tmp_path / "release"
    shutil.copytree(checkpoint, out)
    return out


def _config(folder: Path, **changes) -> None:
    data = yaml.safe_load((folder / "config.yaml").read_text())
    data["model_conf"].update(changes)
    (folder / "config.yaml").write_text(yaml.safe_dump(data))


def _damage(kind: str, folder: Path) -> tuple[str, str]:
    """Damage `folder` one way; returns (the code expected, words the line must hold)."""
    weights = folder / "campplus_cn_common.bin"
    if kind == "no weights":
        weights.unlink()
        return "export.campplus_incomplete", "campplus_cn_common.bin"
    if kind == "truncated weights":
        weights.write_bytes(weights.read_bytes()[:5000])
        return "export.pt_damaged", "campplus_cn_common.bin"
    if kind == "prelu variant":
        _config(folder, config_str="batchnorm-prelu")
        return "export.campplus_variant", "config_str"
    if kind == "frame-level variant":
        _config(folder, output_level="frame")
        return "export.campplus_variant", "output_level"
    if kind == "sizes do not fit":
        _config(folder, growth_rate=16)
        return "export.campplus_mismatch", "shapes"
    if kind == "size not a number":
        _config(folder, init_channels="128")
        return "export.campplus_variant", "init_channels"
    if kind == "weights elsewhere":
        (folder / "configuration.json").write_text('{"file_path_metas": {"init_param": "../x.bin"}}')
        return "export.funasr_not_a_file_name", "../x.bin"
    if kind == "another model's weights":
        state = torch.load(weights, weights_only=True)
        state["extra.weight"] = torch.zeros(3)
        torch.save(state, weights)
        return "export.campplus_mismatch", "extra.weight"
    raise AssertionError(kind)


KINDS = [
    "no weights",
    "truncated weights",
    "prelu variant",
    "frame-level variant",
    "sizes do not fit",
    "size not a number",
    "weights elsewhere",
    "another model's weights",
]


def test_detected_as_campplus(checkpoint):
    assert detect_family(checkpoint) == "campplus"


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_release_is_one_line(checkpoint, tmp_path, kind):
    folder = _copy(checkpoint, tmp_path)
    code, words = _damage(kind, folder)
    out = tmp_path / "out"
    with pytest.raises(ModelError) as err:
        export_model(folder, out, family="campplus")
    print(f"{kind}: {err.value}")
    assert err.value.code == code and words in str(err.value) and "\n" not in str(err.value)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["release"]
