"""The timing-sensitive tests pass with every core busy with another program, as on a user's busy laptop.

Tests marked `load_sensitive` check something that threads or timing take part in: a watchdog, a lane
that must not wait for another, the GUI thread's stalls, a signal, an end of take found by the VAD.
They assert the property (an event, a count, an order, CPU seconds, a generous bound on a hang),
never a share of wall time; this proves it. It runs them in a child pytest while one busy loop per
core, at normal priority, competes for every core; a run that includes this file leaves them to it
(tests/conftest.py), so the README's command runs each of them once, under load.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import PREBUILT_TINY_MODEL
from tests.support.once import SHARED_ENV, shared_folder
from tests.support.paths import ROOT

MARKER = "load_sensitive"
# What a hog prints when told to stop: the CPU seconds it got (how much of the machine it held).
_HOG = (
    "import os, signal, time\n"
    "signal.signal(signal.SIGTERM, lambda *_: (print(time.process_time(), flush=True), os._exit(0)))\n"
    "while True:\n"
    "    pass\n"
)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # Windows, macOS
        return os.cpu_count() or 1


def _marked_files() -> list[str]:
    """The test files that hold a marked test (the child collects only these)."""
    here = Path(__file__).resolve()
    files = [p for p in sorted((ROOT / "tests").rglob("test_*.py")) if p != here and MARKER in p.read_text("utf-8")]
    return [str(p.relative_to(ROOT)) for p in files]


def _outcomes(junit: Path) -> dict[str, list[str]]:
    """Test ids by outcome, from the child's JUnit XML."""
    out: dict[str, list[str]] = {"passed": [], "failed": [], "skipped": []}
    for case in ET.parse(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            out["failed"].append(name)
        elif case.find("skipped") is not None:
            out["skipped"].append(f"{name} ({case.find('skipped').get('message')})")
        else:
            out["passed"].append(name)
    return out


@pytest.mark.slow
@pytest.mark.xdist_group("desktop")  # xdist: its child plays into the virtual microphone (tests/support/schedule.py)
@pytest.mark.timeout(1100)  # the child's bound below, and then some: under tests/conftest.py's hung-test watchdog
@pytest.mark.skipif(sys.platform == "win32", reason="the hogs are stopped with SIGTERM")
def test_load_sensitive_tests_pass_with_every_core_busy(
    tiny_model: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """17 tests; 260 s on 2 cores the first time, with other sessions' jobs on the machine as well."""
    files = _marked_files()
    assert files, f"no test is marked {MARKER}"
    env = {**os.environ, PREBUILT_TINY_MODEL: str(tiny_model)}  # exported already: not again under load
    shared = shared_folder(request)
    if shared is not None:  # under xdist: the other models the workers built (tests/support/once.py)
        env[SHARED_ENV] = str(shared)
    junit = tmp_path / "junit.xml"
    cmd = [sys.executable, "-m", "pytest", "-m", MARKER, "-p", "no:cacheprovider", "-q", "--durations=0"]
    cmd += ["--basetemp", str(tmp_path / "basetemp"), "--junitxml", str(junit), *files]
    hogs = [subprocess.Popen([sys.executable, "-c", _HOG], stdout=subprocess.PIPE, text=True) for _ in range(_cores())]
    started = time.monotonic()
    try:
        run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1000)
    finally:
        wall = time.monotonic() - started
        alive = [hog.poll() is None for hog in hogs]
        for hog in hogs:
            hog.send_signal(signal.SIGTERM)
        got = [float(hog.communicate(timeout=60)[0] or 0) for hog in hogs]
    print(
        f"\n{wall:.0f} s beside {len(hogs)} busy loops on {_cores()} cores, which got {sum(got):.0f} CPU s "
        f"({sum(got) / wall:.2f} cores); the child's exit status {run.returncode}\n{run.stdout[-3000:]}"
    )
    assert all(alive), "a busy loop ended before the tests did"
    # The verdict is the report pytest writes when its session ends: every test ran, none failed.
    assert junit.exists(), f"the child ended before its report (exit {run.returncode}):\n{run.stderr[-3000:]}"
    outcomes = _outcomes(junit)
    print(f"passed {len(outcomes['passed'])}, skipped: {outcomes['skipped']}")
    assert outcomes["passed"] and not outcomes["failed"], run.stdout[-8000:]
    # A signal after the report would be the process dying while Python shuts down (it did, before the
    # GUI gave every QObject one owner: tests/gui/test_exit.py).
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
