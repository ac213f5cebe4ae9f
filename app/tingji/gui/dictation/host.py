"""Dictation inside the desktop app: one DictationController on the dictation model's Engine.

Dictation runs on the model chosen for it (EngineHost's "dictation" use). When
that is the files model too, the Engine is shared: a second one would load
the model twice (memory, and seconds of warm-up), and the engine's live lane
lets a dictation take run while a file is transcribed (the file pauses
between decode steps). Another model is an Engine of its own.

Life cycle, driven by `EngineHost` (gui/engine_host.py):
  * dictation's engine READY -> a DictationController is made on an
    `OnDemandEngine` holding `loaded.engine` and started (global hotkey,
    microphone when "keep open" is on); starting the hotkey can take
    seconds, so it runs on a worker thread;
  * `releasing` of that engine (model reload, another model chosen,
    quitting) -> the controller is closed *before* the engine thread closes
    the engine it uses;
  * idle unload -> the controller stays (the hotkey works); only the engine
    is taken from it. A take then loads the model again: at once when it
    starts, so the load overlaps the speaking, and the take waits for it;
  * model missing or failed -> no controller; the page says dictation waits
    for a model, the history can still be browsed.

Settings: the DictationSettings live in the app's settings.json (its
`dictation` object, parsed by gui/settings.py); how a take is recognised
(language, hotwords, ...) is the app's `Settings.transcribe_options()`, so
dictation and files recognise the same way.

While a take records, the host shows the floating overlay (overlay.py; not on
Wayland, where the tray alone shows the state) and plays the start/stop cues
when the user has them on. The live preview runs on the dictation model, or on
an installed SenseVoice-Small when the controller measures the dictation model
too slow for it (preview_source.py finds that model; the settings box names the
model that previews, after each `preview_model` event); the faster model is
unloaded with the dictation engine, idle unload included.

The host also sums up what dictation is doing for the status bar and tray:
`state` is a DictationState (OFF while no controller runs: it waits for the model), and
`hotkey_problem` says why the global hotkey does not work, if it does not
(an error: the window shows it in the UI language).
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot

from ...dictation import messages
from ...dictation.controller import DictationController
from ...dictation.cues import play_cue
from ...dictation.events import (
    DictationEvent,
    HotkeyStatus,
    PreviewModelChanged,
    Problem,
    StateChanged,
    TakeBegun,
)
from ...dictation.preview import INTERVAL_S, PreviewChoice, PreviewModel
from ...dictation.recording import AudioInput
from ...dictation.settings import DictationSettings
from ...dictation.states import DictationState
from ...errors import TingjiError
from ..engine_host import EngineHost, EngineState, ModelEngine
from ..settings import Settings
from ..threads import start_worker, stop_threads
from .on_demand import OnDemandEngine
from .overlay import DictationOverlay, overlay_supported
from .panel import DictationPanel
from .preview_source import faster_preview_model, preview_model_text
from .qt_clipboard import QtClipboard

log = logging.getLogger(__name__)

START_TIMEOUT_S = 10.0


class _Starter(QObject):
    """Starts controllers (global hotkey, microphone) off the GUI thread; `done` is set after each."""

    @Slot(object, object)
    def start(self, controller: DictationController, done: threading.Event) -> None:
        try:
            controller.start()
        finally:
            done.set()


class DictationHost(QObject):
    """Makes, restarts and closes the app's DictationController; reports its state."""

    stateChanged = Signal()  # read `state`, `hotkey_problem`
    problem = Signal(object)  # a dictation error (a TingjiError) worth a status-bar message
    settingsChanged = Signal(object)  # the panel changed a DictationSettings (`settings` has it): save it

    _start = Signal(object, object)  # controller, threading.Event -> the starter's thread
    _loadWanted = Signal()  # from a take's thread: the model was unloaded and a take needs it

    def __init__(
        self,
        engine: EngineHost,
        panel: DictationPanel,
        settings: Settings,
        *,
        microphone: Callable[[DictationSettings], AudioInput] | None = None,
        use_hotkey: bool = True,
        parent: QObject | None = None,
    ) -> None:
        """`microphone` builds the microphone from DictationSettings (tests; default: the real
        device); `use_hotkey=False` leaves the global hotkey off."""
        super().__init__(parent)
        self.engine = engine
        self.panel = panel
        self.settings = settings
        self.controller: DictationController | None = None
        self.engine_handle: OnDemandEngine | None = None  # what the controller uses as its engine
        self.state = DictationState.OFF
        self.hotkey_problem: TingjiError | None = None
        self._make_microphone = microphone
        self._use_hotkey = use_hotkey
        self._clipboard = QtClipboard(parent=self)
        self.overlay: DictationOverlay | None = (
            DictationOverlay(self._level, settings.dictation.overlay) if overlay_supported() else None
        )
        self._started = threading.Event()  # set once the current controller's start() returned
        self._starter = _Starter()
        self._start.connect(self._starter.start)
        self._starter_thread = start_worker(self._starter, "tingji-dictation-start")
        engine.stateChanged.connect(self._engine_changed)
        engine.stateChanged.connect(self.show_model)
        engine.releasing.connect(self._on_releasing)
        self._loadWanted.connect(self._load_for_a_take)
        panel.bridge.event.connect(self._on_event)
        panel.settingsChanged.connect(self._panel_settings_changed)
        panel.form.show_overlay_unsupported(self.overlay is None)

    # -- life cycle ------------------------------------------------------------------------

    @Slot()
    def _engine_changed(self) -> None:
        engine = self.engine
        state, loaded, handle = engine.state_of("dictation"), engine.loaded_of("dictation"), self.engine_handle
        waiting = self.controller is not None and handle is not None and handle.current is None
        same_model = handle is not None and loaded is not None and handle.model_path == loaded.path
        if (
            waiting
            and (state is EngineState.UNLOADED or state is EngineState.LOADING)
            and self._model_path() == (handle.model_path if handle is not None else None)
        ):
            return  # unloaded while idle, or loading again: the hotkey keeps working, a take waits
        if loaded is None or state is not EngineState.READY:
            self.stop()
            return
        if handle is not None and handle.current is loaded.engine:
            return
        if waiting and same_model and handle is not None:
            handle.attach(loaded.engine)  # the same model back after an idle unload: same controller
            return
        self.stop()
        settings = self.settings.dictation
        handle = OnDemandEngine(loaded.engine, loaded.path, self._loadWanted.emit)
        try:
            faster = faster_preview_model(
                loaded.engine.family, loaded.path, self.settings.provider, self.settings.device
            )
            controller = DictationController(
                handle,
                settings,
                self.settings.transcribe_options(),
                clipboard=self._clipboard,
                history=self.panel.history,
                microphone=self._make_microphone(settings) if self._make_microphone else None,
                on_event=self.panel.bridge.post,
                use_hotkey=self._use_hotkey,
                preview_model=PreviewModel(handle.model_name, faster),
            )
        except Exception as exc:  # noqa: BLE001 - dictation must never keep the app from running
            log.exception("dictation could not start")
            self.problem.emit(
                TingjiError(messages.COMMAND_FAILED, reason=exc if isinstance(exc, TingjiError) else str(exc))
            )
            return
        self.controller, self.engine_handle = controller, handle
        self._clipboard.resume()
        self.panel.attach(controller)
        self._set_state(controller.state)
        self._started = threading.Event()
        self._start.emit(controller, self._started)
        self.show_model()

    def show_model(self) -> None:
        """The page names dictation's model (again after a language switch: the window calls this), and
        the model the live preview runs on."""
        self.panel.model_label.setText(dictation_page_text(self.engine))
        self.panel.form.preview_note.setText(preview_model_text(self._preview_choice()))

    def _preview_choice(self) -> PreviewChoice | None:
        """The running controller's preview model choice; before one runs, the dictation model, not measured."""
        if self.controller is not None:
            return self.controller.preview_model.choice
        choice = self.engine.choice_of("dictation")
        if choice is None or not choice.name:
            return None
        return PreviewChoice("unmeasured", choice.name, None, None, INTERVAL_S)

    def _model_path(self) -> str | None:
        """The model folder dictation's use runs now (loaded or not), as LoadedModel.path says it."""
        choice = self.engine.choice_of("dictation")
        return str(choice.path) if choice is not None and choice.path is not None else None

    @Slot(object)
    def _on_releasing(self, engine: ModelEngine) -> None:
        """An engine is about to be closed. Not dictation's: nothing to do. Idle unload: keep the
        controller (hotkey, microphone) and only take the engine from it; anything else (a reload,
        another model chosen, quitting): close the controller."""
        handle = self.engine_handle
        if handle is None or handle.model_path != engine.path:
            return
        if engine.state is EngineState.UNLOADED:
            handle.detach()  # returns once no take is transcribing on it
            if self.controller is not None:
                self.controller.preview_model.unload()  # the faster preview model goes with the dictation model
        else:
            self.stop()

    @Slot()
    def _load_for_a_take(self) -> None:
        if self.controller is not None:
            self.engine.ensure_loaded("dictation")

    @Slot()
    def stop(self) -> None:
        """Close the controller (hotkey, microphone, threads). Blocks briefly; safe to call twice."""
        controller, self.controller = self.controller, None
        handle, self.engine_handle = self.engine_handle, None
        self.engine.let_go("dictation")
        if controller is None or handle is None:
            return
        self.panel.detach()
        if not self._started.wait(START_TIMEOUT_S):  # closing while start() runs would race it
            log.warning("dictation did not finish starting in %.0f s", START_TIMEOUT_S)
        self._clipboard.interrupt()  # a paste waiting for this (blocked) thread fails at once
        handle.close()  # a take waiting for the model to load again ends (its WAV stays)
        try:
            controller.close()
        except Exception:  # noqa: BLE001
            log.exception("closing dictation")
        handle.detach()  # and nothing still transcribes on the engine when this returns
        self._set_state(DictationState.OFF)
        if self.overlay is not None:
            self.overlay.on_event(StateChanged(DictationState.OFF))

    def shutdown(self) -> None:
        """The app is ending: close the controller and end the starter's thread."""
        self.stop()
        stop_threads([self._starter_thread])
        if self.overlay is not None:
            self.overlay.close()
            self.overlay.deleteLater()
            self.overlay = None

    def _level(self) -> float:
        controller = self.controller
        return controller.level if controller is not None else 0.0

    def apply_settings(self, settings: Settings) -> None:
        """The app's settings changed (language, hotwords, or the dictation part)."""
        self.settings = settings
        new = settings.dictation
        self.panel.settings = new  # the panel's next edit starts from these
        if self.overlay is not None:
            self.overlay.set_position(new.overlay)
        if self.controller is not None:
            if new != self.controller.settings:
                self.controller.apply_settings(new)
            self.controller.apply_options(settings.transcribe_options())

    def _panel_settings_changed(self, dictation: DictationSettings) -> None:
        """The page changed a setting (the controller has it already): the app's settings hold it from now."""
        self.settings = replace(self.settings, dictation=replace(dictation))
        if self.overlay is not None:
            self.overlay.set_position(dictation.overlay)
        self.settingsChanged.emit(dictation)

    # -- events ------------------------------------------------------------------------------

    @Slot(object)
    def _on_event(self, event: DictationEvent) -> None:
        if self.controller is None:
            return  # the last events of a controller being closed
        if self.overlay is not None:
            self.overlay.on_event(event)
        self._cue(event)
        match event:
            case StateChanged(state=state):
                self._set_state(state)
            case HotkeyStatus(error=error):
                self.hotkey_problem = error
                self.stateChanged.emit()
            case Problem(error=error):  # a take not inserted is one too
                self.problem.emit(error)
            case PreviewModelChanged():
                self.show_model()

    def _cue(self, event: DictationEvent) -> None:
        """The start/stop sounds, when the user has them on (off by default)."""
        if not self.settings.dictation.sounds:
            return
        listening = DictationState.LISTENING
        if isinstance(event, TakeBegun):
            play_cue("start")
        elif isinstance(event, StateChanged) and self.state is listening and event.state is not listening:
            play_cue("stop")

    def _set_state(self, state: DictationState) -> None:
        self.state = state
        if state in (DictationState.LISTENING, DictationState.TRANSCRIBING) and self.controller is not None:
            self.engine.hold("dictation")  # not idle while a take is recorded or transcribed
            self.engine.ensure_loaded("dictation")  # unloaded: it loads while the user speaks
        else:
            self.engine.let_go("dictation")
        self.stateChanged.emit()

    @property
    def running(self) -> bool:
        return self.controller is not None


def dictation_page_text(host: EngineHost) -> str:
    """The Dictation page's line naming its model, with a link to change it (rich text)."""
    names = {use: c.name if (c := host.choice_of(use)) is not None else "" for use in ("files", "dictation")}
    name = html.escape(names["dictation"])
    if not name:
        line = QCoreApplication.translate("ModelUse", "Dictation model: none installed yet.")
    elif host.shared():
        line = QCoreApplication.translate("ModelUse", "Dictation model: <b>{0}</b>, the same as for files.").format(
            name
        )
    else:
        line = QCoreApplication.translate("ModelUse", "Dictation model: <b>{0}</b> (files use {1}).").format(
            name, html.escape(names["files"]) or QCoreApplication.translate("ModelUse", "no model")
        )
    change = QCoreApplication.translate("ModelUse", "Change…")
    return f'{line} <a href="models">{html.escape(change)}</a>'
