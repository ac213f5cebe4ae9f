"""The repository is as ruff's formatter leaves it, and its linter finds nothing (settings in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_code_is_formatted():
    r = _ruff("format", "--check", "--diff", ".")
    assert r.returncode == 0, f"run `ruff format .`:\n{r.stdout[-4000:]}{r.stderr[-2000:]}"


def test_linter_is_clean():
    r = _ruff("check", "--output-format", "concise", ".")
    assert r.returncode == 0, f"`ruff check .` found:\n{r.stdout[-4000:]}{r.stderr[-2000:]}"
