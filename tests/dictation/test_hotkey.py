"""Dictation hotkey: parsing, exact-combination matching, the real listener under Xvfb."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from tests.support.paths import APP
from tingji.dictation.global_hotkey import key_name
from tingji.dictation.hotkey import MODIFIERS, Hotkey, HotkeyError, HotkeyMatcher, Resync, parse_hotkey

# xdist: one worker runs the users of the virtual microphone and displays (tests/support/schedule.py)
pytestmark = [pytest.mark.dictation, pytest.mark.xdist_group("desktop")]


def _with_app(env: dict[str, str]) -> dict[str, str]:
    """Child processes run this checkout's code, not whatever tingji is installed."""
    return env | {"PYTHONPATH": os.pathsep.join([str(APP), env.get("PYTHONPATH", "")])}


def test_dictation_parse_hotkey() -> None:
    assert parse_hotkey("ctrl+alt+space") == Hotkey(frozenset({"ctrl", "alt"}), "space")
    assert parse_hotkey(" Control + Option + D ") == Hotkey(frozenset({"ctrl", "alt"}), "d")
    assert parse_hotkey("win+shift+F9") == Hotkey(frozenset({"cmd", "shift"}), "f9")
    assert parse_hotkey("f8") == Hotkey(frozenset(), "f8")
    assert parse_hotkey("ctrl+plus").key == "+"
    assert str(parse_hotkey("alt+ctrl+space")) == "ctrl+alt+space"
    assert parse_hotkey(str(parse_hotkey("ctrl+plus"))) == parse_hotkey("ctrl+plus")
    for bad, why in (
        ("", "empty"),
        ("ctrl+alt", "needs a key"),
        ("ctrl+a+b", "exactly one"),
        ("ctrl+banana", "unknown key"),
        ("a", "needs a modifier"),
        ("ctrl++", "empty part"),
    ):
        with pytest.raises(HotkeyError, match=why):
            parse_hotkey(bad)


def _matcher(spec: str = "ctrl+alt+space", grace: float = 0.0) -> tuple[HotkeyMatcher, list[str]]:
    log: list[str] = []
    m = HotkeyMatcher(
        parse_hotkey(spec),
        on_activate=lambda: log.append("down"),
        on_deactivate=lambda: log.append("up"),
        on_arm=lambda armed: log.append("arm" if armed else "disarm"),
        release_grace_s=grace,
    )
    return m, log


def _keys(m: HotkeyMatcher, events: str) -> None:
    """'+ctrl +alt +space -space' : press/release sequence."""
    for ev in events.split():
        (m.press if ev[0] == "+" else m.release)(ev[1:])


def test_dictation_hotkey_fires_on_exact_combination_only() -> None:
    m, log = _matcher()
    _keys(m, "+ctrl +alt +space -space -alt -ctrl")
    assert log == ["arm", "down", "up", "disarm"]

    m, log = _matcher()  # an extra modifier held: someone else's shortcut
    _keys(m, "+ctrl +shift +alt +space -space -alt -shift -ctrl")
    assert "down" not in log

    m, log = _matcher()  # the bare key, or a missing modifier
    _keys(m, "+space -space +ctrl +space -space -ctrl")
    assert "down" not in log

    m, log = _matcher()  # modifiers pressed in the other order are the same combination
    _keys(m, "+alt +ctrl +space -ctrl -alt -space")
    assert log.count("down") == 1 and log.count("up") == 1

    m, log = _matcher("f9")  # no modifiers: never armed, and f9 with ctrl held is not f9
    _keys(m, "+ctrl +f9 -f9 -ctrl +f9 -f9")
    assert log == ["down", "up"]


