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
The live VAD runs on the microphone's worker thread (it is cheap: vad.SileroVad),
in recording.TakeRecorder, which also ends a take the audio asks to end.

What happens to a finished take (nothing dictated is lost) is takes.py; the
WAVs a crash leaves behind are recovery.py. Which command is legal in which
state, and the state it leads to, is coordinator.py's table: this module
queues the commands (commands.py), feeds them to the coordinator on the
command thread and runs the action each legal one names.

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
from typing import Any

from ..engine.options import TranscribeOptions
from ..engine.vad import SileroVad
from ..errors import TingjiError
from . import commands, messages
from .capture import Microphone
from .commands import Command, Trigger
from .coordinator import Action, DictationCoordinator, Rule
from .devices import MicrophoneError
from .engine_api import DictationEngine
from .events import DictationEvent, HotkeyStatus, PreviewModelChanged, PreviewText, Problem, StateChanged
from .global_hotkey import GlobalHotkey
from .history import DictationHistory
from .hotkey import HotkeyError
from .output import Clipboard, KeySender, TextOutput
from .preview import LivePreview, PreviewChoice, PreviewModel
from .recording import AudioInput, TakeRecorder
from .recovery import recover_orphans
from .settings import DictationSettings
from .states import DictationState
from .takes import FinishedTake, TakeWorker, process_take, reason_of

__all__ = ["DictationController"]

log = logging.getLogger(__name__)

