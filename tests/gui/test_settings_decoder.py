"""Settings' decoder device (issue 48) and drafting switch (issue 46): the dialog offers what the Vulkan driver
lists, the choices round-trip through settings.json, and the engine thread loads and transcribes with them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.support.audio import write_wav
from tests.support.paths import ROOT
from tingji.engine import decoder_device
from tingji.engine import messages as engine_messages
from tingji.engine.decoder_device import Choice, VulkanDevice
from tingji.gui import settings as settings_mod
from tingji.gui.settings import Settings

pytestmark = pytest.mark.gui

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
LOAD_TIMEOUT_MS = 120_000

from demo_model import speech  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)


def _gpu(index: int, name: str, kind: str = "discrete") -> VulkanDevice:
    return VulkanDevice(index, name, kind, 0x1002, 0x15BF + index, 0x8000)


def _offered(combo) -> list[str]:
    return [combo.itemData(i) for i in range(combo.count())]


def test_both_settings_round_trip_through_the_file(home: Path) -> None:
    assert Settings().draft is True and Settings().decoder_device == "auto"
    path = settings_mod.save(Settings(draft=False, decoder_device="AMD Radeon 780M"))
    assert json.loads(path.read_text(encoding="utf-8"))["draft"] is False
    assert settings_mod.load() == Settings(draft=False, decoder_device="AMD Radeon 780M")
    path.write_text(json.dumps({"draft": "no", "decoder_device": ""}), encoding="utf-8")
    assert (settings_mod.load().draft, settings_mod.load().decoder_device) == (True, "auto")  # bad: the defaults
    assert Settings(decoder_device="x" * 300).normalised().decoder_device == "auto"
    # Files and dictation ask the same (gui/dictation/host takes transcribe_options()).
    off = Settings(draft=False)
    assert off.transcribe_options().draft is False and off.files_options("auto").draft is False
    assert Settings().transcribe_options().draft is True


def test_the_dialog_offers_what_the_vulkan_driver_lists_here(qtbot, home: Path) -> None:
    """No injected list: the dialog asks decoder_device, and lists exactly its devices, or says why there are
    none in one line and keeps Automatic and the CPU."""
    from tingji.gui.devices import decoder_devices
    from tingji.gui.settings_dialog import SettingsDialog

    here = decoder_devices()
    listed = decoder_device.list_vulkan_devices() if decoder_device.vulkan_library() is not None else None
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    assert _offered(dialog.decoder_device) == ["auto", "cpu", *(d.name for d in here.devices)]
    assert [d.name for d in here.devices] == [d.name for d in listed or []]
    assert (here.missing is None) == bool(listed)
    assert not dialog.decoder_hint.isHidden() and dialog.decoder_hint.text()  # why only the CPU, or Automatic's pick
    if here.missing is not None:
        assert here.missing.text in dialog.decoder_hint.text() and "\n" not in dialog.decoder_hint.text()
    print(f"\nthis machine: {_offered(dialog.decoder_device)}; hint {dialog.decoder_hint.text()!r}")


def test_devices_by_name_and_a_saved_one_that_is_gone(qtbot, home: Path) -> None:
    from tingji.gui.devices import DecoderDevices
    from tingji.gui.settings_dialog import SettingsDialog

    devices = DecoderDevices((_gpu(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu"), _gpu(1, "AMD Radeon 780M")))
    dialog = SettingsDialog(Settings(), decoders=devices)
    qtbot.addWidget(dialog)
    assert _offered(dialog.decoder_device) == ["auto", "cpu", "llvmpipe (LLVM 15.0.6, 256 bits)", "AMD Radeon 780M"]
    assert "software" in dialog.decoder_device.itemText(2)  # a CPU-type device is never Automatic's pick
    assert dialog.decoder_hint.text() == "Automatic uses AMD Radeon 780M."
    dialog.decoder_device.setCurrentIndex(3)
    dialog.draft.setChecked(False)
    chosen = dialog.settings()
    assert (chosen.decoder_device, chosen.draft) == ("AMD Radeon 780M", False)
    again = SettingsDialog(chosen, decoders=devices)
    qtbot.addWidget(again)
    assert again.settings() == chosen and not again.draft.isChecked()

    gone = SettingsDialog(chosen, decoders=DecoderDevices(missing=engine_messages.GPU_NO_LOADER))
    qtbot.addWidget(gone)
    assert gone.decoder_device.currentData() == "AMD Radeon 780M" and "not found" in gone.decoder_device.currentText()
    assert not gone.decoder_hint.isHidden() and "no Vulkan driver is installed" in gone.decoder_hint.text()
    assert gone.settings() == chosen  # kept until the user picks another


def test_decoder_choice_names_a_device_by_its_place_in_the_drivers_list() -> None:
    from tingji.gui.engine_worker import decoder_choice

    devices = [_gpu(0, "Intel(R) Graphics", "integrated"), _gpu(1, "AMD Radeon RX 7600")]
    assert decoder_choice("auto", None) == (Choice("auto"), None)
    assert decoder_choice("cpu", devices) == (Choice("cpu"), None)
    assert decoder_choice("AMD Radeon RX 7600", devices) == (Choice("vulkan", 1), None)
    choice, report = decoder_choice("AMD Radeon RX 7600", devices[:1])
    assert choice == Choice("auto") and report is not None and report.code == "gui.unknown_decoder_device"
    assert decoder_choice("Intel(R) Graphics", None)[0] == Choice("auto")  # no driver at all


def test_the_saved_choices_reach_the_engine_thread(qtbot, home: Path, tmp_path: Path) -> None:
    """EngineHost -> ModelEngine -> EngineWorker.load: the decoder device is configured before the model loads (a
    change reloads it), and a file queued with Settings' options is decoded with or without drafting."""
    from tingji.gui.engine_host import EngineHost, EngineState
    from tingji.gui.engine_worker import Request

    # Utterances of several words (tests/cli/test_cli_draft.py's): a one-word window's draft is one token, too
    # short for a block to pay (draft.BLOCK_COST), so it is decoded plainly with drafting on as well.
    clips = [u.samples for u in speech.held_out_set(3, seed=4646)]
    gap = np.zeros(8000, np.float32)
    src = write_wav(tmp_path / "talk.wav", np.concatenate([part for c in clips for part in (c, gap)]))
    host = EngineHost(Settings(model=str(DEMO), decoder_device="cpu", draft=False))
    done: dict[int, object] = {}
    host.files_lane.finished.connect(lambda job, transcript, _s: done.__setitem__(job, transcript))
    host.files_lane.failed.connect(lambda job, error: pytest.fail(str(error)))
    try:
        host.reload()
        qtbot.waitUntil(lambda: host.state_of("files") is EngineState.READY, timeout=LOAD_TIMEOUT_MS)
        assert decoder_device.placement().choice == Choice("cpu")
        host.transcribe(Request(1, str(src), host.settings.files_options()))
        qtbot.waitUntil(lambda: 1 in done, timeout=LOAD_TIMEOUT_MS)

        # A device the driver does not list (this machine lists none of this name): Automatic, with one warning.
        host.apply_settings(replace(host.settings, decoder_device="AMD Radeon 780M", draft=True))
        qtbot.waitUntil(
            lambda: host.state_of("files") is EngineState.READY and host.engine_of("files").decoder_setting != "cpu",
            timeout=LOAD_TIMEOUT_MS,
        )
        assert decoder_device.placement().choice == Choice("auto")
        assert [w.code for w in host.loaded_of("files").warnings].count("gui.unknown_decoder_device") == 1
        host.transcribe(Request(2, str(src), host.settings.files_options()))
        qtbot.waitUntil(lambda: 2 in done, timeout=LOAD_TIMEOUT_MS)
    finally:
        host.shutdown()
        qtbot.waitUntil(lambda: host.stopped, timeout=LOAD_TIMEOUT_MS)
        decoder_device.configure("auto")
    plain, drafted = done[1], done[2]
    print(f"\nno draft: {plain.timings}\ndrafted: {drafted.timings}")
    assert plain.timings["draft_tokens"] == 0 and drafted.timings["draft_tokens"] > 0
    assert plain.text == drafted.text and plain.text.strip()


def test_only_a_software_renderer_leaves_automatic_on_the_cpu_and_says_so(qtbot, home: Path) -> None:
    from tingji.gui.devices import DecoderDevices
    from tingji.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings(), decoders=DecoderDevices((_gpu(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu"),)))
    qtbot.addWidget(dialog)
    hint = dialog.decoder_hint.text()
    assert hint.startswith("Automatic uses the CPU") and "llvmpipe (LLVM 15.0.6, 256 bits)" in hint
