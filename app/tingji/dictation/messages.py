"""What dictation says when something goes wrong: one constant per message (see tingji/errors.py).

`reason` fields carry what the system said (PortAudio, X11, the clipboard),
shown as it is inside the translated sentence.
"""

from __future__ import annotations

from ..errors import Message

# -- the microphone (devices.py, capture.py) ----------------------------------------------------------
INPUT_UNAVAILABLE = Message("microphone.input_unavailable", "audio input unavailable: {reason}")
# PortAudio (or what it links) missing: which library, and the package that installs it (tingji.system_libraries).
INPUT_LIBRARY_MISSING = Message(
    "microphone.library_missing", "audio needs {library}, which is missing or broken (package {package})"
)
NO_MICROPHONE = Message("microphone.none", "no microphone found (no default input device)")
MICROPHONE_NOT_FOUND = Message("microphone.not_found", "microphone {device!r} not found ({reason})")
NOT_AN_INPUT = Message("microphone.not_an_input", "{name}: not an input device")
CANNOT_OPEN = Message("microphone.cannot_open", "cannot open microphone {name!r}: {reason}")
CANNOT_PLAY = Message("microphone.cannot_play", "cannot play {path}: {reason}")
DISCONNECTED = Message("microphone.disconnected", "microphone disconnected or stopped working")
STOPPED_DELIVERING = Message("microphone.stopped_delivering", "microphone stopped delivering audio")
DELIVERS_NOTHING = Message("microphone.delivers_nothing", "microphone delivers no audio")

# -- the hotkey (hotkey.py, global_hotkey.py) ------------------------------------------------------------
HOTKEY_EMPTY = Message("hotkey.empty", "hotkey is empty")
HOTKEY_EMPTY_PART = Message("hotkey.empty_part", "hotkey {hotkey!r}: empty part (write the plus key as 'plus')")
HOTKEY_UNKNOWN_KEY = Message("hotkey.unknown_key", "hotkey {hotkey!r}: unknown key {key!r}")
HOTKEY_ONLY_MODIFIERS = Message("hotkey.only_modifiers", "hotkey {hotkey!r}: needs a key besides the modifiers")
HOTKEY_TWO_KEYS = Message("hotkey.two_keys", "hotkey {hotkey!r}: exactly one non-modifier key is allowed")
HOTKEY_BARE_CHARACTER = Message(
    "hotkey.bare_character", "hotkey {hotkey!r}: a single character needs a modifier (e.g. ctrl+alt+{key})"
)
# Why the global hotkey cannot work on this desktop: UNAVAILABLE's `reason` is one of the
# three below, or what the keyboard library said.
HOTKEY_UNAVAILABLE = Message("hotkey.unavailable", "global hotkey unavailable: {reason}")
NO_X_DISPLAY = Message("hotkey.no_x_display", "no X display (failed to acquire X connection)")
NO_RECORD_EXTENSION = Message(
    "hotkey.no_record_extension", "the keyboard listener did not start (X11 needs the RECORD extension)"
)
NEEDS_ACCESSIBILITY = Message(
    "hotkey.needs_accessibility", "allow Tingji under System Settings > Privacy & Security > Accessibility"
)

# -- putting the text into the focused application (output.py, tingji.gui.qt_clipboard) --------------------
CANNOT_SEND_KEYS = Message("insert.cannot_send_keys", "cannot send keys to other applications: {reason}")
TYPING_FAILED = Message("insert.typing_failed", "typing the text failed: {reason}")
CLIPBOARD_FAILED = Message("insert.clipboard_failed", "cannot use the clipboard: {reason}")
CLIPBOARD_STOPPING = Message("insert.clipboard_stopping", "cannot use the clipboard: Tingji is stopping dictation")
CLIPBOARD_TIMEOUT = Message("insert.clipboard_timeout", "the clipboard did not respond (is the app's window busy?)")
NOT_INSERTED = Message("insert.not_inserted", "{problem} (the text is in the dictation history)")

# -- settings (settings.py) ----------------------------------------------------------------------------------
BAD_MODE = Message("dictation.bad_mode", "dictation mode must be one of {choices}, not {value}")
BAD_OUTPUT = Message("dictation.bad_output", "dictation output must be one of {choices}, not {value}")
BAD_DURATION = Message("dictation.bad_duration", "dictation setting {name} must be a number of seconds, not {value}")
SILENCE_TOO_SHORT = Message(
    "dictation.silence_too_short", "dictation silence must be at least 0.2 s (the VAD decides every 32 ms)"
)
BAD_VAD_THRESHOLD = Message(
    "dictation.bad_vad_threshold", "dictation vad_threshold must be between 0 and 1, not {value}"
)
BAD_OVERLAY = Message("dictation.bad_overlay", "dictation overlay must be one of {choices}, not {value}")
BAD_KEEP_RECORDINGS = Message(
    "dictation.bad_keep_recordings", "dictation keep_recordings must be a count (0 or more) or null for all"
)

# -- the controller and the history (controller.py, recovery.py) --------------------------------------------
COMMAND_FAILED = Message("dictation.command_failed", "dictation: {reason}")
TAKE_FAILED = Message("dictation.take_failed", "dictation failed: {reason}")
RECOVERED = Message("dictation.recovered", "recovered after the app stopped; not inserted")
