"""The system-wide hotkey listener: pynput's keyboard hook feeding hotkey.HotkeyMatcher.

pynput gives a low-level keyboard hook on Windows (no admin rights needed),
XRecord on X11 and a Quartz event tap on macOS. It is imported lazily because
on Linux it raises at import time when there is no X display; that becomes
the one-line `GlobalHotkey.unavailable` message instead of a crash. The
listener is made by keystate.py, so that each event comes with the modifiers
the system says were held then.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

from ..errors import first_line
from . import messages
from .hotkey import MODIFIERS, Hotkey, HotkeyError, HotkeyMatcher, Resync, parse_hotkey
from .keystate import SystemKeys, system_keys

log = logging.getLogger(__name__)


def key_name(key: Any) -> str | None:
    """A pynput key (Key member or KeyCode) as our normalised name, or None."""
    name = getattr(key, "name", None)
    if name is not None and not hasattr(key, "char"):  # a pynput.keyboard.Key member
        for suffix in ("_l", "_r", "_gr"):
            if name.endswith(suffix) and name[: -len(suffix)] in MODIFIERS:
                return name[: -len(suffix)] if suffix != "_gr" else "alt_gr"
        return name
    char = getattr(key, "char", None)
    vk = getattr(key, "vk", None)
    if char and char.isprintable():
        return "space" if char == " " else char.lower()
    if vk is not None:
        # Windows: with Ctrl held `char` is a control character; the virtual
        # key code of letters/digits is their upper-case ASCII code.
        if sys.platform == "win32":
            if 0x41 <= vk <= 0x5A or 0x30 <= vk <= 0x39:
                return chr(vk).lower()
            if 0x70 <= vk <= 0x87:
                return f"f{vk - 0x6F}"
        elif 0x20 < vk < 0x7F:  # X11 keysyms of ASCII are the characters themselves
            return chr(vk).lower()
        return f"vk{vk}"
    return None


class GlobalHotkey:
    """The system-wide listener. `start()` never raises: check `unavailable`."""

    def __init__(
        self,
        hotkey: Hotkey | str,
        *,
        on_activate: Callable[[], None] = lambda: None,
        on_deactivate: Callable[[], None] = lambda: None,
        on_arm: Callable[[bool], None] = lambda armed: None,
        release_grace_s: float = 0.05,
        resync: Resync = Resync(),
    ) -> None:
        hk = parse_hotkey(hotkey) if isinstance(hotkey, str) else hotkey
        self.keys = SystemKeys()  # the platform's key state once started
        self.matcher = HotkeyMatcher(
            hk,
            on_activate=on_activate,
            on_deactivate=on_deactivate,
            on_arm=on_arm,
            release_grace_s=release_grace_s,
            keys_down=lambda names: self.keys.down(names),
            resync=resync,
        )
        self.unavailable: HotkeyError | None = None
        self._listener: Any = None

    @property
    def hotkey(self) -> Hotkey:
        return self.matcher.hotkey

    def start(self) -> bool:
        """Start listening; False (and `unavailable` set) when this desktop offers no global hook."""
        if self._listener is not None:
            return True
        try:
            from pynput import keyboard  # raises ImportError without an X display
        except Exception as exc:  # noqa: BLE001 - any import failure means "no hotkey"
            self.unavailable = HotkeyError(messages.HOTKEY_UNAVAILABLE, reason=_reason(exc))
            log.warning("%s", self.unavailable)
            return False
        try:
            self.keys = system_keys()
            listener = self.keys.listener(keyboard, self._on_press, self._on_release)
            listener.daemon = True
            listener.start()
            # Not listener.wait(): it blocks forever when the backend fails
            # before it is ready (an X server without the RECORD extension).
            deadline = time.monotonic() + 5.0
            while not getattr(listener, "_ready", True) and listener.is_alive() and time.monotonic() < deadline:
                time.sleep(0.01)
            if not listener.is_alive() or not getattr(listener, "_ready", True):
                # No stop(): pynput's X backend waits for readiness there too. The
                # thread is a daemon and has died (or will never deliver events).
                raise HotkeyError(messages.NO_RECORD_EXTENSION)
            if sys.platform == "darwin" and not getattr(listener, "IS_TRUSTED", True):
                listener.stop()
                raise HotkeyError(messages.NEEDS_ACCESSIBILITY)
        except Exception as exc:  # noqa: BLE001
            self.unavailable = HotkeyError(messages.HOTKEY_UNAVAILABLE, reason=_reason(exc))
            log.warning("%s", self.unavailable)
            self._close_keys()
            return False
        self._listener = listener
        self.unavailable = None
        return True

    def stop(self) -> None:
        if self._listener is not None:
            self._listener.stop()
            self._listener = None
        self.matcher.reset()
        self._close_keys()

    def _close_keys(self) -> None:
        keys, self.keys = self.keys, SystemKeys()
        try:
            keys.close()
        except Exception:  # noqa: BLE001 - an X connection that is already gone
            log.debug("closing the keyboard state", exc_info=True)

    def _on_press(self, key: Any) -> None:
        held = self.keys.event_modifiers()  # asked for every event: Windows pairs them in order
        name = key_name(key)
        if name:
            self.matcher.press(name, held)

    def _on_release(self, key: Any) -> None:
        held = self.keys.event_modifiers()
        name = key_name(key)
        if name:
            self.matcher.release(name, held)


def _reason(exc: BaseException) -> HotkeyError | str:
    """Why the hook failed: one of ours, or the first line of what the library said."""
    if isinstance(exc, HotkeyError):
        return exc
    msg = first_line(exc)
    # pynput's X message is a tuple repr; keep the human part.
    if "failed to acquire X connection" in msg:
        return HotkeyError(messages.NO_X_DISPLAY)
    return msg
