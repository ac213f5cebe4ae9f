"""What the operating system says about held keys: the truth the hotkey matcher resynchronises with.

The matcher (hotkey.py) keeps its own record of held modifiers from the key
events it sees. That record goes wrong when a release is never delivered:
Alt+Tab and Ctrl+Alt+Del on Windows, an elevated or keyboard-grabbing window
(a VM, a remote desktop) taking the focus, macOS Secure Input in a password
field. Then ctrl+alt stays "held", the microphone stays armed, and a plain
space toggles dictation. Two kinds of truth put it right:

* **Per event**: the modifiers held at the moment of each key event the
  listener delivers, so the very next key press anywhere corrects the record.
  X11 carries them in every key event (`state`, as the server saw it then);
  on Windows `GetAsyncKeyState`, asked inside the low-level hook (pynput's
  `win32_event_filter`), describes the keys before the current one. Asking
  *later*, from the callback, would race with keys already pressed since (a
  quick ctrl+alt+space whose releases are on their way), so neither source is
  asked outside the event it describes. macOS offers nothing per event here
  (pynput calls its intercept hook after the callbacks).
* **Now**: which keys are down at this moment (`XQueryKeymap`,
  `GetAsyncKeyState`, `CGEventSourceFlagsState`). The matcher only asks after
  a quiet spell without key events, when "now" cannot be ahead of an event
  still on its way, to let go of an armed state when no event comes at all.

`system_keys()` picks the platform's source; every method answers None for
"cannot tell", and the matcher then trusts its own record (and a timeout).
Names are hotkey.py's: "ctrl", "alt", "shift", "cmd", and trigger keys.
"""

from __future__ import annotations

import collections
import logging
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

_MODIFIERS = ("ctrl", "alt", "shift", "cmd")

# X keysym names of our key names (single characters are their own Latin-1 keysyms).
_X_KEYSYMS = {
    "ctrl": ("Control_L", "Control_R"),
    "alt": ("Alt_L", "Alt_R", "Meta_L", "Meta_R"),
    "shift": ("Shift_L", "Shift_R"),
    "cmd": ("Super_L", "Super_R"),
    "space": ("space",),
    "enter": ("Return",),
    "tab": ("Tab",),
    "esc": ("Escape",),
    "backspace": ("BackSpace",),
    "delete": ("Delete",),
    "insert": ("Insert",),
    "home": ("Home",),
    "end": ("End",),
    "page_up": ("Prior",),
    "page_down": ("Next",),
    "up": ("Up",),
    "down": ("Down",),
    "left": ("Left",),
    "right": ("Right",),
    "caps_lock": ("Caps_Lock",),
    "scroll_lock": ("Scroll_Lock",),
    "num_lock": ("Num_Lock",),
    "print_screen": ("Print",),
    "pause": ("Pause",),
    "menu": ("Menu",),
    **{f"f{i}": (f"F{i}",) for i in range(1, 25)},
}

# Windows virtual-key codes (single characters: VkKeyScanW).
_VK = {
    "ctrl": (0x11,),
    "alt": (0x12,),
    "shift": (0x10,),
    "cmd": (0x5B, 0x5C),
    "space": (0x20,),
    "enter": (0x0D,),
    "tab": (0x09,),
    "esc": (0x1B,),
    "backspace": (0x08,),
    "delete": (0x2E,),
    "insert": (0x2D,),
    "home": (0x24,),
    "end": (0x23,),
    "page_up": (0x21,),
    "page_down": (0x22,),
    "up": (0x26,),
    "down": (0x28,),
    "left": (0x25,),
    "right": (0x27,),
    "caps_lock": (0x14,),
    "scroll_lock": (0x91,),
    "num_lock": (0x90,),
    "print_screen": (0x2C,),
    "pause": (0x13,),
    "menu": (0x5D,),
    **{f"f{i}": (0x6F + i,) for i in range(1, 25)},
}

# macOS CGEventFlags of the modifiers.
_MAC_FLAGS = {"shift": 0x20000, "ctrl": 0x40000, "alt": 0x80000, "cmd": 0x100000}


class SystemKeys:
    """No source at all: the matcher's own record is all there is (and its timeout)."""

    def down(self, names: Iterable[str]) -> frozenset[str] | None:
        """Of `names`, those held now; None when the system cannot be asked."""
        return None

    def event_modifiers(self) -> frozenset[str] | None:
        """The modifiers held when the key event being handled happened (call once per callback,
        on the listener's thread); None when unknown."""
        return None

    def listener(self, keyboard: Any, on_press: Callable[[Any], None], on_release: Callable[[Any], None]) -> Any:
        """The pynput listener, made so that `event_modifiers()` can answer."""
        return keyboard.Listener(on_press=on_press, on_release=on_release)

    def close(self) -> None:
        pass


