"""The dictation overlay on a real X server (Xvfb) with the PulseAudio virtual microphone (issue 35, proofs 1-2).

Three processes, as on a desktop:
  * the *target*: another Qt application, a focused text box filling the screen, which reports its
    text, whether it has the focus and the mouse presses it received;
  * the *app*: Tingji's dictation (real hotkey, real microphone on `vmic`, the tiny engine, live
    preview on) with the overlay wired as the app wires it, in an xcb QApplication; it prints its
    controller events and each overlay state (with the overlay's place on screen) as JSON lines;
  * pytest: holds the hotkey with xdotool, speaks with paplay, asks the X server which window has
    the input focus (`xdotool getwindowfocus`) before, during and after the take, and clicks on the
    overlay while it shows.

No timing asserts: the order of states, counts, equality; hangs are bounded generously.
This file is also the two helper programs (`python test_overlay_x11.py target STATUS` / `app MODEL HOME`).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

# xdist: one worker runs the users of the virtual microphone and displays (tests/support/schedule.py)
pytestmark = [pytest.mark.gui, pytest.mark.dictation, pytest.mark.xdist_group("desktop")]

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
HOTKEY = "ctrl+alt+space"
SCREEN = (1280, 1024)


def target_main(status: str) -> int:
    """A text box covering the screen; reports text, focus and the global positions of mouse presses."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QTextEdit

    app = QApplication(sys.argv[:1])
    edit = QTextEdit()
    edit.setWindowTitle("tingji-target")
    edit.setGeometry(0, 0, *SCREEN)
    presses: list[list[int]] = []

    class Presses(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
            if event.type() == QEvent.Type.MouseButtonPress:
                p = event.globalPosition().toPoint()
                presses.append([p.x(), p.y()])
            return False

    spy = Presses()
    edit.viewport().installEventFilter(spy)
    edit.show()
    edit.activateWindow()
    edit.setFocus()

    def dump() -> None:
        data = {"text": edit.toPlainText(), "focus": edit.hasFocus(), "presses": presses, "t": time.time()}
        Path(status + ".tmp").write_text(json.dumps(data), "utf-8")
        os.replace(status + ".tmp", status)

    timer = QTimer()
    timer.timeout.connect(dump)
    timer.start(50)
    return app.exec()


def app_main(model: str, home: str) -> int:
    """Dictation with the overlay, as DictationHost wires it; everything it shows goes to stdout."""
    from PySide6.QtCore import QObject, Qt, QTimer, Signal
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])

    class Quit(QObject):
        """The stdin thread's way to end the event loop: a QTimer started on that thread would never fire (it
        has no event loop), and the test's close() waited 30 s and then killed the app."""

        requested = Signal()

    quitter = Quit()
    quitter.requested.connect(app.quit, Qt.ConnectionType.QueuedConnection)
    import tingji
    from tests.support.dictation_events import event_json
    from tingji.dictation.controller import DictationController
    from tingji.dictation.history import DictationHistory
    from tingji.dictation.settings import DictationSettings
    from tingji.dictation.states import DictationState
    from tingji.engine import Engine
    from tingji.gui.dictation.overlay import DictationOverlay, OverlayPhase
    from tingji.gui.dictation.panel import DictationBridge
    from tingji.gui.dictation.qt_clipboard import QtClipboard

    lock = threading.Lock()

    def say(**data) -> None:
        with lock:
            print(json.dumps(data | {"t": time.time()}, ensure_ascii=False), flush=True)

    engine = Engine(model)
    history = DictationHistory(Path(home) / "dictation.sqlite3", Path(home) / "recordings")
    settings = DictationSettings(hotkey=HOTKEY, mode="hold", keep_mic_open=True, preview=True, restore_delay_s=0.4)
    bridge = DictationBridge()
    controller = DictationController(engine, settings, clipboard=QtClipboard(), history=history, on_event=bridge.post)
    overlay = DictationOverlay(lambda: controller.level)

    def on_event(ev) -> None:
        overlay.on_event(ev)
        say(**event_json(ev))

    def shown(phase: OverlayPhase, dictation: DictationState, text: str) -> None:
        g = overlay.frameGeometry()
        say(
            kind="overlay",
            state=dictation.value if phase is OverlayPhase.LIVE else phase.value,  # listening, transcribing, final...
            text=text,
            visible=overlay.isVisible(),
            rect=[g.x(), g.y(), g.width(), g.height()],
        )

    overlay.stateShown.connect(shown)
    bridge.event.connect(on_event)
    controller.start(recover=False)

    def ready() -> None:
        if controller.mic.frames_captured > 0.3 * 16000:  # type: ignore[attr-defined]
            say(kind="ready", recordings=str(history.recordings), code=tingji.__file__)
        else:
            QTimer.singleShot(50, ready)

    def commands() -> None:
        for line in sys.stdin:
            if line.split() == ["level"]:
                say(kind="level", level=overlay.level, rms=controller.level)
            elif not line.strip() or line.split()[0] == "quit":
                break
        quitter.requested.emit()

    QTimer.singleShot(0, ready)
    threading.Thread(target=commands, daemon=True).start()
    app.exec()
    controller.close()
    return 0


