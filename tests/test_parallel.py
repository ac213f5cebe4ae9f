"""The suite under pytest-xdist: artefacts built once for all workers, the one-of-a-kind resources in one group."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.once import build_shared
from tests.support.paths import ROOT

# Two processes ask at once; each build sleeps, so the second asks while the first is building.
_ASK = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.support.once import build_shared

def build(folder):
    with open(sys.argv[3], "a") as log:
        log.write("built\\n")
    time.sleep(1.5)
    (folder / "model.bin").write_bytes(b"x")
    return folder / "model.bin"

print(build_shared(Path(sys.argv[2]), "model", build))
"""


def test_two_workers_asking_at_once_share_one_build(tmp_path: Path) -> None:
    shared, log = tmp_path / "built-once", tmp_path / "builds.log"
    cmd = [sys.executable, "-c", _ASK, str(ROOT), str(shared), str(log)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outs]
    assert log.read_text().splitlines() == ["built"]  # one build, the other process waited for it
    assert outs[0][0] == outs[1][0] == f"{shared / 'model' / 'model.bin'}\n"


def test_a_failed_build_is_never_reused(tmp_path: Path) -> None:
    def broken(folder: Path) -> Path:
        (folder / "half.bin").write_bytes(b"x")
        raise RuntimeError("killed mid-build")

    with pytest.raises(RuntimeError):
        build_shared(tmp_path, "model", broken)
    assert not (tmp_path / "model.done").exists()

    def build(folder: Path) -> Path:
        assert not any(folder.iterdir())  # what the failed build left is gone
        (folder / "model.bin").write_bytes(b"x")
        return folder / "model.bin"

    assert build_shared(tmp_path, "model", build) == tmp_path / "model" / "model.bin"
    assert build_shared(tmp_path, "model", broken) == tmp_path / "model" / "model.bin"  # built: not again


def test_every_user_of_the_microphone_or_a_display_is_in_the_desktop_group() -> None:
    """Two takes at once, or two tests' key presses and focus, must not meet: under xdist one worker runs
    every test file that starts the virtual microphone or an Xvfb display (tests/support/schedule.py)."""
    users = re.compile(r"\b(VirtualMic|VirtualDisplay)\(|\bdef vmic\(|\bdef xvfb\(|\bPREBUILT_TINY_MODEL\b")
    grouped = re.compile(r"xdist_group\(\"desktop\"\)")
    files = sorted((ROOT / "tests").rglob("test_*.py"))
    using = [f for f in files if users.search(f.read_text(encoding="utf-8"))]
    assert len(using) >= 6, using  # the scan finds them (dictation, overlay, hotkey, under load...)
    outside = [str(f.relative_to(ROOT)) for f in using if not grouped.search(f.read_text(encoding="utf-8"))]
    assert not outside, f"start the microphone or a display but are not in xdist_group('desktop'): {outside}"
