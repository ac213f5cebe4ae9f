"""A virtual microphone (PulseAudio null sink) and a virtual display (Xvfb) for dictation tests.

PulseAudio runs as our own daemon with its runtime folder in a temp dir, so
it never touches a user's session: `module-null-sink sink_name=vmic` is a
speaker whose monitor is made the default source. Whatever `paplay
--device=vmic` plays is then what PortAudio's ALSA `default`/`pulse` device
records: audio really goes through the sound server, resampling and all.

The ALSA pulse plugin finds the server through XDG_RUNTIME_DIR, which is set
in os.environ (for this process) and in `env` (for subprocesses).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path


def _run(args: list[str], env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, check=check, capture_output=True, text=True, timeout=30)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def pulse_available() -> bool:
    return all(shutil.which(p) for p in ("pulseaudio", "pactl", "paplay"))


class VirtualMic:
    """Our PulseAudio daemon with the `vmic` null sink as the default source."""

    SINK = "vmic"

    def __init__(self) -> None:
        self.runtime = Path(tempfile.mkdtemp(prefix="tingji-pulse-"))
        self.env = dict(os.environ, XDG_RUNTIME_DIR=str(self.runtime))
        self.env.pop("PULSE_SERVER", None)
        self._saved = {k: os.environ.get(k) for k in ("XDG_RUNTIME_DIR", "PULSE_SERVER")}
        self.started = False

    def start(self) -> VirtualMic:
        _run(
            [
                "pulseaudio",
                "--daemonize=yes",
                "--exit-idle-time=-1",
                "-n",
                "--load=module-native-protocol-unix",
                f"--load=module-null-sink sink_name={self.SINK}",
            ],
            self.env,
        )
        deadline = time.monotonic() + 10
        while _run(["pactl", "info"], self.env, check=False).returncode != 0:
            if time.monotonic() > deadline:
                raise RuntimeError("PulseAudio did not come up")
            time.sleep(0.1)
        self.started = True
        self.set_default()
        os.environ["XDG_RUNTIME_DIR"] = str(self.runtime)
        os.environ.pop("PULSE_SERVER", None)
        return self

    def set_default(self) -> None:
        _run(["pactl", "set-default-source", f"{self.SINK}.monitor"], self.env)
        _run(["pactl", "set-default-sink", self.SINK], self.env)

    def module_id(self) -> str | None:
        out = _run(["pactl", "list", "short", "modules"], self.env).stdout
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) >= 3 and parts[1] == "module-null-sink" and f"sink_name={self.SINK}" in parts[2]:
                return parts[0]
        return None

    def unplug(self) -> None:
        """Remove the virtual microphone, as if its USB cable were pulled."""
        mid = self.module_id()
        if mid is not None:
            _run(["pactl", "unload-module", mid], self.env)

    def plug(self) -> None:
        if self.module_id() is None:
            _run(["pactl", "load-module", "module-null-sink", f"sink_name={self.SINK}"], self.env)
        self.set_default()

    def play(self, wav: str | Path, wait: bool = True) -> subprocess.Popen[bytes]:
        """Play a file into the virtual microphone (paplay exits once it was played out)."""
        proc = subprocess.Popen(
            ["paplay", f"--device={self.SINK}", str(wav)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        if wait:
            proc.wait(timeout=60)
        return proc

    def stop(self) -> None:
        pid_file = self.runtime / "pulse" / "pid"
        pid = int(pid_file.read_text().split()[0]) if pid_file.is_file() else None
        if self.started:
            try:
                _run(["pactl", "exit"], self.env, check=False)
            except subprocess.TimeoutExpired:
                pass
            self.started = False
        if pid is not None:  # our daemon only: its pid file lives in our runtime folder
            deadline = time.monotonic() + 5
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.runtime, ignore_errors=True)


class VirtualDisplay:
    """An Xvfb server on a free display number (RECORD for pynput's listener, XTEST for its controller)."""

    def __init__(self, width: int = 1280, height: int = 1024, *, record: bool = True) -> None:
        self.size = (width, height)
        self.record = record
        self.proc: subprocess.Popen[bytes] | None = None
        self.display = ""

    def start(self) -> VirtualDisplay:
        for n in range(60, 160):
            if Path(f"/tmp/.X{n}-lock").exists() or Path(f"/tmp/.X11-unix/X{n}").exists():
                continue
            proc = subprocess.Popen(
                [
                    "Xvfb",
                    f":{n}",
                    "-screen",
                    "0",
                    f"{self.size[0]}x{self.size[1]}x24",
                    "-nolisten",
                    "tcp",
                    "+extension",
                    "XTEST",
                    # last: a later +extension re-enables whatever -extension disabled
                    "+extension" if self.record else "-extension",
                    "RECORD",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and proc.poll() is None:
                if Path(f"/tmp/.X11-unix/X{n}").exists():
                    self.proc, self.display = proc, f":{n}"
                    time.sleep(0.2)
                    return self
                time.sleep(0.05)
            if proc.poll() is None:
                proc.terminate()
                proc.wait(5)
        raise RuntimeError("could not start Xvfb")

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        return dict(base if base is not None else os.environ, DISPLAY=self.display)

    def xdotool(self, *args: str) -> None:
        subprocess.run(["xdotool", *args], env=self.env(), check=True, timeout=30)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None