class Desk:
    """Xvfb + our PulseAudio + the target + the app (tests/dictation/test_e2e.py's rig, with the overlay)."""

    def __init__(self, tmp: Path, model: Path) -> None:
        from tests.support.pulse import VirtualDisplay, VirtualMic

        self.display = VirtualDisplay(*SCREEN)
        self.mic = VirtualMic()
        self.procs: list[subprocess.Popen] = []
        self.events: queue.Queue[dict] = queue.Queue()
        self.log: list[dict] = []
        self.stderr: list[str] = []
        try:
            self._start(tmp, model)
        except BaseException:
            self.close()
            raise

    def _start(self, tmp: Path, model: Path) -> None:
        self.display.start()
        self.mic.start()
        self.status = tmp / "target.json"
        env = self.display.env(self.mic.env) | {"QT_QPA_PLATFORM": "xcb", "TINGJI_HOME": str(tmp / "home")}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "app"), str(ROOT), env.get("PYTHONPATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        self.procs.append(
            subprocess.Popen(
                [sys.executable, str(HERE), "target", str(self.status)], env=env, stderr=subprocess.DEVNULL
            )
        )
        self.wait_target(lambda s: s["focus"], "the target window's focus")
        self.app = subprocess.Popen(
            [sys.executable, str(HERE), "app", str(model), str(tmp / "home")],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.procs.append(self.app)
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.app.stderr), daemon=True).start()
        ready = self.next_event("ready", timeout=180)
        assert Path(ready["code"]).is_relative_to(ROOT / "app"), ready["code"]
        self.recordings = Path(ready["recordings"])

    def _read(self) -> None:
        for line in self.app.stdout:
            if line.startswith("{"):
                ev = json.loads(line)
                self.log.append(ev)
                self.events.put(ev)

    def next_event(self, *kinds: str, timeout: float = 60.0, state: str | None = None) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                ev = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(
                    f"no {kinds} {state or ''} event; stderr: {''.join(self.stderr)[-3000:]}"
                ) from None
            if ev["kind"] in kinds and (state is None or ev["state"] == state):
                return ev

    def target(self) -> dict:
        for _ in range(50):
            try:
                return json.loads(self.status.read_text("utf-8"))
            except (OSError, ValueError):
                time.sleep(0.02)
        raise AssertionError("the target window is not reporting")

    def wait_target(self, ok, what: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            if self.status.exists() and ok(state := self.target()):
                return state
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.05)

    def focused_window(self) -> str:
        """The window that has the X server's input focus."""
        out = subprocess.run(
            ["xdotool", "getwindowfocus"], env=self.display.env(), capture_output=True, text=True, timeout=30
        )
        return out.stdout.strip()

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                if proc is self.procs[-1] and proc.stdin is not None:
                    try:
                        proc.stdin.write("quit\n")
                        proc.stdin.flush()
                        proc.wait(30)
                        continue
                    except Exception:  # noqa: BLE001
                        pass
                proc.terminate()
                proc.wait(10)
        self.mic.stop()
        self.display.stop()


@pytest.fixture(scope="module")
def desk(tiny_model, tmp_path_factory):
    from tests.support.pulse import pulse_available

    if not pulse_available():
        pytest.skip("PulseAudio is not installed")
    d = Desk(tmp_path_factory.mktemp("overlay-desk"), tiny_model)
    yield d
    d.close()


