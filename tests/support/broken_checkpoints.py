"""A family's checkpoint broken in one file, and what exporting it must do: stop with one clear line that
names the file, leaving no model folder behind (each family's export tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import APP
from tingji.errors import ModelError
from tingji.export import export_model


def tingji_cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """`python -m tingji ARGS` from this checkout's app/."""
    env = dict(os.environ, PYTHONPATH=str(APP))
    return subprocess.run(
        [sys.executable, "-m", "tingji", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def broken_copy(source: Path, target: Path, name: str, content: bytes | None) -> Path:
    """The checkpoint with one file replaced (None: removed); the rest linked, not copied."""
    target.mkdir()
    for item in source.iterdir():
        if item.name != name:
            os.symlink(item, target / item.name)
    if content is not None:
        (target / name).write_bytes(content)
    return target


def assert_export_refused(
    checkpoint: Path, tmp_path: Path, case: str, name: str, content: bytes | None, expected: str
) -> None:
    """Exporting `checkpoint` with its file `name` replaced by `content` raises one line naming the file and
    saying `expected`; neither the model folder nor a partial one is left."""
    broken = broken_copy(checkpoint, tmp_path / "ckpt", name, content)
    out = tmp_path / "models" / "out"
    with pytest.raises(ModelError) as info:
        export_model(broken, out)
    message = str(info.value)
    print(f"{case}: {message}")
    assert expected in message and name in message and "\n" not in message
    assert not out.exists() and not any(p.name.startswith(".out.partial") for p in out.parent.iterdir())


def assert_cli_refuses_a_truncated_model_pt(checkpoint: Path, tmp_path: Path) -> None:
    """`tingji export-model` of the checkpoint with a truncated model.pt: exit 1, one line naming it, no folder."""
    broken = broken_copy(checkpoint, tmp_path / "ckpt", "model.pt", b"PK\x03\x04 truncated")
    r = tingji_cli("export-model", "--source", str(broken), "--out", str(tmp_path / "out"))
    lines = [line for line in r.stderr.splitlines() if line.startswith("tingji:")]
    print(f"exit {r.returncode}: {lines}")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert len(lines) == 1 and "model.pt" in lines[0]
    assert not (tmp_path / "out").exists()
