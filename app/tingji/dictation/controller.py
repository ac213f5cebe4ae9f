"""Dictation: hotkey -> microphone -> VAD -> engine -> focused app -> history.

    controller = DictationController(engine, DictationSettings(hotkey="ctrl+alt+space"),
                                     clipboard=my_clipboard, on_event=print)
    controller.start()          # global hotkey + (optionally) the open microphone
    ...
    controller.close()

Modes:
  hold        the take lasts while the hotkey is held.
  toggle      press to start; the take ends on the next press or after
              `silence_s` of silence following speech (Silero VAD), or after
              `no_speech_timeout_s` if nothing is said at all.
  continuous  press to start, press to stop; every pause of `silence_s`
              closes a segment, which is transcribed and inserted while
              listening goes on.

Threads, and why there are three besides the caller's:
  * the hotkey listener's (pynput) only queues commands: it must return at
    once (Windows drops slow low-level hooks);
  * the command thread opens/closes the microphone and starts/ends takes
    (opening a device can take 100+ ms);
  * the take worker writes the WAV, checks for speech, transcribes, stores
    and inserts the text, one take at a time and in order, so the user can
    start the next take while the previous one is transcribed.
The live VAD runs on the microphone's worker thread (0.1 ms per 32 ms frame).

What happens to a finished take, in this order (nothing dictated is lost):
  1. its audio is written to a WAV under recordings_dir() and read back, so
     what is transcribed is exactly what is kept;
  2. no speech in it (VAD) -> the WAV is deleted, an "empty" event, nothing
     typed: an accidental key press yields nothing;
  3. transcription; an empty text is treated like 2;
  4. the history row is committed (text + WAV name);
  5. the text goes to the focused application (paste or typing);
  6. only now may the retention setting delete old recordings.
If the app dies between 1 and 4 the WAV stays without a row and
`recover_orphans()` transcribes it into the history on the next start.

Everything the user should see arrives as a `DictationEvent` through the
`on_event` callback, from whatever thread produced it: a GUI must forward it
to its own thread (tingji.gui.dictation_panel.DictationBridge does).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from ..engine.errors import Cancelled, TingjiError
from ..engine.vad import FRAME_SECONDS, SileroVad, SpeechParams, VadStream, speech_spans
from ..paths import data_dir
from .capture import RATE, Microphone, MicrophoneError, TakeAudio
from .history import DictationHistory, DictationTake
from .hotkey import GlobalHotkey, HotkeyError, parse_hotkey
from .output import OUTPUT_MODES, Clipboard, KeySender, TextOutput

log = logging.getLogger(__name__)

MODES = ("hold", "toggle", "continuous")
STATES = ("idle", "listening", "transcribing")


@dataclass
class DictationSettings:
    """Everything the user can configure about dictation (JSON-serialisable)."""

    hotkey: str = "ctrl+alt+space"
    mode: str = "hold"
    output: str = "paste"                # "paste" (clipboard + Ctrl/Cmd+V) or "type"
    keep_mic_open: bool = False          # see capture.py for the trade-off
    device: str | None = None            # input device name; None = system default
    pre_roll_s: float = 0.5              # audio kept from before the take starts (>= 0.3 recommended)
    silence_s: float = 1.0               # toggle/continuous: this much silence after speech ends the take
    no_speech_timeout_s: float = 8.0     # toggle: give up when nothing is said for this long
    max_take_s: float = 300.0            # safety net for a stuck key
    vad_threshold: float = 0.5
    restore_delay_s: float = 0.5         # paste: wait before giving the old clipboard back
    keep_recordings: int | None = 200    # newest takes whose WAV is kept; None = all, 0 = none
    language: str | None = None
    hotwords: list[str] = field(default_factory=list)
    itn: bool = True

    def validate(self) -> "DictationSettings":
        """Raise TingjiError (one line) for a setting the controller cannot use."""
        parse_hotkey(self.hotkey)
        if self.mode not in MODES:
            raise TingjiError(f"dictation mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.output not in OUTPUT_MODES:
            raise TingjiError(f"dictation output must be one of {', '.join(OUTPUT_MODES)}, not {self.output!r}")
        for name in ("pre_roll_s", "silence_s", "no_speech_timeout_s", "max_take_s", "restore_delay_s"):
            if getattr(self, name) < 0:
                raise TingjiError(f"dictation setting {name} must not be negative")
        if self.silence_s < 0.2:
            raise TingjiError("dictation silence must be at least 0.2 s (the VAD decides every 32 ms)")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DictationSettings":
        """Unknown keys are ignored, missing ones take defaults (settings from older/newer versions)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in dict(data).items() if k in names})

    @classmethod
    def load(cls, path: str | Path | None = None) -> "DictationSettings":
        path = Path(path) if path is not None else data_dir() / "dictation.json"
        try:
            return cls.from_dict(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, TypeError):
            return cls()

    def save(self, path: str | Path | None = None) -> None:
        path = Path(path) if path is not None else data_dir() / "dictation.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=2), "utf-8")
        tmp.replace(path)