# Why a take ended, for the commands that end one without saying (takes.py keeps no tail after an error).
_END_REASONS = {Trigger.TOGGLE: "stopped", Trigger.MIC_LOST: "microphone error", Trigger.QUIT: "closing"}


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
        self.mic.on_error = self._on_mic_error
        self.use_hotkey = use_hotkey
        self.hotkey: GlobalHotkey | None = None
        self.hotkey_unavailable: HotkeyError | None = None
        self._make_parts(engine, preview_model)

    def _make_parts(self, engine: DictationEngine, preview_model: PreviewModel | None) -> None:
        """The state machine, the preview, the recorder, the threads' queues."""
        self.coordinator = DictationCoordinator()  # the state and the legal transitions
        self._shown = self.coordinator.state  # the state the last StateChanged said
        self.preview_model = preview_model if preview_model is not None else PreviewModel(self.model_name)
        self.preview_model.on_change = self._on_preview_model
        self.preview = LivePreview(engine.live, self.options, self._on_preview, model=self.preview_model)
        self.recorder = TakeRecorder(
            self.mic,
            self.vad,
            self.preview,
            settings=lambda: self.settings,
            options=lambda: self.options,
            post=self._post,
            emit=self._emit,
        )
        self._commands: queue.SimpleQueue[Command] = queue.SimpleQueue()
        self._takes = TakeWorker(self._process, self.recover_orphans, self._take_done, self._emit)
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
        self._feed(commands.Start())  # a controller closed before is a session again
        self._publish()
        for target, name in ((self._run_commands, "tingji-dictation"), (self._takes.run, "tingji-dictation-takes")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        if self.use_hotkey:
            self._start_hotkey()
        if self.settings.keep_mic_open:
            self._post(commands.OpenMicrophone())
        if recover:
            self._takes.recover()

    def close(self) -> None:
        """Stop listening, finish nothing new, and release the devices."""
        if self.hotkey is not None:
            self.hotkey.stop()
            self.hotkey = None
        if self._threads:
            self._post(commands.Quit())  # ends a running take: it is queued like any other
            self._threads[0].join(10.0)
            # A take still being transcribed is cancelled; its WAV stays and
            # recover_orphans() stores its text on the next start.
            self._cancel.set()
            self._takes.stop()
            self._threads[1].join(10.0)
        self.preview.end()
        self.preview_model.close()  # the faster preview model, if one was loaded
        self._threads.clear()
        self.mic.close()
        self._started = False

    # -- commands (any thread; they return at once) ----------------------------------

    @property
    def state(self) -> DictationState:
        """The session's state now (the coordinator's)."""
        return self.coordinator.state

    @property
    def level(self) -> float:
        """RMS of the last block the take received (a level meter polls it; 0 between takes)."""
        return self.recorder.level

    def begin_take(self) -> None:
        self._post(commands.BeginTake())

    def end_take(self, reason: str = "stopped") -> None:
        self._post(commands.EndTake(reason))

    def toggle(self) -> None:
        self._post(commands.ToggleTake())

    def apply_settings(self, settings: DictationSettings) -> None:
        """Validate now (raises TingjiError), apply on the command thread."""
        settings.validate()
        self._post(commands.ApplySettings(settings))

    def apply_options(self, options: TranscribeOptions) -> None:
        """Recognise the next take with these options (a take being transcribed keeps its own)."""
        self.options = options

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no take is recording, queued or being processed (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.coordinator.busy or self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    # -- hotkey -------------------------------------------------------------------------

    def _start_hotkey(self) -> None:
        problem: HotkeyError | None
        try:
            hk: GlobalHotkey | None = GlobalHotkey(
                self.settings.hotkey,
                on_activate=self._hotkey_down,
                on_deactivate=self._hotkey_up,
                on_arm=self._hotkey_arm,
            )
        except HotkeyError as exc:
            hk, problem = None, exc
        else:
            problem = None if hk.start() else hk.unavailable  # set whenever start() fails
        self.hotkey, self.hotkey_unavailable = (hk if problem is None else None), problem
        self._emit(HotkeyStatus(problem))

    def _hotkey_down(self) -> None:
        self._post(commands.BeginTake() if self.settings.mode == "hold" else commands.ToggleTake())

    def _hotkey_up(self) -> None:
        if self.settings.mode == "hold":
            self._post(commands.EndTake("key released"))

    def _hotkey_arm(self, armed: bool) -> None:
        self._post(commands.ArmMicrophone(armed))

    # -- command thread -------------------------------------------------------------------

    def _post(self, command: Command) -> None:
        with self._cond:
            self._pending += 1
        self._commands.put(command)

    def _run_commands(self) -> None:
        while True:
            command = self._commands.get()
            try:
                self._handle(command)
            except Exception as exc:  # noqa: BLE001 - a bug here must not stop dictation
                log.exception("dictation command %s", command.trigger.value)
                self._emit(Problem(TingjiError(messages.COMMAND_FAILED, reason=reason_of(exc))))
            finally:
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()
            if command.trigger is Trigger.QUIT:
                return

    def _feed(self, command: Command) -> Rule | None:
        """The coordinator takes `command` (None: refused, a stale command) and waiters hear of it."""
        with self._cond:
            rule = self.coordinator.feed(command)
            self._cond.notify_all()
        return rule

    def _handle(self, command: Command) -> None:
        """Run what the coordinator's table says `command` does now; then say the state, if it changed."""
        rule = self._feed(command)
        if rule is None:
            return
        action = rule.action
        if action is Action.BEGIN:
            self._begin()
        elif action is Action.END:
            self._end(command.reason if isinstance(command, commands.EndTake) else _END_REASONS[command.trigger])
        elif action is Action.SEGMENT and isinstance(command, commands.EndSegment):
            self._end(command.reason, quiet=command.quiet, restart=True)
        elif action is Action.PREPARE and isinstance(command, commands.ArmMicrophone):
            self.mic.prepare(command.armed)
        elif action is Action.OPEN:
            try:
                self.mic.open()
            except MicrophoneError as exc:
                self._emit(Problem(exc))
        elif action is Action.APPLY and isinstance(command, commands.ApplySettings):
            self._apply(command.settings)
        self._publish()

    def _begin(self) -> None:
        """Start a take (the coordinator is LISTENING already); a microphone that fails is BeginFailed."""
        if not self.recorder.begin():
            self._feed(commands.BeginFailed())

    def _end(self, reason: str, *, quiet: bool = False, restart: bool = False) -> None:
        """End the take and queue it (the coordinator counted it); `restart`: the next segment begins."""
        take = self.recorder.end(reason, quiet=quiet, restart=restart)
        self._takes.put(take)
        if restart and not (take.audio.error is None and self.recorder.begin(segment=True)):
            self._feed(commands.BeginFailed())  # the microphone failed: no next segment

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

    # -- callbacks (the microphone's and the preview's threads) ------------------------------

    def _on_mic_error(self, error: MicrophoneError) -> None:
        self._emit(Problem(error))
        self._post(commands.MicrophoneLost())

    def _on_preview(self, text: str, seconds: float) -> None:
        self._emit(PreviewText(text, seconds))

    def _on_preview_model(self, choice: PreviewChoice) -> None:
        self._emit(PreviewModelChanged(choice))

    # -- take worker ----------------------------------------------------------------------

    def _take_done(self) -> None:
        """A take was processed (or failed, or was cancelled): the coordinator counts it off."""
        self._feed(commands.TakeDone())
        if self.state is DictationState.IDLE and self.settings.preview:
            self.preview_model.prepare(self.options)  # a faster preview model loads between takes
        self._publish()

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

    def _publish(self) -> None:
        """A StateChanged when the state differs from the one last said (both threads call this)."""
        with self._cond:
            state, changed = self.coordinator.state, self.coordinator.state is not self._shown
            self._shown = state
        if changed:
            self._emit(StateChanged(state))

    def _emit(self, event: DictationEvent) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:  # noqa: BLE001 - a broken listener must not stop dictation
            log.exception("dictation event listener")
