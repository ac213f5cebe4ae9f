"""Helpers the model-store tests share with other model tests.

Fast download settings, an installable copy of the tiny model, a catalog file, the CLI run in-process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tingji.cli import main

FAST = {"backoff": 0.005, "max_backoff": 0.02, "chunk": 8192, "stall_timeout": 5.0}


def real_model(tiny_model: Path, folder: Path) -> Path:
    """A copy of the tiny model (what an install can load), its tokens.txt in a sub-folder `vocab/`."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(tiny_model, folder)
    (folder / "vocab").mkdir()
    (folder / "tokens.txt").rename(folder / "vocab" / "tokens.txt")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["tokens"]["path"] = "vocab/tokens.txt"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def write_catalog(path: Path, entries: list[dict]) -> Path:
    path.write_text(json.dumps({"format": 1, "models": entries}), encoding="utf-8")
    return path


def run_cli(argv: list[str]) -> int:
    """The `tingji` command in this process, so that monkeypatches reach it."""
    return main(argv)