@dataclass
class DictationEvent:
    """What the user should see. `kind`:

    state  - `state` changed (idle / listening / transcribing)
    take   - `take` was stored (and inserted unless take.output == "failed")
    empty  - a take held no speech; nothing was inserted
    error  - `message` is a one-line problem (microphone, output, engine); the
             controller keeps running
    hotkey - `message` is "" when the global hotkey works, else why not
    """

    kind: str
    message: str = ""
    state: str = ""
    take: DictationTake | None = None
    timings: dict[str, float] = field(default_factory=dict)


class Transcriber(Protocol):
    """What the controller needs from tingji.engine.Engine."""

    def transcribe(self, source: np.ndarray, *, language: str | None = None, hotwords: Sequence[str] = (),
                   itn: bool = True, cancel: Any = None, priority: bool = False) -> Any: ...


class AudioInput(Protocol):
    """What the controller needs from capture.Microphone (tests substitute a fake)."""

    on_audio: Callable[[np.ndarray], None] | None
    on_error: Callable[[str], None] | None

    def open(self) -> None: ...

    def prepare(self, armed: bool = True) -> None: ...

    def begin(self) -> None: ...

    def end(self, tail_s: float | None = None) -> TakeAudio: ...

    def set_options(self, **kwargs: Any) -> None: ...

    def close(self) -> None: ...


@dataclass
class _Finished:
    audio: TakeAudio
    ended_at: float        # time.monotonic() when the take ended
    ended_wall: float      # time.time() of the same moment
    reason: str
    quiet: bool = False    # a continuous-mode idle segment: drop without an "empty" event


class _LiveVad:
    """Decides, while the take runs, when the speaker has finished."""

    def __init__(self, vad: SileroVad, settings: DictationSettings) -> None:
        self.stream = VadStream(vad)
        self.threshold = settings.vad_threshold
        self.neg_threshold = max(0.05, settings.vad_threshold - 0.15)
        self.min_speech = max(1, round(0.25 / FRAME_SECONDS))
        self.silence_frames = max(1, round(settings.silence_s / FRAME_SECONDS))
        self.speech_run = 0
        self.heard_speech = False
        self.quiet_run = 0

    def feed(self, block: np.ndarray) -> bool:
        """True once speech was heard and then `silence_s` of silence followed."""
        ended = False
        for p in self.stream.feed(block):
            if p >= self.threshold:
                self.speech_run += 1
                self.quiet_run = 0
                if self.speech_run >= self.min_speech:
                    self.heard_speech = True
            else:
                self.speech_run = 0
                if p < self.neg_threshold:
                    self.quiet_run += 1
                if self.heard_speech and self.quiet_run >= self.silence_frames:
                    ended = True
        return ended

    @property
    def seconds(self) -> float:
        return self.stream.frames * FRAME_SECONDS


