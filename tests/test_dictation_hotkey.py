"""Dictation hotkey: parsing, exact-combination matching, the real listener under Xvfb."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from tingji.dictation.hotkey import Hotkey, HotkeyError, HotkeyMatcher, key_name, parse_hotkey

pytestmark = pytest.mark.dictation


def test_dictation_parse_hotkey() -> None:
    assert parse_hotkey("ctrl+alt+space") == Hotkey(frozenset({"ctrl", "alt"}), "space")
    assert parse_hotkey(" Control + Option + D ") == Hotkey(frozenset({"ctrl", "alt"}), "d")
    assert parse_hotkey("win+shift+F9") == Hotkey(frozenset({"cmd", "shift"}), "f9")
    assert parse_hotkey("f8") == Hotkey(frozenset(), "f8")
    assert parse_hotkey("ctrl+plus").key == "+"
    assert str(parse_hotkey("alt+ctrl+space")) == "ctrl+alt+space"
    assert parse_hotkey(str(parse_hotkey("ctrl+plus"))) == parse_hotkey("ctrl+plus")
    for bad, why in (("", "empty"), ("ctrl+alt", "needs a key"), ("ctrl+a+b", "exactly one"),
                     ("ctrl+banana", "unknown key"), ("a", "needs a modifier"), ("ctrl++", "empty part")):
        with pytest.raises(HotkeyError, match=why):
            parse_hotkey(bad)


def _matcher(spec: str = "ctrl+alt+space", grace: float = 0.0) -> tuple[HotkeyMatcher, list[str]]:
    log: list[str] = []
    m = HotkeyMatcher(parse_hotkey(spec), on_activate=lambda: log.append("down"),
                      on_deactivate=lambda: log.append("up"),
                      on_arm=lambda armed: log.append("arm" if armed else "disarm"), release_grace_s=grace)
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
    m, log = _matcher(grace=0.15)
    _keys(m, "+ctrl +alt +space")
    for _ in range(3):
        _keys(m, "-space +space")
        time.sleep(0.02)
    assert log.count("up") == 0 and m.active
    _keys(m, "-space")
    time.sleep(0.4)
    assert log.count("up") == 1 and not m.active


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
    code = ("from tingji.dictation.hotkey import GlobalHotkey\n"
            "h = GlobalHotkey('ctrl+alt+space')\n"
            "print(h.start()); print(h.unavailable)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    started, message = out.stdout.strip().splitlines()
    assert started == "False"
    assert message.startswith("global hotkey unavailable: ") and "\n" not in message
    assert "X" in message  # says why: no X display


_LISTEN = """
import sys, time, json
from tingji.dictation.hotkey import GlobalHotkey
events = []
h = GlobalHotkey(sys.argv[1], on_activate=lambda: events.append("down"),
                 on_deactivate=lambda: events.append("up"))
assert h.start(), h.unavailable
print("READY", flush=True)
sys.stdin.readline()
time.sleep(0.3)
print(json.dumps(events), flush=True)
h.stop()
"""


@pytest.fixture(scope="module")
def xvfb():
    from pulse_helpers import VirtualDisplay

    display = VirtualDisplay().start()
    yield display
    display.stop()


def test_dictation_hotkey_real_keypress_under_xvfb(xvfb) -> None:
    """xdotool key events go through the X server; pynput's XRecord listener sees them."""
    proc = subprocess.Popen([sys.executable, "-c", _LISTEN, "ctrl+alt+space"], env=xvfb.env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "READY", proc.stderr.read()
        xvfb.xdotool("key", "ctrl+alt+space")           # fires: down, up
        xvfb.xdotool("key", "ctrl+shift+alt+space")     # extra modifier: nothing
        xvfb.xdotool("key", "space")                    # bare key: nothing
        xvfb.xdotool("key", "alt+space")                # missing modifier: nothing
        xvfb.xdotool("keydown", "ctrl+alt+space")       # hold ...
        time.sleep(0.6)
        xvfb.xdotool("keyup", "space")                  # ... release the key: ends
        xvfb.xdotool("keyup", "alt", "keyup", "ctrl")
        proc.stdin.write("\n")
        proc.stdin.flush()
        events = json.loads(proc.stdout.readline())
    finally:
        proc.kill() if proc.poll() is None else None
        proc.wait(10)
    assert events == ["down", "up", "down", "up"]


def test_dictation_hotkey_unavailable_without_xrecord() -> None:
    """An X server without RECORD: a clear message, promptly, instead of pynput hanging in wait()."""
    from pulse_helpers import VirtualDisplay

    display = VirtualDisplay(640, 480, record=False).start()
    try:
        code = ("from tingji.dictation.hotkey import GlobalHotkey\n"
                "h = GlobalHotkey('ctrl+alt+space')\n"
                "print(h.start()); print(h.unavailable)\n")
        out = subprocess.run([sys.executable, "-c", code], env=display.env(), capture_output=True, text=True,
                             timeout=60)
    finally:
        display.stop()
    assert out.returncode == 0, out.stderr
    started, message = out.stdout.strip().splitlines()
    assert started == "False" and message.startswith("global hotkey unavailable: ") and "RECORD" in message