def test_dictation_hotkey_release_ends_hold_and_autorepeat_is_ignored() -> None:
    m, log = _matcher()
    # Windows auto-repeat: repeated presses of the held trigger
    _keys(m, "+ctrl +alt +space +space +space")
    assert log.count("down") == 1 and m.active
    # releasing a modifier first (xdotool does) also ends the combination
    _keys(m, "-ctrl")
    assert log[-1] == "up" and not m.active
    _keys(m, "-alt -space")
    assert log.count("up") == 1

    # X11 auto-repeat: release+press pairs within the grace period are one long press
    released = threading.Event()
    m, log = _matcher(grace=1.0)
    m.on_deactivate = lambda: (log.append("up"), released.set())
    _keys(m, "+ctrl +alt +space")
    for _ in range(3):
        _keys(m, "-space +space")
    assert log.count("up") == 0 and m.active
    _keys(m, "-space")  # a real release: no press follows, the grace period ends it
    assert released.wait(10) and log.count("up") == 1 and not m.active


def test_dictation_hotkey_waits_for_modifiers_before_paste() -> None:
    m, _ = _matcher()
    _keys(m, "+ctrl +alt")
    t0 = time.monotonic()
    assert not m.wait_modifiers_released(0.1)
    assert time.monotonic() - t0 >= 0.09
    _keys(m, "-ctrl -alt")
    assert m.wait_modifiers_released(0.1)


def test_dictation_key_names_from_pynput_objects() -> None:
    class Key:  # pynput.keyboard.Key members have .name and .value but no .char
        def __init__(self, name: str) -> None:
            self.name = name

    assert key_name(Key("ctrl_l")) == "ctrl"
    assert key_name(Key("alt_r")) == "alt"
    assert key_name(Key("alt_gr")) == "alt_gr"  # AltGr is not Alt: ctrl+alt hotkeys ignore it
    assert key_name(Key("cmd")) == "cmd"
    assert key_name(Key("space")) == "space"
    assert key_name(Key("f9")) == "f9"
    assert key_name(SimpleNamespace(char="D", vk=68)) == "d"
    assert key_name(SimpleNamespace(char=" ", vk=32)) == "space"
    # Ctrl held: Windows reports a control character; the virtual key says which letter
    if sys.platform == "win32":
        assert key_name(SimpleNamespace(char="\x04", vk=0x44)) == "d"
    else:
        assert key_name(SimpleNamespace(char=None, vk=ord("d"))) == "d"