class DictationController:
    """Owns a dictation session: the hotkey, the microphone, the take pipeline."""

    def __init__(self, engine: Transcriber, settings: DictationSettings | None = None, *,
                 clipboard: Clipboard | None = None, keys: KeySender | None = None,
                 output: TextOutput | None = None, history: DictationHistory | None = None,
                 microphone: AudioInput | None = None, vad: SileroVad | None = None,
                 on_event: Callable[[DictationEvent], None] | None = None,
                 use_hotkey: bool = True, model_name: str | None = None) -> None:
        self.settings = (settings or DictationSettings()).validate()
        s = self.settings
        self.engine = engine
        self.model_name = model_name or getattr(engine, "model_name", None)
        self.on_event = on_event
        self.history = history if history is not None else DictationHistory()
        self.output = output if output is not None else TextOutput(
            clipboard, keys, mode=s.output, restore_delay_s=s.restore_delay_s)
        self.vad = vad if vad is not None else (getattr(engine, "vad", None) or SileroVad())
        self.mic: AudioInput = microphone if microphone is not None else Microphone(
            s.device, pre_roll_s=s.pre_roll_s, keep_open=s.keep_mic_open)
        self.mic.on_audio = self._on_audio
        self.mic.on_error = self._on_mic_error
        self.use_hotkey = use_hotkey
        self.hotkey: GlobalHotkey | None = None
        self.hotkey_unavailable: str | None = None

        self.state = "idle"
        self._recording = False
        self._live: _LiveVad | None = None
        self._take_samples = 0
        self._segments = 0
        self._end_requested = False
        self._commands: queue.SimpleQueue[tuple] = queue.SimpleQueue()
        self._takes: queue.SimpleQueue[_Finished | tuple | None] = queue.SimpleQueue()
        self._busy = 0  # takes queued or being processed
        self._pending = 0  # commands queued or being handled
        self._cond = threading.Condition()
        self._cancel = threading.Event()
        self._threads: list[threading.Thread] = []
        self._started = False

    # -- lifecycle ------------------------------------------------------------------

    def start(self, *, recover: bool = True) -> None:
        """Start the threads and the hotkey; with keep_mic_open, open the microphone.

        Never raises for a missing hotkey or microphone: those become events,
        and begin_take()/toggle() (e.g. a button) still work without a hotkey.
        """
        if self._started:
            return
        self._started = True
        self._cancel.clear()
        for target, name in ((self._run_commands, "tingji-dictation"), (self._run_takes, "tingji-dictation-takes")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        if self.use_hotkey:
            self._start_hotkey()
        if self.settings.keep_mic_open:
            self._post("open")
        if recover:
            self._takes.put(("recover",))

    def close(self) -> None:
        """Stop listening, finish nothing new, and release the devices."""
        if self.hotkey is not None:
            self.hotkey.stop()
            self.hotkey = None
        if self._threads:
            self._post("quit")  # ends a running take: it is queued like any other
            self._threads[0].join(10.0)
            # A take still being transcribed is cancelled; its WAV stays and
            # recover_orphans() stores its text on the next start.
            self._cancel.set()
            self._takes.put(None)
            self._threads[1].join(10.0)
        self._threads.clear()
        self.mic.close()
        self._started = False

    # -- commands (any thread; they return at once) ----------------------------------

    def begin_take(self) -> None:
        self._post("begin")

    def end_take(self, reason: str = "stopped") -> None:
        self._post("end", reason)

    def toggle(self) -> None:
        self._post("toggle")

    def apply_settings(self, settings: DictationSettings) -> None:
        """Validate now (raises TingjiError), apply on the command thread."""
        settings.validate()
        self._post("settings", settings)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no take is recording, queued or being processed (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._recording or self._busy or self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    # -- hotkey -------------------------------------------------------------------------

    def _start_hotkey(self) -> None:
        try:
            hk = GlobalHotkey(self.settings.hotkey, on_activate=self._hotkey_down,
                              on_deactivate=self._hotkey_up, on_arm=self._hotkey_arm)
        except HotkeyError as exc:
            self.hotkey_unavailable = str(exc)
            self._emit(DictationEvent("hotkey", str(exc)))
            return
        if hk.start():
            self.hotkey = hk
            self.hotkey_unavailable = None
            self._emit(DictationEvent("hotkey", ""))
        else:
            self.hotkey_unavailable = hk.unavailable
            self._emit(DictationEvent("hotkey", hk.unavailable or "global hotkey unavailable"))

    def _hotkey_down(self) -> None:
        self._post("begin" if self.settings.mode == "hold" else "toggle")

    def _hotkey_up(self) -> None:
        if self.settings.mode == "hold":
            self._post("end", "key released")

    def _hotkey_arm(self, armed: bool) -> None:
        self._post("arm", armed)

    # -- command thread -------------------------------------------------------------------

    def _post(self, *cmd: Any) -> None:
        with self._cond:
            self._pending += 1
        self._commands.put(cmd)

    def _run_commands(self) -> None:
        while True:
            cmd = self._commands.get()
            try:
                if cmd[0] == "quit":
                    if self._recording:
                        self._end("closing")
                    return
                self._handle(cmd)
            except Exception as exc:  # noqa: BLE001 - a bug here must not stop dictation
                log.exception("dictation command %s", cmd[0])
                self._emit(DictationEvent("error", f"dictation: {exc}"))
            finally:
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()

    def _handle(self, cmd: tuple) -> None:
        kind = cmd[0]
        if kind == "begin":
            if not self._recording:
                self._begin()
        elif kind == "end":
            if self._recording:
                self._end(cmd[1])
        elif kind == "toggle":
            if self._recording:
                self._end("stopped")
            else:
                self._begin()
        elif kind == "segment":  # continuous mode: close this segment, keep listening
            if self._recording:
                quiet = bool(cmd[2]) if len(cmd) > 2 else False
                self._end(cmd[1], quiet=quiet, restart=True)
        elif kind == "arm":
            if not self._recording:
                self.mic.prepare(cmd[1])
        elif kind == "open":
            try:
                self.mic.open()
            except MicrophoneError as exc:
                self._emit(DictationEvent("error", str(exc)))
        elif kind == "mic_error":
            if self._recording:
                self._end("microphone error")
        elif kind == "settings":
            self._apply(cmd[1])

    def _begin(self, *, segment: bool = False) -> None:
        if not segment:
            self._segments = 0  # segments of this continuous-mode session
        self._live = _LiveVad(self.vad, self.settings)
        self._take_samples = 0
        self._end_requested = False
        self._recording = True
        try:
            self.mic.begin()
        except MicrophoneError as exc:
            self._recording = False
            self._live = None
            self._emit(DictationEvent("error", str(exc)))
            self._set_state()
            return
        self._set_state()

    def _end(self, reason: str, *, quiet: bool = False, restart: bool = False) -> None:
        ended_at, ended_wall = time.monotonic(), time.time()
        if self.settings.mode == "continuous":
            # Stopping after some utterances: the trailing pause is not worth a "nothing said" message.
            quiet = quiet or (self._segments > 0 and not restart)
            self._segments += 1
        audio = self.mic.end(tail_s=0.0 if reason in ("silence", "microphone error") else None)
        self._recording = False
        self._live = None
        with self._cond:
            self._busy += 1
        self._takes.put(_Finished(audio, ended_at, ended_wall, reason, quiet))
        if restart and audio.error is None:
            self._begin(segment=True)
        self._set_state()

    def _apply(self, new: DictationSettings) -> None:
        old, self.settings = self.settings, new
        self.output.mode = new.output
        self.output.restore_delay_s = new.restore_delay_s
        opts: dict[str, Any] = {"pre_roll_s": new.pre_roll_s, "keep_open": new.keep_mic_open}
        if new.device != old.device:
            opts["device"] = new.device
        self.mic.set_options(**opts)
        if self.use_hotkey and (new.hotkey != old.hotkey or self.hotkey is None):
            if self.hotkey is not None:
                self.hotkey.stop()
                self.hotkey = None
            self._start_hotkey()

    # -- microphone callbacks (microphone worker thread) ------------------------------------

    def _on_audio(self, block: np.ndarray) -> None:
        live = self._live
        if live is None or self._end_requested:
            return
        self._take_samples += len(block)
        s = self.settings
        if self._take_samples > s.max_take_s * RATE:
            self._request_end("maximum length")
            return
        if s.mode == "hold":
            return
        if live.feed(block):
            self._request_end("silence")
        elif not live.heard_speech and live.seconds >= s.no_speech_timeout_s > 0:
            self._request_end("no speech", quiet=s.mode == "continuous")

    def _request_end(self, reason: str, quiet: bool = False) -> None:
        self._end_requested = True
        if self.settings.mode == "continuous" and reason in ("silence", "no speech"):
            self._post("segment", reason, quiet)
        else:
            self._post("end", reason)

    def _on_mic_error(self, message: str) -> None:
        self._emit(DictationEvent("error", message))
        self._post("mic_error")

    # -- take worker ----------------------------------------------------------------------

    def _run_takes(self) -> None:
        while True:
            item = self._takes.get()
            if item is None:
                return
            try:
                if isinstance(item, tuple) and item[0] == "recover":
                    self.recover_orphans()
                elif isinstance(item, _Finished):
                    self._set_state()
                    self._process(item)
            except Cancelled:
                pass
            except Exception as exc:  # noqa: BLE001 - report, keep the WAV, keep running
                log.exception("dictation take")
                self._emit(DictationEvent("error", f"dictation failed: {exc}"))
            finally:
                if isinstance(item, _Finished):
                    with self._cond:
                        self._busy -= 1
                        self._cond.notify_all()
                self._set_state()

    def _process(self, f: _Finished) -> None:
        import soundfile as sf

        s = self.settings
        samples = f.audio.samples
        timings: dict[str, float] = {}
        if len(samples) < int(0.1 * RATE):
            if not f.quiet:
                self._emit(DictationEvent("empty", "nothing was recorded"))
            return
        # 1. The WAV first: from here on the take survives a crash.
        wav = self.history.new_recording_path()
        sf.write(str(wav), samples, RATE, subtype="PCM_16")
        samples = sf.read(str(wav), dtype="float32")[0]
        # 2. Silence-only takes (an accidental press) produce nothing.
        t0 = time.monotonic()
        probs = VadStream(self.vad).feed(samples)
        spans = speech_spans(probs, SpeechParams(threshold=s.vad_threshold,
                                                 neg_threshold=max(0.05, s.vad_threshold - 0.15)))
        timings["vad_s"] = time.monotonic() - t0
        if not spans:
            wav.unlink(missing_ok=True)
            if not f.quiet:
                self._emit(DictationEvent("empty", "no speech heard" if f.audio.error is None else f.audio.error))
            return
        # 3. Transcribe exactly what is kept.
        t0 = time.monotonic()
        # Live lane: a file being transcribed meanwhile pauses instead of making the user wait.
        transcript = self.engine.transcribe(samples, language=s.language, hotwords=tuple(s.hotwords),
                                            itn=s.itn, cancel=self._cancel, priority=True)
        timings["transcribe_s"] = time.monotonic() - t0
        text = transcript.text.strip()
        if not text:
            wav.unlink(missing_ok=True)
            if not f.quiet:
                self._emit(DictationEvent("empty", "no words recognised"))
            return
        # 4. Commit the text with its recording.
        take = DictationTake(text=text, duration_s=len(samples) / RATE, recording=wav.name, created=f.ended_wall,
                             language=getattr(transcript, "language", None) or s.language, model=self.model_name,
                             error=f.audio.error)
        self.history.add(take)
        # 5. Insert into the focused application.
        if self.hotkey is not None:
            # Hold mode: modifiers still down would turn Ctrl+V into Ctrl+Alt+V.
            self.hotkey.matcher.wait_modifiers_released(1.0)
        self.output.last_sent = None
        try:
            take.output = self.output.insert(text)
        except TingjiError as exc:
            take.output = "failed"
            take.error = f"{exc} (the text is in the dictation history)"
            self._emit(DictationEvent("error", take.error))
        # Latency is measured to the moment the text was sent (the paste key),
        # not to the end of the clipboard-restore wait that follows it.
        sent = getattr(self.output, "last_sent", None) or time.monotonic()
        take.latency_s = sent - f.ended_at
        timings["end_to_text_s"] = take.latency_s
        # Speech ended before the take did (toggle mode waits `silence_s`).
        speech_end = spans[-1][1]
        timings["speech_end_to_text_s"] = take.latency_s + max(0.0, len(samples) / RATE - speech_end)
        self.history.update(take)
        # 6. Only now may old recordings go.
        self.history.apply_retention(s.keep_recordings)
        self._emit(DictationEvent("take", take=take, timings=timings))

    def recover_orphans(self) -> int:
        """Transcribe WAVs left without a history row by a crash; returns how many were stored."""
        import soundfile as sf

        stored = 0
        for wav in self.history.orphan_recordings():
            try:
                samples = sf.read(str(wav), dtype="float32")[0]
                text = self.engine.transcribe(samples, language=self.settings.language,
                                              hotwords=tuple(self.settings.hotwords), itn=self.settings.itn,
                                              cancel=self._cancel).text.strip()
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - an unreadable leftover must not block startup
                log.warning("cannot recover %s: %s", wav, exc)
                continue
            if not text:
                wav.unlink(missing_ok=True)
                continue
            take = DictationTake(text=text, duration_s=len(samples) / RATE, recording=wav.name,
                                 created=wav.stat().st_mtime, model=self.model_name, output="none",
                                 error="recovered after the app stopped; not inserted")
            self.history.add(take)
            stored += 1
            self._emit(DictationEvent("take", take=take))
        return stored

    # -- events -----------------------------------------------------------------------------

    def _set_state(self) -> None:
        with self._cond:
            state = "listening" if self._recording else ("transcribing" if self._busy else "idle")
            changed = state != self.state
            self.state = state
        if changed:
            self._emit(DictationEvent("state", state=state))

    def _emit(self, event: DictationEvent) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:  # noqa: BLE001 - a broken listener must not stop dictation
            log.exception("dictation event listener")
