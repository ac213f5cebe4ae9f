"""The GPU's first-time self-check in the status bar (issue 48, "the first load"): while the engine
thread waits for it, the line says "preparing the GPU, first time only" with the seconds so far.

Real Qt (offscreen), the real engine thread and the real self-check's child processes on the demo
decoder. The one stand-in is the Vulkan driver's device list: this machine has no GPU, so the
listing names one integrated GPU, and the "Vulkan build" is llama.cpp's CPU build - the check then
fails as it does on a broken driver (llama.cpp lists no Vulkan device) and the model loads on the CPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tingji.engine import decoder_device
from tingji.gui.settings import Settings

pytestmark = pytest.mark.gui

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
LOAD_TIMEOUT_MS = 120_000


def test_the_status_line_says_the_gpu_is_being_prepared_while_its_check_runs(
    qtbot, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import llama_cpp

    from tingji.gui.engine_host import EngineHost, EngineState
    from tingji.gui.models.status import EngineStatus

    igpu = decoder_device.VulkanDevice(0, "Test iGPU", "integrated", 0x8086, 0x46A6, 0x1)
    # the "Vulkan build": the CPU set this process has loaded (pip's, or the patched lib-cpu an earlier
    # test's decoder chose), so that the choice is still open
    loaded = decoder_device._loaded_library() or Path(llama_cpp.__file__).parent / "lib"
    monkeypatch.setenv(decoder_device.ENV_LIBRARY, str(loaded))
    monkeypatch.setattr(decoder_device, "list_vulkan_devices", lambda: [igpu])
    host = EngineHost(Settings(model=str(DEMO), decoder_device="auto"))
    status = EngineStatus(host)
    qtbot.addWidget(status)
    lines: list[tuple[EngineState, str]] = []
    host.stateChanged.connect(lambda: lines.append((host.state_of("files"), status.text())))
    try:
        host.reload()
        qtbot.waitUntil(lambda: host.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
    finally:
        host.shutdown()
        qtbot.waitUntil(lambda: host.stopped, timeout=LOAD_TIMEOUT_MS)
        decoder_device.configure("auto")
    preparing = [text for state, text in lines if "preparing the GPU, first time only" in text]
    assert preparing, lines
    assert all("vulkan:0 (Test iGPU)" in text and "Loading model" in text for text in preparing)
    assert {state for state, text in lines if text in preparing} == {EngineState.LOADING}
    ready = [text for state, text in lines if state is EngineState.READY]
    assert ready and "preparing" not in ready[-1]  # said only while it lasts
    # The check failed (the CPU build lists no Vulkan device): the model runs on the CPU, and says why.
    assert [w.code for w in host.engine_of("files").warnings] == ["decoder.gpu_unused"]
