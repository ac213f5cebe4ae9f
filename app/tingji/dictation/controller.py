"""Dictation: hotkey -> microphone -> VAD -> engine -> focused app -> history.

    controller = DictationController(engine, DictationSettings(hotkey="ctrl+alt+space"),
                                     TranscribeOptions(language="zh"), clipboard=my_clipboard, on_event=print)
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
The live VAD runs on the microphone's worker thread (it is cheap: vad.SileroVad).

What happens to a finished take, in which order (nothing dictated is lost),
is takes.py; the WAVs a crash leaves behind are recovery.py. This module is
the take state machine: commands, the microphone, when a take begins and ends.
The settings are settings.py, the events events.py.

Everything the user should see arrives as a `DictationEvent` through the
`on_event` callback, from whatever thread produced it: a GUI must forward it
to its own thread (tingji.gui.dictation.panel.DictationBridge does).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from ..engine.options import TranscribeOptions
from ..engine.vad import SileroVad
from ..errors import Cancelled, TingjiError
from . import messages
from .capture import Microphone, TakeAudio
from .devices import MicrophoneError
from .events import DictationEvent
from .global_hotkey import GlobalHotkey
from .history import DictationHistory
from .hotkey import HotkeyError
from .live_vad import LiveVad
from .output import Clipboard, KeySender, TextOutput
from .preview import LivePreview, PreviewChoice, PreviewModel
from .recovery import recover_orphans
from .resample import RATE
from .settings import DictationSettings
from .takes import DictationEngine, FinishedTake, process_take

__all__ = ["STATES", "AudioInput", "DictationController"]

log = logging.getLogger(__name__)

STATES = ("idle", "listening", "transcribing")


class AudioInput(Protocol):
    """What the controller needs from capture.Microphone (tests substitute a fake)."""

    on_audio: Callable[[np.ndarray], None] | None
    on_error: Callable[[MicrophoneError], None] | None

    def open(self) -> None: ...

    def prepare(self, armed: bool = True) -> None: ...

    def begin(self) -> None: ...

    def end(self, tail_s: float | None = None) -> TakeAudio: ...

    def set_options(self, **kwargs: Any) -> None: ...

    def close(self) -> None: ...


class DictationController:
    """Owns a dictation session: the hotkey, the microphone, the take pipeline."""

    def __init__(
        self,
        engine: DictationEngine,
        settings: DictationSettings | None = None,
        options: TranscribeOptions | None = None,
        *,
        clipboard: Clipboard | None = None,
        keys: KeySender | None = None,
        output: TextOutput | None = None,
        history: DictationHistory | None = None,
        microphone: AudioInput | None = None,
        vad: SileroVad | None = None,
        on_event: Callable[[DictationEvent], None] | None = None,
        use_hotkey: bool = True,
        model_name: str | None = None,
        preview_model: PreviewModel | None = None,
    ) -> None:
        """`preview_model` picks the model the live preview runs on (preview.py's rule; its `on_change` is
        the controller's); None: the dictation model, measured, with no faster model to fall back on."""
        self.settings = (settings or DictationSettings()).validate()
        self.options = options or TranscribeOptions()  # how takes are recognised: read once per take
        s = self.settings
        self.engine = engine
        self.model_name = model_name or engine.model_name
        self.on_event = on_event
        self.history = history if history is not None else DictationHistory()
        self.output = (
            output
            if output is not None
            else TextOutput(clipboard, keys, mode=s.output, restore_delay_s=s.restore_delay_s)
        )
        self.vad = vad if vad is not None else engine.vad
        self.mic: AudioInput = (
            microphone
            if microphone is not None
            else Microphone(s.device, pre_roll_s=s.pre_roll_s, keep_open=s.keep_mic_open)
        )
        self.mic.on_audio = self._on_audio
        self.mic.on_error = self._on_mic_error
        self.use_hotkey = use_hotkey
        self.hotkey: GlobalHotkey | None = None
        self.hotkey_unavailable: HotkeyError | None = None

        self.state = "idle"
        self.level = 0.0  # RMS of the last block the take received (a level meter polls it)
        self.preview_model = preview_model if preview_model is not None else PreviewModel(self.model_name)
        self.preview_model.on_change = self._on_preview_model
        self.preview = LivePreview(engine.live, self.options, self._on_preview, model=self.preview_model)
        self._recording = False
        self._live: LiveVad | None = None
        self._take_samples = 0
        self._segments = 0
        self._end_requested = False
        self._commands: queue.SimpleQueue[tuple] = queue.SimpleQueue()
        self._takes: queue.SimpleQueue[FinishedTake | tuple | None] = queue.SimpleQueue()
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
        self.preview.end()
        self.preview_model.close()  # the faster preview model, if one was loaded
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

    def apply_options(self, options: TranscribeOptions) -> None:
        """Recognise the next take with these options (a take being transcribed keeps its own)."""
        self.options = options

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
            hk = GlobalHotkey(
                self.settings.hotkey,
                on_activate=self._hotkey_down,
                on_deactivate=self._hotkey_up,
                on_arm=self._hotkey_arm,
            )
        except HotkeyError as exc:
            self.hotkey_unavailable = exc
            self._emit(DictationEvent.problem("hotkey", exc))
            return
        if hk.start():
            self.hotkey = hk
            self.hotkey_unavailable = None
            self._emit(DictationEvent.problem("hotkey", None))
        else:
            self.hotkey_unavailable = hk.unavailable  # set whenever start() fails
            self._emit(DictationEvent.problem("hotkey", hk.unavailable))

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
                self._emit(DictationEvent.problem("error", TingjiError(messages.COMMAND_FAILED, reason=_reason(exc))))
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
                self._emit(DictationEvent.problem("error", exc))
        elif kind == "mic_error":
            if self._recording:
                self._end("microphone error")
        elif kind == "settings":
            self._apply(cmd[1])

    def _begin(self, *, segment: bool = False) -> None:
        if not segment:
            self._segments = 0  # segments of this continuous-mode session
            self._emit(DictationEvent("begin"))  # before the microphone opens, which may take 100+ ms
        self._live = LiveVad(self.vad, self.settings)
        self._take_samples = 0
        self._end_requested = False
        self._recording = True
        try:
            self.mic.begin()
        except MicrophoneError as exc:
            self._recording = False
            self._live = None
            self._emit(DictationEvent.problem("error", exc))
            self._set_state()
            return
        if self.settings.preview:
            self.preview.options = self.options
            self.preview.begin()
        self._set_state()

    def _end(self, reason: str, *, quiet: bool = False, restart: bool = False) -> None:
        ended_at, ended_wall = time.monotonic(), time.time()
        if self.settings.mode == "continuous":
            # Stopping after some utterances: the trailing pause is not worth a "nothing said" message.
            quiet = quiet or (self._segments > 0 and not restart)
            self._segments += 1
        self.preview.end()  # a preview in flight is cancelled: the final take runs at once
        audio = self.mic.end(tail_s=0.0 if reason in ("silence", "microphone error") else None)
        self._recording = False
        self._live = None
        self.level = 0.0
        with self._cond:
            self._busy += 1
        self._takes.put(FinishedTake(audio, ended_at, ended_wall, reason, quiet))
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
        if old.preview and not new.preview:
            self.preview_model.unload()  # a faster preview model is memory only the preview needs
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
        self.level = float(np.sqrt(np.mean(block * block))) if len(block) else 0.0
        if self.settings.preview:
            self.preview.feed(block)
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

    def _on_mic_error(self, error: MicrophoneError) -> None:
        self._emit(DictationEvent.problem("error", error))
        self._post("mic_error")

    def _on_preview(self, text: str, seconds: float) -> None:
        self._emit(DictationEvent("preview", text=text, timings={"run_s": seconds}))

    def _on_preview_model(self, choice: PreviewChoice) -> None:
        self._emit(DictationEvent("preview_model", preview=choice))

    # -- take worker ----------------------------------------------------------------------

    def _run_takes(self) -> None:
        while True:
            item = self._takes.get()
            if item is None:
                return
            try:
                if isinstance(item, tuple) and item[0] == "recover":
                    self.recover_orphans()
                elif isinstance(item, FinishedTake):
                    self._set_state()
                    self._process(item)
            except Cancelled:
                pass
            except Exception as exc:  # noqa: BLE001 - report, keep the WAV, keep running
                log.exception("dictation take")
                self._emit(DictationEvent.problem("error", TingjiError(messages.TAKE_FAILED, reason=_reason(exc))))
            finally:
                if isinstance(item, FinishedTake):
                    with self._cond:
                        self._busy -= 1
                        idle = not (self._busy or self._recording)
                        self._cond.notify_all()
                    if idle and self.settings.preview:
                        self.preview_model.prepare(self.options)  # a faster preview model loads between takes
                self._set_state()

    def _process(self, f: FinishedTake) -> None:
        process_take(
            f,
            self.settings,
            self.options,
            engine=self.engine.live,
            vad=self.vad,
            history=self.history,
            output=self.output,
            hotkey=lambda: self.hotkey,
            model_name=self.model_name,
            cancel=self._cancel,
            emit=self._emit,
        )

    def recover_orphans(self) -> int:
        """Transcribe WAVs left without a history row by a crash; returns how many were stored."""
        return recover_orphans(
            self.engine.live,
            self.history,
            lambda: self.options,
            model_name=self.model_name,
            cancel=self._cancel,
            emit=self._emit,
        )

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


def _reason(exc: Exception) -> TingjiError | str:
    """An error of ours stays one (a UI translates it); anything else is a bug, said as Python says it."""
    return exc if isinstance(exc, TingjiError) else str(exc)
