"""What the desktop app itself says when something goes wrong (see tingji/errors.py). No Qt here."""

from __future__ import annotations

from ..errors import Message, WarningMessage

NO_MODEL = Message("gui.no_model", "no model loaded")
UNKNOWN_TASK = Message("gui.unknown_task", "internal: unknown task {task!r}")
# Anything that is not a TingjiError is a bug (or a runtime that choked): said as Python says it.
INTERNAL = Message("gui.internal", "internal error ({kind}: {detail}); please report this")
# The disk or the system refused (full, read-only, permissions) outside the model manager's own
# checks: what the system said, and the file it was about.
SYSTEM_REFUSED = Message("gui.system_refused", "{reason}: {file}")
SYSTEM_REFUSED_NO_FILE = Message("gui.system_refused_no_file", "{reason}")
# Settings' decoder device (settings_dialog, engine_worker): why only the CPU is offered, and a saved device gone.
NO_VULKAN_DEVICES = Message("gui.no_vulkan_devices", "the Vulkan driver lists no graphics adapter")
UNKNOWN_DECODER_DEVICE = WarningMessage(
    "gui.unknown_decoder_device",
    "the decoder's graphics adapter {device!r} is not listed by the Vulkan driver; it runs where Automatic puts it",
)
# A system library a feature loads at first use is missing (tingji.system_libraries): the feature
# says which, and which package installs it; the window opens regardless.
PLAYBACK_LIBRARY_MISSING = Message(
    "gui.playback_library_missing", "playback needs {library}, which is missing or broken (package {package})"
)
PLAYBACK_UNAVAILABLE = Message("gui.playback_unavailable", "Qt Multimedia cannot play here: {reason}")
# Before the window: Qt's platform plugin would abort the process (printed on the terminal).
PLATFORM_LIBRARY_MISSING = Message(
    "gui.platform_library_missing",
    "the window cannot open: Qt's {platform} platform plugin needs {library}, which is missing or broken"
    " (package {package})",
)
PLATFORM_NO_DISPLAY = Message(
    "gui.platform_no_display",
    "the window cannot open: Qt's {platform} platform plugin has no display ({variable} is not set)",
)
PLATFORM_PLUGIN_FAILED = Message(
    "gui.platform_plugin_failed", "the window cannot open: Qt's {platform} platform plugin does not load ({reason})"
)
