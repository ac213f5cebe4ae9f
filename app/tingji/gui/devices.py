"""What this PC offers the Settings dialog's device choices: its graphics adapters and Vulkan devices.

Kept apart from the dialog so the offer can be read (and given to the dialog in tests) without
building widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import adapters as dxgi
from ..engine import decoder_device as vulkan
from ..engine import messages as engine_messages
from ..errors import Message
from . import messages


def graphics_adapters() -> list[str]:
    """The names of this PC's graphics adapters, high-performance first ([] where DirectX is not)."""
    try:
        return [a.name for a in dxgi.list_adapters()]
    except dxgi.AdaptersUnavailable:
        return []


@dataclass(frozen=True)
class DecoderDevices:
    """What the decoder-device choice offers besides Automatic and the CPU.

    Args:
        devices: The Vulkan devices the driver lists, in its order.
        missing: Why there are none to choose (no Vulkan build, no driver, no adapter); None when there are.
    """

    devices: tuple[vulkan.VulkanDevice, ...] = ()
    missing: Message | None = None


def decoder_devices() -> DecoderDevices:
    """The Vulkan devices the decoder could run on here, or why there are none."""
    if vulkan.vulkan_library() is None:
        return DecoderDevices(missing=engine_messages.GPU_NO_BUILD)
    found = vulkan.list_vulkan_devices()
    if found is None:
        return DecoderDevices(missing=engine_messages.GPU_NO_LOADER)
    return DecoderDevices(tuple(found), None if found else messages.NO_VULKAN_DEVICES)
