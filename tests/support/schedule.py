"""How pytest-xdist shares the suite between its workers (`python3 -m pytest -n auto`, the README's command).

pyproject.toml runs xdist with `--dist loadgroup --no-loadscope-reorder`: a worker takes one group of
tests at a time, in the order the workers collected them. tests/conftest.py applies two rules here:

- Each test file is a group unless a mark names another, so a file's module fixtures (a PyInstaller
  build, a Wine prefix, an engine) are made by one worker, once. Files that use a resource of which
  the machine has one share the group "desktop" (`pytest.mark.xdist_group("desktop")`): the PulseAudio
  virtual microphone, an Xvfb display with its focus and synthetic key presses, and
  tests/test_under_load.py, whose child pytest plays into the microphone beside its busy loops.
- The groups that take longest start first, so that the workers end together instead of one starting
  the quick benchmark when the other is nearly done. SECONDS holds what each file took; only the
  order depends on it: a file missing from it (or a stale figure) runs later, never wrongly.
"""

from __future__ import annotations

import pytest

# Seconds per test file (setup included): the slowest 60 of a full serial run's `--durations` on the
# 2-core machine (3c5a897, 2026-11-26), summed per file; test_under_load.py from its own docstring. Files
# under ~15 s are left out. Refresh when a file's cost moves a lot.
SECONDS = {
    "tests/test_benchmarks.py": 640,
    "tests/models/test_official.py": 370,
    # The 300 s the file took, split when its export proofs moved out (issue 47): the int8/fp16 export's 160 s
    # (a busy-machine run, 2026-11-28) went with them.
    "tests/engine/test_qwen3_asr.py": 140,
    "tests/export/test_qwen3_asr_export.py": 160,
    "tests/engine/test_manifest_strict.py": 260,
    "tests/export/test_export.py": 220,
    "tests/cli/test_cli.py": 210,
    "tests/windows/test_installer_windows.py": 160,
    "tests/engine/test_fidelity.py": 140,
    "tests/engine/test_demo_model.py": 140,
    "tests/gui/test_model_uses.py": 130,
    "tests/windows/test_dml_graphs.py": 130,
    "tests/export/test_sense_voice_export.py": 120,
    "tests/windows/test_dml_shapes.py": 70,
    "tests/engine/test_audio.py": 60,
    "tests/test_installer.py": 60,
    "tests/test_under_load.py": 260,
    "tests/models/test_store.py": 50,
    "tests/models/test_e2e.py": 50,
    "tests/dictation/test_e2e.py": 40,
    "tests/gui/test_overlay_x11.py": 40,
    "tests/engine/test_engine.py": 35,
    "tests/export/test_paraformer_export.py": 35,
    "tests/engine/test_paraformer.py": 30,
    "tests/windows/test_dml_fallback.py": 15,
    # New on 2026-11-29, from busy-machine runs (load 5-15), halved: the DirectML batch twin of CAM++ under
    # Wine (284 s at load 15) and the int8 CAM++ proofs (~80 s of calls at load 5, plus their exports).
    "tests/windows/test_dml_speakers.py": 150,
    "tests/engine/test_speakers_int8.py": 90,
}


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def _group(item: pytest.Item) -> str:
    marker = item.get_closest_marker("xdist_group")
    assert marker is not None  # group_by_file gave every item one
    return str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))


def group_by_file(items: list[pytest.Item]) -> None:
    """Give every test that names no xdist group its file's group."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_file(item)))


def longest_first(items: list[pytest.Item]) -> None:
    """Order the tests so that the groups expected to take longest come first (each group's tests keep
    their order)."""
    files: dict[str, set[str]] = {}
    for item in items:
        files.setdefault(_group(item), set()).add(_file(item))
    seconds = {group: sum(SECONDS.get(f, 0) for f in names) for group, names in files.items()}
    items.sort(key=lambda item: -seconds[_group(item)])
