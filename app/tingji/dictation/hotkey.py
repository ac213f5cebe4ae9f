"""The dictation hotkey: parsing and exact-combination matching (no keyboard needed).

Three layers, so that the logic can be tested without a keyboard (the third
is global_hotkey.py):

* `parse_hotkey("ctrl+alt+space")` -> `Hotkey(modifiers={"ctrl", "alt"}, key="space")`.
* `HotkeyMatcher` is fed normalised key names ("ctrl", "space", "a") and
  decides. It fires only on the *exact* combination: pressing the trigger key
  while an extra modifier is held (ctrl+shift+alt+space for ctrl+alt+space)
  does nothing, so the hotkey never steals a neighbouring shortcut. While the
  required modifiers alone are held it reports "armed", which the controller
  uses to open the microphone early when it is not kept open (see capture.py).
  The combination ends when the trigger key *or* one of its modifiers is
  released: people let go of the keys in any order, and xdotool (used in the
  tests) releases the modifiers first.
  Its record of held modifiers is only as good as the events it gets, and a
  release can be lost (Alt+Tab, Ctrl+Alt+Del, the focus moving to a window
  that keeps the keyboard to itself). So it resynchronises with the system's
  own key state (keystate.py): each event may carry the modifiers really held
  then, which corrects the record before the event counts; and while a
  modifier is held, a watchdog asks which keys are down after every quiet
  spell without events, which ends an armed state (and a held take) that no
  event would ever end. With no way to ask, an armed modifier that has seen no
  event for `Resync.stale_s` is let go.
* `global_hotkey.GlobalHotkey` runs pynput's listener and feeds the matcher.

Callbacks run on the listener's thread (or the watchdog's timer). On Windows
a low-level hook that does not return quickly makes the whole keyboard lag
and gets the hook removed, so callbacks must only hand the event over (the
controller queues it) and never do real work.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import TingjiError
from . import messages

log = logging.getLogger(__name__)

MODIFIERS = ("ctrl", "alt", "shift", "cmd")
_MODIFIER_ALIASES = {
    "ctrl": "ctrl",
    "control": "ctrl",
    "ctl": "ctrl",
    "strg": "ctrl",
    "alt": "alt",
    "option": "alt",
    "opt": "alt",
    "shift": "shift",
    "cmd": "cmd",
    "command": "cmd",
    "win": "cmd",
    "windows": "cmd",
    "super": "cmd",
    "meta": "cmd",
}
_KEY_ALIASES = {
    " ": "space",
    "spacebar": "space",
    "return": "enter",
    "escape": "esc",
    "del": "delete",
    "ins": "insert",
    "pgup": "page_up",
    "pageup": "page_up",
    "pgdn": "page_down",
    "pagedown": "page_down",
    "capslock": "caps_lock",
    "scrolllock": "scroll_lock",
    "numlock": "num_lock",
    "printscreen": "print_screen",
    "prtsc": "print_screen",
    "break": "pause",
    "plus": "+",
    "minus": "-",
}
_NAMED_KEYS = {
    "space",
    "enter",
    "tab",
    "esc",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "page_up",
    "page_down",
    "up",
    "down",
    "left",
    "right",
    "caps_lock",
    "scroll_lock",
    "num_lock",
    "print_screen",
    "pause",
    "menu",
    *(f"f{i}" for i in range(1, 25)),
}


class HotkeyError(TingjiError):
    """A hotkey string that cannot be used (the message says why)."""


@dataclass(frozen=True)
class Hotkey:
    """A trigger key plus the exact set of modifiers that must be held with it."""

    modifiers: frozenset[str]
    key: str

    def __str__(self) -> str:
        mods = [m for m in MODIFIERS if m in self.modifiers]
        return "+".join([*mods, "plus" if self.key == "+" else self.key])


def parse_hotkey(text: str) -> Hotkey:
    """Parse "ctrl+alt+space" style strings (case-insensitive, aliases allowed)."""
    if not text or not str(text).strip():
        raise HotkeyError(messages.HOTKEY_EMPTY)
    parts = [p.strip().lower() for p in str(text).split("+")]
    if any(not p for p in parts):
        raise HotkeyError(messages.HOTKEY_EMPTY_PART, hotkey=text)
    mods: set[str] = set()
    keys: list[str] = []
    for p in parts:
        if p in _MODIFIER_ALIASES:
            mods.add(_MODIFIER_ALIASES[p])
            continue
        p = _KEY_ALIASES.get(p, p)
        if p in _NAMED_KEYS or len(p) == 1:
            keys.append(p)
        else:
            raise HotkeyError(messages.HOTKEY_UNKNOWN_KEY, hotkey=text, key=p)
    if len(keys) != 1:
        if not keys and len(mods) >= 1:
            raise HotkeyError(messages.HOTKEY_ONLY_MODIFIERS, hotkey=text)
        raise HotkeyError(messages.HOTKEY_TWO_KEYS, hotkey=text)
    key = keys[0]
    if not mods and len(key) == 1:
        # A bare letter would fire on every word the user types anywhere.
        raise HotkeyError(messages.HOTKEY_BARE_CHARACTER, hotkey=text, key=key)
    return Hotkey(frozenset(mods), key)


@dataclass(frozen=True)
class Resync:
    """When the matcher stops trusting its own record of held keys (see the module docstring)."""

    check_every_s: float = 1.0  # while a modifier is held, look this often (0: only when check() is called)
    quiet_s: float = 1.0  # ask the system only after this long without key events
    stale_s: float = 5.0  # no system to ask: an armed modifier without events for this long is let go


class HotkeyMatcher:
    """Turns a stream of key presses/releases into activate/deactivate calls.

    `release_grace_s` swallows keyboard auto-repeat: on X11 a held key repeats
    as release+press pairs, which would otherwise end hold-to-talk after half
    a second. A release only counts if no press of the same key follows within
    the grace period. 0 makes everything synchronous (unit tests).

    `held` on press/release is the modifiers the system says were held when
    that event happened (None: unknown); `keys_down(names)` says which keys are
    down now (None: cannot tell). Both only ever make the matcher let go of a
    key it thinks is held, never invent one: a lost press costs a retry, a
    stuck key an open microphone.
    """

    def __init__(
        self,
        hotkey: Hotkey,
        *,
        on_activate: Callable[[], None] = lambda: None,
        on_deactivate: Callable[[], None] = lambda: None,
        on_arm: Callable[[bool], None] = lambda armed: None,
        release_grace_s: float = 0.0,
        keys_down: Callable[[frozenset[str]], frozenset[str] | None] = lambda names: None,
        resync: Resync = Resync(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.hotkey = hotkey
        self.on_activate = on_activate
        self.on_deactivate = on_deactivate
        self.on_arm = on_arm
        self.release_grace_s = release_grace_s
        self.keys_down = keys_down
        self.resync = resync
        self.clock = clock
        self.held_modifiers: set[str] = set()
        self.active = False
        self.armed = False
        self._lock = threading.RLock()
        self._pending: threading.Timer | None = None
        self._pending_key: str | None = None
        self._released = threading.Condition(self._lock)
        self._watchdog: threading.Timer | None = None
        self._last_event = self._last_modifier_event = clock()

    def press(self, name: str, held: Iterable[str] | None = None) -> None:
        with self._lock:
            fire = self._seen(name, held)
            if name in MODIFIERS:
                self.held_modifiers.add(name)
            if self._pending is not None and name == self._pending_key:
                self._cancel_pending()  # auto-repeat: the key never really went up
            elif self.active:
                pass  # auto-repeat of the trigger, or other keys while talking
            elif name == self.hotkey.key and self.held_modifiers == set(self.hotkey.modifiers):
                self.active = True
                fire.append(self.on_activate)
            self._update_armed()
            self._watch()
        for f in fire:
            f()

    def release(self, name: str, held: Iterable[str] | None = None) -> None:
        with self._lock:
            fire = self._seen(name, held)
            ends = self.active and (name == self.hotkey.key or name in self.hotkey.modifiers)
            if ends and self.release_grace_s > 0 and name == self.hotkey.key:
                self._cancel_pending()
                self._pending_key = name
                self._pending = threading.Timer(self.release_grace_s, self._finish_release, (name,))
                self._pending.daemon = True
                self._pending.start()
            else:
                self._apply_release(name)
                if ends:
                    self.active = False
                    fire.append(self.on_deactivate)
                self._update_armed()
        for f in fire:
            f()

    def check(self) -> None:
        """Compare the record with the keys down now, after a quiet spell (the watchdog runs this).

        Asked sooner, "now" could be ahead of events still on their way: a quick
        ctrl+alt+space is often released before its space press is delivered.
        """
        fire: list[Callable[[], None]] = []
        with self._lock:
            now = self.clock()
            if not (self.held_modifiers or self.active) or now - self._last_event < self.resync.quiet_s:
                return
            combination = set(self.hotkey.modifiers) | {self.hotkey.key}
            down = self.keys_down(frozenset(self.held_modifiers | (combination if self.active else set())))
            if down is not None:
                fire += self._forget(self.held_modifiers - down, "it is not held now")
                if self.active and not combination <= down:
                    fire += self._end_combination()
            elif not self.active and now - self._last_modifier_event >= self.resync.stale_s:
                # Nothing to ask: a held take is left to max_take_s, an armed microphone is not.
                fire += self._forget(set(self.held_modifiers), f"no key event for {self.resync.stale_s:g} s")
            self._update_armed()
        for f in fire:
            f()

    def _seen(self, name: str, held: Iterable[str] | None) -> list[Callable[[], None]]:
        """Note a key event; with the system's `held`, forget modifiers released unseen before it."""
        self._last_event = self.clock()
        if name in MODIFIERS:
            self._last_modifier_event = self._last_event
        if held is None:
            return []
        return self._forget(self.held_modifiers - set(held) - {name}, f"not held at the {name} event")

    def _forget(self, stuck: set[str], why: str) -> list[Callable[[], None]]:
        """Drop modifiers whose release was never delivered; ends the combination if it needed them."""
        if not stuck:
            return []
        log.info("hotkey: letting go of %s (%s; its release was lost)", "+".join(sorted(stuck)), why)
        self.held_modifiers -= stuck
        self._released.notify_all()
        return self._end_combination() if self.active and stuck & self.hotkey.modifiers else []

    def _end_combination(self) -> list[Callable[[], None]]:
        self._cancel_pending()
        self.active = False
        return [self.on_deactivate]

    def _watch(self) -> None:
        """Keep one watchdog timer running while anything is held: a lost release sends no event."""
        if self._watchdog is None and self.resync.check_every_s > 0 and (self.held_modifiers or self.active):
            self._watchdog = threading.Timer(self.resync.check_every_s, self._tick)
            self._watchdog.daemon = True
            self._watchdog.start()

    def _tick(self) -> None:
        try:
            self.check()
        except Exception:  # noqa: BLE001 - a broken system query must not stop the watchdog
            log.exception("hotkey: checking the held keys")
        with self._lock:
            self._watchdog = None
            self._watch()

    def _finish_release(self, name: str) -> None:
        with self._lock:
            if self._pending_key != name:
                return
            self._pending = None
            self._pending_key = None
            fire = self.active
            self.active = False
            self._update_armed()
        if fire:
            self.on_deactivate()

    def _cancel_pending(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
        self._pending = None
        self._pending_key = None

    def _apply_release(self, name: str) -> None:
        self.held_modifiers.discard(name)
        self._released.notify_all()

    def _update_armed(self) -> None:
        armed = bool(self.hotkey.modifiers) and self.held_modifiers == set(self.hotkey.modifiers)
        if armed != self.armed:
            self.armed = armed
            self.on_arm(armed)

    def reset(self) -> None:
        """Forget all held keys (after the listener restarts, a missed release cannot stick)."""
        with self._lock:
            self._cancel_pending()
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None
            self.held_modifiers.clear()
            self.active = False
            self._update_armed()
            self._released.notify_all()

    def wait_modifiers_released(self, timeout: float) -> bool:
        """Block until no modifier is held (so a pasted Ctrl+V is not Ctrl+Alt+V)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self.held_modifiers:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._released.wait(left)
        return True
