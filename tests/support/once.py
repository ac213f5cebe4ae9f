"""Test-session artefacts built once per run, also when pytest-xdist runs the suite in several workers.

Under xdist every worker is a pytest session of its own, so a session fixture would build its tiny
checkpoint or export once per worker. `built_once` builds it once for the whole run instead, the way
pytest-xdist documents: in a folder under the run's shared temporary folder
(`tmp_path_factory.getbasetemp().parent`), under a file lock; the first worker builds while the others
wait, then all read it. A `.done` file, written last, names the result: a build that failed or was
killed is never taken for a finished one (the next worker to ask builds it again).

Only for results that no test changes (a model folder, a WAV file): each worker still gets its own
copy of anything mutable. Without xdist (a developer's targeted run) it is a plain build into
`tmp_path_factory.mktemp(name)`, unless SHARED_ENV names the folder of a run this session belongs to:
the child pytest of tests/test_under_load.py takes what its parent's workers built (or waits for it)
instead of exporting the same models again beside its busy loops.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

SHARED_ENV = "TINGJI_TEST_BUILT_ONCE"


def xdist_worker(config: pytest.Config) -> str | None:
    """The xdist worker id (gw0, gw1, ...) of this session, or None when it runs the tests itself.

    Read from the session's configuration, not from PYTEST_XDIST_WORKER: a pytest started by a test
    (tests/test_under_load.py) inherits that variable but is no worker.
    """
    workerinput = getattr(config, "workerinput", None)
    return workerinput["workerid"] if workerinput else None


def built_once(request: pytest.FixtureRequest, name: str, build: Callable[[Path], Path]) -> Path:
    """`build(folder)`'s result, built once per test run; `folder` is empty and the build's own.

    Args:
        request: the session fixture's request (its configuration says whether xdist runs it).
        name: a name unique among these artefacts (a folder and lock file are named after it).
        build: makes the artefact inside the folder it is given and returns its path.
    """
    shared = shared_folder(request)
    if shared is None:
        return build(request.getfixturevalue("tmp_path_factory").mktemp(name))
    return build_shared(shared, name, build)


def shared_folder(request: pytest.FixtureRequest) -> Path | None:
    """Where this run's artefacts are built once (None: this session builds its own)."""
    if xdist_worker(request.config) is not None:
        factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
        return factory.getbasetemp().parent / "built-once"
    inherited = os.environ.get(SHARED_ENV)
    return Path(inherited) if inherited else None


def build_shared(shared: Path, name: str, build: Callable[[Path], Path]) -> Path:
    """`build(shared / name)`'s result, built by the first process to ask, under a lock in `shared`."""
    shared.mkdir(exist_ok=True)
    done = shared / f"{name}.done"
    with FileLock(shared / f"{name}.lock"):
        if done.is_file():
            return Path(done.read_text(encoding="utf-8"))
        folder = shared / name
        shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
        folder.mkdir()
        result = build(folder)
        done.write_text(str(result), encoding="utf-8")
    return result
