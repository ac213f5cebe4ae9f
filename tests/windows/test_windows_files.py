"""Windows file semantics the product meets: replacing a file another program holds open."""

from __future__ import annotations

import json

from .conftest import PROBES


def test_publish_waits_for_a_brief_hold_and_fails_cleanly_on_a_lasting_one(windows_python, tmp_path):
    folder = tmp_path / "转写 folder"
    folder.mkdir()
    proc = windows_python(PROBES / "locked_replace.py", folder)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"replace over a file held open: {report}")
    assert report["brief"]["text"] == "two"  # Windows refused the rename while it was open; tried again
    assert report["lasting"].startswith("PermissionError")
    assert report["text"] == "two"  # the old transcript stays whole
    assert report["left"] == ["转写 结果.txt"]  # no temporary file left behind
