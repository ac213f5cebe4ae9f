"""The GUI as Qt's Windows style draws it, under Wine."""

from __future__ import annotations

import json

from .conftest import PROBES


def test_language_menu_shows_its_longest_item_whole(windows_python):
    """The files model bar's menu is wide enough for "自动识别" as the windowsvista style draws it (that style
    draws the text inset in a field narrower than Qt's AdjustToContents allows for, and cut the last character)."""
    proc = windows_python(PROBES / "combo_text.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"language menu: {report}")
    assert report["style"] == "windowsvista" and report["text"] == "自动识别"
    assert report["whole"], report