@pytest.fixture(scope="module")
def five_seconds(tmp_path_factory) -> Path:
    from tests.support.audio import espeak

    path = tmp_path_factory.mktemp("utterance") / "five_seconds.wav"
    samples = espeak(path, "Please send the report to the whole team by Friday, and copy me on the reply.")
    assert 4.0 < len(samples) / 16000 < 7.0
    return path


@pytest.mark.load_sensitive  # how many preview runs fit the take depends on the machine's load
def test_overlay_states_preview_focus_and_clicks_through(desk: Desk, five_seconds: Path, engine) -> None:
    import soundfile as sf

    from tests.support.preview_counts import previews_expected

    focus_before = desk.focused_window()
    before = desk.target()
    assert before["focus"] and focus_before
    desk.display.xdotool("keydown", HOTKEY)
    shown = desk.next_event("overlay", state="listening", timeout=30)
    assert shown["visible"]
    player = desk.mic.play(five_seconds, wait=False)
    # While the take records: the focus stays where it was, and a click on the overlay reaches the window below.
    desk.next_event("preview", timeout=60)
    focus_during = desk.focused_window()
    x, y, w, h = shown["rect"]
    cx, cy = x + w // 2, y + h // 2
    desk.display.xdotool("mousemove", str(cx), str(cy), "click", "1")
    clicked = desk.wait_target(lambda s: len(s["presses"]) > len(before["presses"]), "the click on the target")
    player.wait(60)
    desk.display.xdotool("keyup", "space", "keyup", "alt", "keyup", "ctrl")
    take = desk.next_event("take", "empty", "error", timeout=120)
    assert take["kind"] == "take", take
    # The overlay is told first (it shows before the event is printed): its line is already in the log.
    final = next(e for e in desk.log if e["kind"] == "overlay" and e["state"] == "final")
    after = desk.wait_target(lambda s: s["text"] != before["text"], "the pasted text")
    focus_after = desk.focused_window()

    # Proof 2: the same window has the focus before, during and after; the click went through the overlay.
    assert focus_before == focus_during == focus_after
    assert after["focus"]
    assert clicked["presses"][-1] == [cx, cy]
    # Proof 1: the overlay's states in order, >= 4 preview updates during the 5 s take (fewer only as slower
    # measured runs allow), none after the release.
    log = list(desk.log)  # this take's, and the readiness line
    states = [e["state"] for e in log if e["kind"] == "overlay"]
    collapsed = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
    assert collapsed[:3] == ["listening", "transcribing", "final"], states
    previews = [e for e in log if e["kind"] == "preview"]
    begin = next(e["t"] for e in log if e["kind"] == "begin")
    run_s = [p["timings"]["run_s"] for p in previews]
    release = next(e["t"] for e in log if e["kind"] == "overlay" and e["state"] == "transcribing")
    last_to_release = release - previews[-1]["t"] if previews else None
    expected = previews_expected(sf.info(str(five_seconds)).duration, run_s, last_to_release_s=last_to_release)
    assert len(previews) >= expected, (
        f"runs of {[round(r, 2) for r in run_s]} s, previews at {[round(p['t'] - begin, 2) for p in previews]} s, "
        f"released at {round(release - begin, 2)} s, take ended at "
        f"{round(take['t'] - begin, 2)} s after the key press: {[e['kind'] for e in log]}"
    )
    assert all(log.index(p) < log.index(take) for p in previews)
    overlay_previews = [e for e in log if e["kind"] == "overlay" and e["state"] == "listening" and e["text"]]
    assert [e["text"] for e in overlay_previews] == [e["text"] for e in previews]
    # The overlay's "listening" came before the controller said it listens (it shows before the microphone opens).
    first_listening_state = next(e for e in log if e["kind"] == "state" and e["state"] == "listening")
    assert log.index(shown) < log.index(first_listening_state)
    # The pasted text is the final transcript of the kept recording, exactly, and the overlay showed it.
    pasted = after["text"][len(before["text"]) :]
    samples, rate = sf.read(str(desk.recordings / take["take"]["recording"]), dtype="float32")
    expected = engine.transcribe(samples).text.strip()
    assert expected and pasted == take["take"]["text"] == expected == final["text"]
    # The overlay goes away by itself.
    assert desk.next_event("overlay", state="hidden", timeout=30)["visible"] is False


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT), str(ROOT / "app")]
    sys.exit(target_main(sys.argv[2]) if sys.argv[1] == "target" else app_main(sys.argv[2], sys.argv[3]))
