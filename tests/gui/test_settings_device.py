"""Settings: DirectML's graphics adapter (Windows lists them through DXGI; here they are given)."""

from __future__ import annotations

from pathlib import Path

from tingji.gui.settings import Settings
from tingji.gui.settings_dialog import SettingsDialog


def test_adapter_choice_round_trip(qtbot, home: Path) -> None:
    dialog = SettingsDialog(Settings(), adapters=["NVIDIA GeForce RTX 4060", "Intel(R) UHD Graphics 770"])
    qtbot.addWidget(dialog)
    assert dialog.settings().device == ""  # Automatic: the high-performance GPU
    assert [dialog.device.itemData(i) for i in range(dialog.device.count())] == [
        "",
        "NVIDIA GeForce RTX 4060",
        "Intel(R) UHD Graphics 770",
    ]
    dialog.device.setCurrentIndex(2)
    chosen = dialog.settings()
    assert chosen.device == "Intel(R) UHD Graphics 770"
    assert SettingsDialog(chosen, adapters=["Intel(R) UHD Graphics 770"]).settings() == chosen
    dialog.provider.setCurrentIndex(dialog.provider.findData("cpu"))
    assert not dialog.device.isEnabled()  # only DirectML takes an adapter


def test_a_saved_adapter_that_is_gone_is_kept_and_marked(qtbot, home: Path) -> None:
    dialog = SettingsDialog(Settings(device="Radeon RX 7600"), adapters=[])
    qtbot.addWidget(dialog)
    assert dialog.device.currentData() == "Radeon RX 7600"
    assert "not found" in dialog.device.currentText()
    assert dialog.settings().device == "Radeon RX 7600"
    assert Settings(device="x" * 200).normalised().device == ""
