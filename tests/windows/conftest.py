"""The Windows test environment (tools/windows/): found, never built, by these tests.

CI builds it in .ci/setup; a missing or outdated one fails each test here with the line that says
how to build it. Every test runs its Wine work in subprocesses (a Wine start plus `import numpy` is
a few seconds; a DirectML session keeps ~0.5 GB until its process ends).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import TOOLS


def load_winenv() -> ModuleType:
    """tools/windows/winenv.py, imported by path (tools/windows/ is scripts, not a package)."""
    if "winenv" not in sys.modules:
        folder = str(TOOLS / "windows")
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location("winenv", TOOLS / "windows" / "winenv.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["winenv"] = module
        spec.loader.exec_module(module)
    return sys.modules["winenv"]


@pytest.fixture(scope="session")
def winenv() -> ModuleType:
    return load_winenv()


@pytest.fixture(scope="session")
def wine_env(winenv: ModuleType):
    try:
        return winenv.ensure(build=False)
    except winenv.SetupError as e:
        missing = str(e)
    pytest.fail(missing, pytrace=False)


@pytest.fixture(scope="session")
def windows_python(wine_env, winenv: ModuleType):
    """Run `python ARGS` in the environment; returns the CompletedProcess (text decoded as UTF-8)."""

    def run(*args: str | Path, timeout: float = 600, cwd: Path | None = None):
        proc = winenv.run(wine_env, ["python", *map(str, args)], timeout=timeout, cwd=cwd)
        proc.stdout = proc.stdout.decode("utf-8", "replace")
        proc.stderr = proc.stderr.decode("utf-8", "replace")
        return proc

    return run


PROBES = Path(__file__).resolve().parent / "probes"
