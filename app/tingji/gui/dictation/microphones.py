"""The microphones the dictation page offers. Imports no Qt.

Each entry's value is what `capture.Microphone(device=...)` gets: the device
name plus its host API ("Microphone (USB), Windows WASAPI"). PortAudio lists
one microphone once per host API on Windows (MME, DirectSound, WASAPI), and
sounddevice refuses a bare name that matches several; the full string is the
one query it resolves exactly. The label drops the host API unless two
entries would otherwise look the same.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MicrophoneEntry:
    value: str  # the device query saved in the settings
    label: str  # what the combo box shows


def list_microphones() -> list[MicrophoneEntry]:
    """Input devices PortAudio knows now (empty when audio input is unavailable)."""
    try:
        import sounddevice as sd

        devices = [d for d in sd.query_devices() if d.get("max_input_channels", 0) > 0]
        apis = [a["name"] for a in sd.query_hostapis()]
    except Exception as exc:  # noqa: BLE001 - no PortAudio library, or a broken audio system
        log.info("no audio input devices: %s", exc)
        return []
    names = [str(d["name"]) for d in devices]
    entries: list[MicrophoneEntry] = []
    seen: set[str] = set()
    for device, name in zip(devices, names):
        api = apis[device["hostapi"]] if 0 <= device["hostapi"] < len(apis) else ""
        value = f"{name}, {api}" if api else name
        if value in seen:
            continue
        seen.add(value)
        label = f"{name} ({api})" if api and names.count(name) > 1 else name
        entries.append(MicrophoneEntry(value, label))
    return entries