class X11Keys(SystemKeys):
    """X11: every key event's `state`; the keymap now from the server (own connection)."""

    def __init__(self) -> None:
        import Xlib.display
        import Xlib.X

        self._display = Xlib.display.Display()
        self._lock = threading.Lock()  # one connection, asked from the listener and the matcher's timer
        self._keycodes: dict[str, set[int]] = {}
        masks = {"ctrl": Xlib.X.ControlMask, "shift": Xlib.X.ShiftMask}
        # Which ModN is Alt and which Super differs between keyboard setups: read the mapping.
        for n, codes in enumerate(self._display.get_modifier_mapping()):
            for name in ("alt", "cmd"):
                if name not in masks and set(codes) & self._codes(name):
                    masks[name] = 1 << n
        self._masks = masks
        self._state = threading.local()

    def _codes(self, name: str) -> set[int]:
        if name not in self._keycodes:
            from Xlib import XK

            syms = [XK.string_to_keysym(s) for s in _X_KEYSYMS.get(name, ())]
            if not syms and len(name) == 1 and ord(name) < 0x100:
                syms = [ord(name)]
            codes = {code for sym in syms if sym for code, _ in self._display.keysym_to_keycodes(sym)}
            self._keycodes[name] = codes
        return self._keycodes[name]

    def down(self, names: Iterable[str]) -> frozenset[str] | None:
        try:
            with self._lock:
                keymap = self._display.query_keymap()
                held = set()
                for name in names:
                    codes = self._codes(name)
                    # A key we cannot map counts as held: never let go of what we cannot see.
                    if not codes or any(keymap[c // 8] >> (c % 8) & 1 for c in codes):
                        held.add(name)
            return frozenset(held)
        except Exception as exc:  # noqa: BLE001 - a lost X connection: no truth, not a crash
            log.warning("cannot read the keyboard state: %s", exc)
            return None

    def event_modifiers(self) -> frozenset[str] | None:
        state, self._state.value = getattr(self._state, "value", None), None
        if state is None:
            return None  # an event pynput made up itself (its own Controller's keys)
        return frozenset(name for name, mask in self._masks.items() if state & mask)

    def listener(self, keyboard: Any, on_press: Callable[[Any], None], on_release: Callable[[Any], None]) -> Any:
        base = keyboard.Listener
        if not hasattr(base, "_event_to_key"):  # pynput's X backend changed: no per-event truth
            log.warning("pynput's X listener has no _event_to_key; the hotkey resynchronises only when idle")
            return base(on_press=on_press, on_release=on_release)
        record = self._state

        class StateListener(base):  # type: ignore[misc, valid-type]
            # pynput converts each recorded X event here, right before calling on_press/on_release
            # on this same thread; the event's modifier state is kept for event_modifiers().
            def _event_to_key(self, display: Any, event: Any) -> Any:
                record.value = getattr(event, "state", None)
                return super()._event_to_key(display, event)

        return StateListener(on_press=on_press, on_release=on_release)

    def close(self) -> None:
        with self._lock:
            self._display.close()


class WindowsKeys(SystemKeys):
    """Windows: GetAsyncKeyState, inside the low-level hook for each event, and now."""

    def __init__(self) -> None:
        import ctypes

        self._user32 = ctypes.WinDLL("user32", use_last_error=True)
        # Bounded: should pynput ever skip a callback, old snapshots fall out instead of piling up.
        self._snapshots: collections.deque[frozenset[str] | None] = collections.deque(maxlen=64)

    def _vks(self, name: str) -> tuple[int, ...]:
        if name in _VK:
            return _VK[name]
        if len(name) == 1:
            vk = self._user32.VkKeyScanW(ord(name)) & 0xFF
            return () if vk == 0xFF else (vk,)
        return ()

    def _held(self, names: Iterable[str]) -> frozenset[str]:
        held = set()
        for name in names:
            vks = self._vks(name)
            if not vks or any(self._user32.GetAsyncKeyState(vk) & 0x8000 for vk in vks):
                held.add(name)
        return frozenset(held)

    def down(self, names: Iterable[str]) -> frozenset[str] | None:
        try:
            return self._held(names)
        except Exception as exc:  # noqa: BLE001
            log.warning("cannot read the keyboard state: %s", exc)
            return None

    def event_modifiers(self) -> frozenset[str] | None:
        # Filled in hook order by the filter below; pynput calls the callbacks in that order.
        return self._snapshots.popleft() if self._snapshots else None

    def listener(self, keyboard: Any, on_press: Callable[[Any], None], on_release: Callable[[Any], None]) -> Any:
        def event_filter(msg: int, data: Any) -> bool:
            # Inside the hook: the system has not yet applied this key, all earlier ones it has.
            try:
                self._snapshots.append(self._held(_MODIFIERS))
            except Exception:  # noqa: BLE001 - never slow or break the system's keyboard hook
                self._snapshots.append(None)
            return True

        return keyboard.Listener(on_press=on_press, on_release=on_release, win32_event_filter=event_filter)


class MacKeys(SystemKeys):
    """macOS: the modifier flags now (CGEventSourceFlagsState); nothing per event."""

    def __init__(self) -> None:
        import ctypes
        import ctypes.util

        self._cg = ctypes.CDLL(
            ctypes.util.find_library("CoreGraphics") or "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics"
        )
        self._cg.CGEventSourceFlagsState.restype = ctypes.c_uint64
        self._cg.CGEventSourceFlagsState.argtypes = [ctypes.c_int32]

    def down(self, names: Iterable[str]) -> frozenset[str] | None:
        try:
            flags = self._cg.CGEventSourceFlagsState(1)  # kCGEventSourceStateHIDSystemState
        except Exception as exc:  # noqa: BLE001
            log.warning("cannot read the keyboard state: %s", exc)
            return None
        # Trigger keys are not looked up: counted as held (never let go of what we cannot see).
        return frozenset(n for n in names if n not in _MAC_FLAGS or flags & _MAC_FLAGS[n])


def system_keys() -> SystemKeys:
    """The platform's source of truth; `SystemKeys()` (no truth) where none can be had."""
    try:
        if sys.platform == "win32":
            return WindowsKeys()
        if sys.platform == "darwin":
            return MacKeys()
        return X11Keys()
    except Exception as exc:  # noqa: BLE001 - no X display, no library: the hotkey still works
        log.warning("the keyboard state cannot be read (%s); a lost key release is noticed by timeout only", exc)
        return SystemKeys()