def test_dictation_hotkey_unavailable_without_display() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    code = (
        "from tingji.dictation.global_hotkey import GlobalHotkey\n"
        "h = GlobalHotkey('ctrl+alt+space')\n"
        "print(h.start()); print(h.unavailable)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=_with_app(env), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    started, message = out.stdout.strip().splitlines()
    assert started == "False"
    assert message.startswith("global hotkey unavailable: ") and "\n" not in message
    assert "X" in message  # says why: no X display


class Keyboard:
    """The physical keys, and what of them reaches the matcher.

    Keys really go down and up here. While `delivered` is off the focus is in a
    program whose key events never reach our listener (an elevated window, a VM,
    the Ctrl+Alt+Del screen): those events are lost. `per_event` gives each
    delivered event the modifiers held before it, as X11's event state and
    Windows' hook-time GetAsyncKeyState do; `keys_down` answers "which keys are
    down now", as XQueryKeymap does.
    """

    def __init__(self, per_event: bool) -> None:
        self.down: set[str] = set()
        self.per_event = per_event
        self.delivered = True
        self.asked = 0
        self.matcher: HotkeyMatcher | None = None

    def keys_down(self, names: frozenset[str]) -> frozenset[str]:
        self.asked += 1
        return frozenset(n for n in names if n in self.down)

    def type(self, events: str) -> None:
        """'+ctrl +alt +space -space': press/release, each delivered only while `delivered`."""
        for ev in events.split():
            name = ev[1:]
            held = frozenset(self.down & set(MODIFIERS)) if self.per_event else None
            (self.down.add if ev[0] == "+" else self.down.discard)(name)
            if self.delivered:
                (self.matcher.press if ev[0] == "+" else self.matcher.release)(name, held)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _resyncing(
    per_event: bool, query: bool, resync: Resync = Resync(check_every_s=0)
) -> tuple[HotkeyMatcher, Keyboard, Clock, list[str]]:
    keyboard, clock = Keyboard(per_event), Clock()
    m, log = _matcher()
    m.keys_down = keyboard.keys_down if query else (lambda names: None)
    m.resync, m.clock = resync, clock
    m._last_event = m._last_modifier_event = clock.now
    keyboard.matcher = m
    return m, keyboard, clock, log


def test_dictation_hotkey_lost_release_is_corrected_by_the_next_event() -> None:
    """With each event's modifier state (X11, Windows): space alone never fires after a lost key-up."""
    # A lost key-up: ctrl and alt go up while our listener does not see it, then a plain space.
    m, kb, _, log = _resyncing(per_event=True, query=False)
    kb.type("+ctrl +alt")
    assert m.armed and log == ["arm"]
    kb.delivered = False
    kb.type("-alt -ctrl")
    kb.delivered = True
    kb.type("+space")
    assert log == ["arm", "disarm"] and not m.armed and not m.held_modifiers and not m.active
    kb.type("-space +space -space")
    assert "down" not in log

    # The focus moves to another program mid-combination; the user types there, comes back, types.
    m, kb, _, log = _resyncing(per_event=True, query=False)
    kb.type("+ctrl +alt")
    kb.delivered = False
    kb.type("+tab -tab -alt -ctrl +x -x")
    kb.delivered = True
    kb.type("+h")
    assert not m.armed and log == ["arm", "disarm"]  # the first key seen puts it right
    kb.type("-h +i -i +space -space")
    assert "down" not in log

    # Hold to talk, and every release is lost: the next key event ends the take.
    m, kb, _, log = _resyncing(per_event=True, query=False)
    kb.type("+ctrl +alt +space")
    assert log == ["arm", "down"] and m.active
    kb.delivered = False
    kb.type("-space -alt -ctrl")
    kb.delivered = True
    kb.type("+a")
    assert log == ["arm", "down", "disarm", "up"] and not m.active and not m.armed

    # The real combination still works, and so does holding it with other modifiers' state right.
    m, kb, _, log = _resyncing(per_event=True, query=False)
    kb.type("+ctrl +alt +space -space -alt -ctrl +alt +ctrl +space -ctrl -alt -space")
    assert log == ["arm", "down", "up", "disarm", "arm", "down", "disarm", "up"]  # as without the state
    print("per-event state: lost key-up, focus change and a held take all corrected by the next key event")


def test_dictation_hotkey_watchdog_lets_go_when_no_event_comes() -> None:
    """With "keys down now" (XQueryKeymap, GetAsyncKeyState, CGEventSourceFlagsState) after a quiet spell."""
    m, kb, clock, log = _resyncing(per_event=False, query=True)
    kb.type("+ctrl +alt")
    kb.delivered = False
    kb.type("-alt -ctrl")  # lost; no other key event comes at all
    clock.now += 0.5
    m.check()
    assert m.armed and kb.asked == 0  # not yet quiet long enough to ask
    clock.now += 0.5
    m.check()
    assert not m.armed and log == ["arm", "disarm"] and not m.held_modifiers
    kb.delivered = True
    kb.type("+space -space")
    assert "down" not in log

    # "Now" must not overtake events on their way: the quick ctrl+alt+space is already released
    # when only its modifier presses have been delivered. Within the quiet spell nothing is asked.
    m, kb, clock, log = _resyncing(per_event=False, query=True)
    kb.type("+ctrl +alt")
    kb.delivered = False
    kb.type("+space -space -alt -ctrl")
    clock.now += 0.2
    m.check()
    assert kb.asked == 0 and m.armed
    for ev in "+space -space -alt -ctrl".split():  # the rest arrives
        (m.press if ev[0] == "+" else m.release)(ev[1:])
    assert log == ["arm", "down", "up", "disarm"]

    # Held for ten seconds, really: stays armed, and then fires.
    m, kb, clock, log = _resyncing(per_event=False, query=True)
    kb.type("+ctrl +alt")
    clock.now += 10
    m.check()
    assert kb.asked == 1 and m.armed
    kb.type("+space")
    assert log == ["arm", "down"]

    # Hold to talk with the releases lost: the take ends.
    m, kb, clock, log = _resyncing(per_event=False, query=True)
    kb.type("+ctrl +alt +space")
    kb.delivered = False
    kb.type("-space -alt -ctrl")
    clock.now += 1.0
    m.check()
    assert log == ["arm", "down", "disarm", "up"] and not m.active
    print(
        "watchdog: quiet 1 s -> stuck modifiers and a stuck take let go; a real 10 s hold kept; "
        "nothing asked while events may be on their way"
    )


def test_dictation_hotkey_without_system_state_an_armed_modifier_times_out() -> None:
    m, kb, clock, log = _resyncing(per_event=False, query=False)
    kb.type("+ctrl +alt")
    kb.delivered = False
    kb.type("-alt -ctrl")
    clock.now += 4.9
    m.check()
    assert m.armed
    clock.now += 0.1
    m.check()
    assert not m.armed and log == ["arm", "disarm"]
    # A take held that long is left to max_take_s: without the system's word it may be real.
    m, kb, clock, log = _resyncing(per_event=False, query=False)
    kb.type("+ctrl +alt +space")
    clock.now += 60
    m.check()
    assert m.active and log == ["arm", "down"]
    print("no system state: an armed modifier is let go after 5 s without events; a held take is not")


def test_dictation_hotkey_watchdog_timer_runs_by_itself() -> None:
    kb = Keyboard(per_event=False)
    disarmed = threading.Event()
    m = HotkeyMatcher(
        parse_hotkey("ctrl+alt+space"),
        keys_down=kb.keys_down,
        on_arm=lambda armed: None if armed else disarmed.set(),
        resync=Resync(check_every_s=0.02, quiet_s=0.05),
    )
    kb.matcher = m
    kb.type("+ctrl +alt")
    assert m.armed
    kb.delivered = False
    kb.type("-alt -ctrl")
    assert disarmed.wait(10) and not m.armed and kb.asked >= 1
    m.reset()
    print(f"watchdog timer: disarmed by itself after {kb.asked} look(s) at the keyboard")


# A GlobalHotkey on a real X server. stdin commands: "stick" (the listener saw ctrl and alt go
# down, their releases will be lost), "check" (the watchdog's look, now), "sync" (F12 was pressed
# after the keys under test: wait until it is handled, so all earlier events are), "wait EVENT".
# After each command it prints the events since the last print (JSON).
_HOTKEY_CHILD = """
import json, sys, threading
from tingji.dictation.global_hotkey import GlobalHotkey
from tingji.dictation.hotkey import Resync
every, quiet = float(sys.argv[2]), float(sys.argv[3])
events, changed = [], threading.Condition()
def note(event):
    with changed:
        events.append(event)
        changed.notify_all()
h = GlobalHotkey(sys.argv[1], on_activate=lambda: note("down"), on_deactivate=lambda: note("up"),
                 on_arm=lambda armed: note("arm" if armed else "disarm"),
                 resync=Resync(check_every_s=every, quiet_s=quiet))
sentinel = threading.Event()
release = h.matcher.release
def released(name, held=None):
    release(name, held)
    if name == "f12":
        sentinel.set()
h.matcher.release = released
assert h.start(), h.unavailable
print("READY", type(h.keys).__name__, flush=True)
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "stick":
        h.matcher.press("ctrl")
        h.matcher.press("alt")
    elif cmd[0] == "check":
        h.matcher.check()
    elif cmd[0] == "sync":
        assert sentinel.wait(30), "F12 never arrived"
        sentinel.clear()
    elif cmd[0] == "wait":
        with changed:
            assert changed.wait_for(lambda: cmd[1] in events, 30), (cmd, events)
    with changed:
        print(json.dumps(events), flush=True)
        events.clear()
h.stop()
"""


class HotkeyChild:
    def __init__(self, xvfb, every: float, quiet: float) -> None:
        self.xvfb = xvfb
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HOTKEY_CHILD, "ctrl+alt+space", str(every), str(quiet)],
            env=_with_app(xvfb.env()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        ready = self.proc.stdout.readline().split()
        assert ready[:1] == ["READY"], self.proc.stderr.read()
        self.keys = ready[1]

    def command(self, line: str) -> list[str]:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        assert out, self.proc.stderr.read()
        return json.loads(out)

    def keys_then_sync(self, *xdotool: str) -> list[str]:
        for args in xdotool:
            self.xvfb.xdotool(*args.split())
        self.xvfb.xdotool("key", "F12")
        return self.command("sync")

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
            self.proc.stdout.close()
            self.proc.stderr.close()


@pytest.fixture(scope="module")
def xvfb():
    from tests.support.pulse import VirtualDisplay

    display = VirtualDisplay().start()
    yield display
    display.stop()


def test_dictation_hotkey_real_keypress_under_xvfb(xvfb) -> None:
    """xdotool key events go through the X server; pynput's XRecord listener sees them."""
    child = HotkeyChild(xvfb, every=1.0, quiet=1.0)  # the app's own watchdog settings
    try:
        assert child.keys == "X11Keys"
        events = child.keys_then_sync(
            "key ctrl+alt+space",  # fires: down, up
            "key ctrl+shift+alt+space",  # extra modifier: nothing
            "key space",  # bare key: nothing
            "key alt+space",
        )  # missing modifier: nothing
        assert [e for e in events if e in ("down", "up")] == ["down", "up"]
        xvfb.xdotool("keydown", "ctrl+alt+space")  # hold ...
        time.sleep(0.6)  # the stimulus: a held key, auto-repeating (no result is read after it)
        events = child.keys_then_sync("keyup space", "keyup alt keyup ctrl")  # ... release the key: ends
    finally:
        child.close()
    assert [e for e in events if e in ("down", "up")] == ["down", "up"]


def test_dictation_hotkey_resynchronises_with_the_real_x_server(xvfb) -> None:
    """Lost key-ups on a real X server: pynput delivers real events, the state comes from X itself."""
    child = HotkeyChild(xvfb, every=0, quiet=0)  # no timer: the test says when the watchdog looks
    try:
        # 1. ctrl+alt were seen going down, their releases were lost; a real space press carries the
        #    server's modifier state (none held): it does not fire, and the armed state clears.
        assert child.command("stick") == ["arm"]
        assert child.keys_then_sync("key space") == ["disarm"]
        # 2. The same, and no key event at all: the watchdog's look at the X keymap clears it.
        assert child.command("stick") == ["arm"]
        assert child.command("check") == ["disarm"]
        # 3. Really held (xdotool keydown) for as long as it takes: the look finds them down, and a
        #    space then fires as it should.
        assert child.keys_then_sync("keydown ctrl keydown alt") == ["arm"]
        assert child.command("check") == []
        events = child.keys_then_sync("key space", "keyup alt keyup ctrl")
        # "up" comes from the space release's grace timer or from the alt release, whichever is first
        assert sorted(events) == ["disarm", "down", "up"] and events[0] == "down", events
    finally:
        child.close()
    print(
        "real X server: stuck ctrl+alt cleared by the next event's state and by XQueryKeymap; a real hold still fires"
    )


def test_dictation_hotkey_watchdog_clears_a_stuck_arm_on_the_real_x_server(xvfb) -> None:
    child = HotkeyChild(xvfb, every=0.05, quiet=0.2)
    try:
        assert child.command("stick") == ["arm"]
        assert child.command("wait disarm") == ["disarm"]  # nobody touched a key: the timer did it
    finally:
        child.close()
    print("real X server: the watchdog timer alone let go of a stuck ctrl+alt")


def test_dictation_hotkey_unavailable_without_xrecord() -> None:
    """An X server without RECORD: a clear message, promptly, instead of pynput hanging in wait()."""
    from tests.support.pulse import VirtualDisplay

    display = VirtualDisplay(640, 480, record=False).start()
    try:
        code = (
            "from tingji.dictation.global_hotkey import GlobalHotkey\n"
            "h = GlobalHotkey('ctrl+alt+space')\n"
            "print(h.start()); print(h.unavailable)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], env=_with_app(display.env()), capture_output=True, text=True, timeout=60
        )
    finally:
        display.stop()
    assert out.returncode == 0, out.stderr
    started, message = out.stdout.strip().splitlines()
    assert started == "False" and message.startswith("global hotkey unavailable: ") and "RECORD" in message
