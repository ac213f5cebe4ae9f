"""Issue 44 proof 3: hostile and broken checkpoints, imported where torch cannot be imported.

`tingji models import` runs in a process where `import torch` fails, as in the installed app.
Each broken checkpoint must give exit 1 and one coded `tingji:` line naming the problem, leave
no model folder (nor a partial one) behind, and execute nothing: the pickle that calls
`os.system` would create a marker file.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from tests.support.paths import APP

RUN_CLI = (
    "import runpy, sys; sys.modules['torch'] = None; sys.argv = ['tingji', *sys.argv[1:]]; "
    "runpy.run_module('tingji', run_name='__main__')"
)


class _Shell:
    """Unpickling this runs a shell command: what a hostile checkpoint would hide in model.pt."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def _import_without_torch(checkpoint: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(APP), "TINGJI_HOME": str(home), "TINGJI_GRAPHS": "templates"}
    return subprocess.run(
        [sys.executable, "-c", RUN_CLI, "models", "import", str(checkpoint), "--name", "hostile"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def _copy(checkpoint: Path, target: Path) -> Path:
    shutil.copytree(checkpoint, target, symlinks=True)
    return target


def _short_storage(model_pt: Path) -> None:
    """Rewrite the archive with its largest storage record cut to half its bytes."""
    with zipfile.ZipFile(model_pt) as src:
        records = {info.filename: src.read(info) for info in src.infolist()}
    largest = max((n for n in records if "/data/" in n), key=lambda n: len(records[n]))
    records[largest] = records[largest][: len(records[largest]) // 2]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as dst:
        for name, data in records.items():
            dst.writestr(name, data)
    model_pt.write_bytes(buf.getvalue())


def _break(case: str, folder: Path, marker: Path) -> None:
    model_pt = folder / "model.pt"
    if case == "pickle calls os.system":
        state = torch.load(model_pt, weights_only=True)
        torch.save({"model": state, "extra": _Shell(f"touch {marker}")}, model_pt)
    elif case == "truncated zip":
        data = model_pt.read_bytes()
        model_pt.write_bytes(data[: len(data) // 2])
    elif case == "storage shorter than its tensor":
        _short_storage(model_pt)
    elif case == "tensor of the wrong shape":
        state = torch.load(model_pt, weights_only=True)
        key = "audio_encoder.encoders0.0.self_attn.linear_q_k_v.weight"
        state[key] = torch.zeros(state[key].shape[0] + 3, state[key].shape[1])
        torch.save(state, model_pt)
    elif case == "config.yaml missing":
        (folder / "config.yaml").unlink()
    elif case == "unknown architecture":
        text = (folder / "config.yaml").read_text(encoding="utf-8")
        (folder / "config.yaml").write_text(text.replace("FunASRNano", "WhisperLarge"), encoding="utf-8")
    else:
        raise AssertionError(case)


# case -> words the one line must hold (besides the file or folder it names)
CASES = {
    "pickle calls os.system": "refused global posix.system",
    "truncated zip": "model.pt",
    "storage shorter than its tensor": "model.pt",
    "tensor of the wrong shape": "do not match config.yaml",
    "config.yaml missing": "not a Tingji model",
    "unknown architecture": "not a checkpoint",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_checkpoint_gets_one_coded_line_and_leaves_nothing(
    case: str, tiny_checkpoint: Path, tmp_path: Path
) -> None:
    folder = _copy(tiny_checkpoint, tmp_path / "Fun-ASR-Nano-tiny")
    marker = tmp_path / "executed"
    _break(case, folder, marker)
    home = tmp_path / "home"
    r = _import_without_torch(folder, home)
    lines = [line for line in r.stderr.splitlines() if line.startswith("tingji:")]  # the rest is progress
    print(f"{case}: exit {r.returncode}: {lines}")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert len(lines) == 1, r.stderr
    assert CASES[case] in lines[0] and folder.name in lines[0]
    assert not marker.exists(), "the checkpoint ran a command"
    models = home / "models"
    assert not models.exists() or not any(models.iterdir()), sorted(p.name for p in models.iterdir())
