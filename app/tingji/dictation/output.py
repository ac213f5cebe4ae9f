"""Putting dictated text into whatever application has the keyboard focus.

Paste mode (default): put the text on the clipboard, send Ctrl+V (Cmd+V on
macOS), then give the user's previous clipboard content back. This is the
only method that inserts any Unicode text (Chinese, emoji) quickly and in one
undo step into nearly every application. The restore waits `restore_delay_s`
because many applications fetch the clipboard lazily, after the key event has
been processed (Electron apps and remote-desktop clients are slow); restoring
too early would paste the *old* content. The old content is only put back if
the clipboard still holds our text, so something the user copied meanwhile is
never overwritten.

Type mode: synthesise the characters one by one. Slower and some apps drop
characters, but it leaves the clipboard alone and works where paste is
blocked (terminals without Ctrl+V, some password-manager-guarded fields).

The clipboard is an injected `Clipboard` because the real one belongs to the
GUI toolkit (Qt's QClipboard must be used from the GUI thread; see
tingji.gui.dictation.qt_clipboard.QtClipboard). Key events come from pynput's
keyboard Controller (SendInput on Windows, XTEST on X11, Quartz on macOS),
imported lazily for the same no-display reason as the hotkey.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..errors import TingjiError, first_line
from . import messages

log = logging.getLogger(__name__)

OUTPUT_MODES = ("paste", "type")


class OutputError(TingjiError):
    """The text could not be inserted (it is still in the dictation history)."""


class Clipboard(Protocol):
    """What TextOutput needs from a clipboard. Methods may be called from any thread."""

    def save(self) -> object:
        """An opaque snapshot of the whole current content (all formats), for restore()."""

    def restore(self, snapshot: object) -> None:
        """Put a snapshot back."""

    def set_text(self, text: str) -> None: ...

    def text(self) -> str: ...


class KeySender(Protocol):
    def paste(self) -> None:
        """Send the platform's paste shortcut to the focused window."""

    def type_text(self, text: str) -> None: ...


class PynputKeys:
    """Key events through pynput's Controller (created on first use)."""

    def __init__(self) -> None:
        self._controller: Any = None
        self._keys: Any = None

    def _get(self) -> tuple[Any, Any]:
        if self._controller is None:
            try:
                from pynput import keyboard
            except Exception as exc:  # noqa: BLE001 - ImportError without X display, and friends
                raise OutputError(messages.CANNOT_SEND_KEYS, reason=_reason(exc)) from None
            self._controller, self._keys = keyboard.Controller(), keyboard.Key
        return self._controller, self._keys

    def paste(self) -> None:
        ctl, key = self._get()
        mod = key.cmd if sys.platform == "darwin" else key.ctrl
        v = self._v_key()
        with ctl.pressed(mod):
            ctl.press(v)
            ctl.release(v)

    @staticmethod
    def _v_key() -> Any:
        """The V key by its physical code where we can: with a Russian or Greek layout
        the character "v" is not on the keyboard, and a synthesised Unicode "v" with
        Ctrl held is not a paste."""
        from pynput.keyboard import KeyCode

        if sys.platform == "win32":
            return KeyCode.from_vk(0x56)  # VK_V
        if sys.platform == "darwin":
            return KeyCode.from_vk(9)  # kVK_ANSI_V
        return "v"  # X11: pynput finds the keycode of the keysym "v" (remapping if needed)

    def type_text(self, text: str) -> None:
        ctl, _ = self._get()
        try:
            ctl.type(text)
        except Exception as exc:  # noqa: BLE001 - pynput raises InvalidCharacterException etc.
            raise OutputError(messages.TYPING_FAILED, reason=_reason(exc)) from None


class TextOutput:
    """Inserts text by paste (restoring the clipboard) or by typing."""

    def __init__(
        self,
        clipboard: Clipboard | None = None,
        keys: KeySender | None = None,
        *,
        mode: str = "paste",
        restore_delay_s: float = 0.5,
        settle_s: float = 0.05,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if mode not in OUTPUT_MODES:
            raise ValueError(f"output mode must be one of {OUTPUT_MODES}, not {mode!r}")
        self.clipboard = clipboard
        self.keys = keys if keys is not None else PynputKeys()
        self.mode = mode
        self.restore_delay_s = restore_delay_s
        self.settle_s = settle_s
        self._sleep = sleep
        self._lock = threading.Lock()  # one insertion at a time: restores must not interleave
        self.last_sent: float | None = None  # time.monotonic() when the last text was sent to the app

    def insert(self, text: str) -> str:
        """Insert `text` into the focused application; returns the method used.

        Paste without a clipboard falls back to typing, so dictation still
        works without a GUI toolkit.
        """
        if not text:
            return "none"
        with self._lock:
            if self.mode == "type" or self.clipboard is None:
                self.keys.type_text(text)
                self.last_sent = time.monotonic()
                return "type"
            self._paste(text)
            return "paste"

    def _paste(self, text: str) -> None:
        clip = self.clipboard
        assert clip is not None
        try:
            saved = clip.save()
        except Exception as exc:  # noqa: BLE001
            log.warning("could not read the clipboard (%s); it will not be restored", exc)
            saved = None
        try:
            clip.set_text(text)
        except Exception as exc:  # noqa: BLE001
            raise OutputError(messages.CLIPBOARD_FAILED, reason=_reason(exc)) from None
        # Let the clipboard ownership change reach the system before the target asks for it.
        self._sleep(self.settle_s)
        try:
            self.keys.paste()
            self.last_sent = time.monotonic()
        finally:
            self._sleep(self.restore_delay_s)
            if saved is not None:
                try:
                    if clip.text() == text:
                        clip.restore(saved)
                    else:
                        log.info("clipboard changed during paste; not restoring")
                except Exception as exc:  # noqa: BLE001
                    log.warning("could not restore the clipboard: %s", exc)


def _reason(exc: BaseException) -> TingjiError | str:
    """The library's reason; pynput's X failure becomes our own (translated) message."""
    msg = first_line(exc)
    return TingjiError(messages.NO_X_DISPLAY) if "failed to acquire X connection" in msg else msg
