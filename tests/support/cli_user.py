"""A user running the `tingji` command in a fresh process: their data folder, their catalog, the one error line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT


class Env:
    """A user's machine: its own data folder and (optionally) a catalog file."""

    def __init__(self, home: Path, catalog: Path | None = None) -> None:
        self.home, self.catalog = home, catalog

    def tingji(self, *args: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "app"), TINGJI_HOME=str(self.home))
        env.pop("TINGJI_CATALOG", None)
        if self.catalog is not None:
            env["TINGJI_CATALOG"] = str(self.catalog)
        return subprocess.run(
            [sys.executable, "-m", "tingji", *args], capture_output=True, text=True, env=env, timeout=900
        )

    def ok(self, *args: str) -> subprocess.CompletedProcess:
        r = self.tingji(*args)
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
        return r

    def transcribe(self, model: str, wav: Path, out: Path) -> str:
        self.ok("transcribe", str(wav), "--model", model, "--out", str(out), "--format", "json")
        data = json.loads((out / f"{wav.stem}.json").read_text(encoding="utf-8"))
        assert data["model"] == model
        return data["text"]


def error_line(r: subprocess.CompletedProcess) -> str:
    """The one error line a failed command prints last (progress lines may come before it)."""
    errors = [line for line in r.stderr.splitlines() if line.startswith("tingji")]
    assert len(errors) == 1 and r.stderr.rstrip().endswith(errors[0]) and "Traceback" not in r.stderr
    return errors[0]
