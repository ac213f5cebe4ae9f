"""Dictation inside the desktop app: one DictationController on the queue's own Engine.

Why share the engine: a second Engine would load the model twice (memory,
and seconds of warm-up). The engine's priority lane lets a dictation take run
while a file is transcribed; the file pauses between decode steps.

Life cycle, driven by the queue controller's engine signals:
  * engine READY -> a DictationController is made on that Engine object and
    started (global hotkey, microphone when "keep open" is on);
  * `engineReleasing` (model reload, quitting) -> the controller is closed
    *before* the engine thread closes the engine it uses;
  * model missing or failed -> no controller; the page says dictation waits
    for a model, the history can still be browsed.

Settings: the DictationSettings live in the app's settings.json (its
`dictation` object, read by DictationSettings.from_dict); the spoken language
and hotwords are the app's, so dictation and files recognise the same way.

The host also sums up what dictation is doing for the status bar and tray:
`state` is "waiting" (no engine), "idle", "listening" or "transcribing", and
`hotkey_problem` says why the global hotkey does not work, if it does not.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Callable

from PySide6.QtCore import QObject, Signal, Slot

from ..dictation.controller import AudioInput, DictationController
from ..dictation.events import DictationEvent
from ..dictation.settings import DictationSettings
from .controller import EngineState, QueueController
from .dictation_panel import DictationPanel
from .qt_clipboard import QtClipboard
from .settings import Settings

log = logging.getLogger(__name__)


def dictation_settings(settings: Settings) -> DictationSettings:
    """The app settings' dictation part with the app's spoken language and hotwords, so that
    dictation and files recognise the same way. (settings.py parsed it when it was loaded.)"""
    return replace(settings.dictation, language=settings.language or None, hotwords=list(settings.hotwords))


class DictationHost(QObject):
    """Makes, restarts and closes the app's DictationController; reports its state."""

    stateChanged = Signal()  # read `state`, `hotkey_problem`
    problem = Signal(str)  # a dictation error (English one-liner) worth a status-bar message
    settingsChanged = Signal(object)  # the panel changed a DictationSettings: save it

    def __init__(self, queue: QueueController, panel: DictationPanel, *,
                 microphone: Callable[[DictationSettings], AudioInput] | None = None,
                 use_hotkey: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.queue = queue
        self.panel = panel
        self.controller: DictationController | None = None
        self.state = "waiting"
        self.hotkey_problem = ""
        self._make_microphone = microphone
        self._use_hotkey = use_hotkey
        self._clipboard = QtClipboard(parent=self)
        self._starter: threading.Thread | None = None
        queue.engineStateChanged.connect(self._engine_changed)
        queue.engineReleasing.connect(self.stop)
        panel.bridge.event.connect(self._on_event)
        panel.settingsChanged.connect(self.settingsChanged)

    # -- life cycle ------------------------------------------------------------------------

    @Slot()
    def _engine_changed(self) -> None:
        engine = self.queue.engine
        if engine is None or self.queue.engine_state is not EngineState.READY:
            self.stop()
            return
        if self.controller is not None and self.controller.engine is engine:
            return
        self.stop()
        settings = dictation_settings(self.queue.settings)
        try:
            controller = DictationController(
                engine, settings, clipboard=self._clipboard, history=self.panel.history,
                microphone=self._make_microphone(settings) if self._make_microphone else None,
                on_event=self.panel.bridge.post, use_hotkey=self._use_hotkey)
        except Exception as exc:  # noqa: BLE001 - dictation must never keep the app from running
            log.exception("dictation could not start")
            self.problem.emit(f"dictation: {exc}")
            return
        self.controller = controller
        self._clipboard.resume()
        self.panel.attach(controller)
        self._set_state(controller.state)
        # Starting the global hotkey can take seconds where the desktop has no hook
        # (an X server without RECORD): not on the GUI thread.
        self._starter = threading.Thread(target=controller.start, name="tingji-dictation-start", daemon=True)
        self._starter.start()

    @Slot()
    def stop(self) -> None:
        """Close the controller (hotkey, microphone, threads). Blocks briefly; safe to call twice."""
        controller, self.controller = self.controller, None
        if controller is None:
            return
        self.panel.detach()
        if self._starter is not None:
            self._starter.join(10.0)
            self._starter = None
        self._clipboard.interrupt()  # a paste waiting for this (blocked) thread fails at once
        try:
            controller.close()
        except Exception:  # noqa: BLE001
            log.exception("closing dictation")
        self._set_state("waiting")

    def apply_app_settings(self, settings: Settings) -> None:
        """The app's settings changed (language, hotwords, or the dictation part)."""
        new = dictation_settings(settings)
        self.panel.settings = new  # the panel's next edit starts from these
        if self.controller is not None and new != self.controller.settings:
            self.controller.apply_settings(new)

    # -- events ------------------------------------------------------------------------------

    @Slot(object)
    def _on_event(self, event: DictationEvent) -> None:
        if self.controller is None:
            return  # the last events of a controller being closed
        if event.kind == "state":
            self._set_state(event.state)
        elif event.kind == "hotkey":
            self.hotkey_problem = event.message
            self.stateChanged.emit()
        elif event.kind == "error":
            self.problem.emit(event.message)
        elif event.kind == "take" and event.take is not None and event.take.output == "failed":
            self.problem.emit(event.take.error or "")

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
        self.stateChanged.emit()

    @property
    def running(self) -> bool:
        return self.controller is not None
