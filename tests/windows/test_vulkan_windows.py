"""The decoder on llama.cpp's Vulkan backend under Wine: the Windows build's DLLs over winevulkan on lavapipe.

`tools/windows/setup` cross-compiles the Vulkan set beside the CPU DLLs (`llama_cpp/lib-vulkan`,
tools/windows/vulkan_build.py); Wine's vulkan-1.dll passes the calls to Mesa's lavapipe, a CPU-type
device that `auto` never takes, so the test names it with `--decoder-device vulkan`. The self-check
runs (a fresh data folder remembers no verdict) and passes; the transcript is the Linux CPU's.
Lavapipe compiles llama.cpp's shaders the first time (minutes, docs/windows-testing.md); Mesa keeps
them in the environment's cache, so later runs take seconds. Kept to one short clip: CI's budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.support.audio import write_wav
from tests.support.paths import APP, ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"


def _clip(folder: Path) -> Path:
    from demo_model import speech

    utterances = speech.held_out_set(2, seed=4848)
    pause = np.zeros(8000, np.float32)
    return write_wav(folder / "clip.wav", np.concatenate([pause, utterances[0].samples, pause, utterances[1].samples]))


def test_the_vulkan_dlls_are_built_beside_the_cpu_ones(wine_env, winenv):
    lib = wine_env.python_dir / "Lib" / "site-packages" / "llama_cpp"
    vulkan = lib / winenv.recipe.LLAMA_VULKAN_FOLDER
    assert sorted(p.name for p in vulkan.glob("*.dll")) == sorted(winenv.recipe.LLAMA_VULKAN_DLLS)
    assert "vulkan-1.dll" in winenv._imported_dlls(vulkan / "ggml-vulkan.dll")  # from the driver, not shipped
    assert not (vulkan / "vulkan-1.dll").exists()
    assert not any("vulkan" in name for name in winenv._imported_dlls(lib / "lib" / "ggml.dll"))  # CPU set as before


def test_vulkan_decoder_under_wine_gives_the_linux_text(wine_env, winenv, tmp_path):
    clip = _clip(tmp_path)
    linux_out, wine_out = tmp_path / "linux", tmp_path / "wine"
    args = ["transcribe", str(clip), "--model", str(DEMO), "--format", "json"]
    linux = subprocess.run(
        [sys.executable, "-m", "tingji", *args, "--out", str(linux_out), "--decoder-device", "cpu"],
        env=dict(os.environ, PYTHONPATH=str(APP), TINGJI_HOME=str(tmp_path / "linux-home")),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert linux.returncode == 0, linux.stderr[-3000:]
    (tmp_path / "wine-home").mkdir()
    base = dict(os.environ, TINGJI_HOME=winenv.to_windows_path(str(tmp_path / "wine-home")))
    wine = winenv.run(
        wine_env,
        ["python", "-m", "tingji", *args, "--out", str(wine_out), "--provider", "dml", "--decoder-device", "vulkan"],
        base_environ=base,
        timeout=1500,  # the first run on a new cache compiles lavapipe's shaders: ~4 min per process
    )
    stderr = wine.stderr.decode("utf-8", "replace")
    assert wine.returncode == 0, stderr[-3000:]
    linux_json = json.loads((linux_out / "clip.json").read_text(encoding="utf-8"))
    wine_json = json.loads((wine_out / "clip.json").read_text(encoding="utf-8"))
    print(f"Vulkan under Wine: {wine_json['decoder_device']}: {wine_json['text']!r}")
    assert linux_json["decoder_device"] == "cpu"
    assert wine_json["decoder_device"].startswith("vulkan:0 (llvmpipe"), (wine_json["decoder_device"], stderr[-2000:])
    assert not [w for w in wine_json["warnings"] if "runs on the CPU" in w or "not finite" in w]
    assert wine_json["text"] == linux_json["text"] and linux_json["text"].strip()
    # The self-check ran (no verdict was remembered in the fresh data folder), said so while it ran - the
    # first time on a driver it waits minutes for the shaders - and its verdict is kept.
    assert "tingji: preparing the GPU, first time only (0 s): vulkan:0 (llvmpipe" in stderr, stderr[-2000:]
    checks = json.loads((tmp_path / "wine-home" / "cache" / "gpu-checks.json").read_text(encoding="utf-8"))
    assert [v["ok"] for v in checks.values()] == [True]
