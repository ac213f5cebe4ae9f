"""Dictation's handle on the app's engine, which may be unloaded while dictation keeps listening.

With "unload models after N minutes idle" the engine is closed while the
app runs on; the global hotkey must keep working all the same, and the next
take must bring the model back. So the DictationController is not given the
Engine itself but this object (the `DictationEngine` of tingji.dictation):

  * `live.transcribe(...)` runs on the attached engine's live lane; with no
    engine attached it asks the app to load the model again (`load_wanted`,
    which must be safe to call from any thread) and waits until one is
    attached, the take is cancelled (its WAV stays and is transcribed on
    the next start), or the handle is closed;
  * `detach()` (GUI thread, before the engine thread closes the engine)
    takes the engine away and waits for a transcription in flight to end,
    so the engine is never closed under a take;
  * `vad` and `model_name` stay: Silero's VAD is a small session of its
    own, which the live VAD needs while the user speaks, loaded or not.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine.options import TranscribeOptions
from ...engine.transcript import Transcript
from ...engine.vad import SileroVad
from ...errors import Cancelled

if TYPE_CHECKING:
    from ...engine.transcribe import Engine

POLL_S = 0.1  # how often a waiting take looks at its cancel event


class _LiveLane:
    """The live lane of whichever engine is attached (tingji.dictation.takes.Transcriber)."""

    def __init__(self, owner: OnDemandEngine) -> None:
        self._owner = owner

    def transcribe(
        self,
        source: np.ndarray,
        options: TranscribeOptions | None = None,
        *,
        cancel: Any = None,
        vad_probs: np.ndarray | None = None,
    ) -> Transcript:
        engine = self._owner.acquire(cancel)
        try:
            return engine.live.transcribe(source, options, cancel=cancel, vad_probs=vad_probs)
        finally:
            self._owner.release()


class OnDemandEngine:
    """What a DictationController uses as its engine (see the module docstring)."""

    def __init__(self, engine: Engine, model_path: str, load_wanted: Callable[[], None]) -> None:
        self.model_name: str = engine.model_name
        self.model_path = model_path  # which model this is: a reload of another one needs a new controller
        self.vad: SileroVad = engine.vad
        self.live = _LiveLane(self)
        self._engine: Engine | None = engine
        self._load_wanted = load_wanted
        self._cond = threading.Condition()
        self._in_use = 0
        self._asked = False
        self._closed = False

    @property
    def current(self) -> Engine | None:
        """The attached Engine, or None while the model is unloaded."""
        return self._engine

    # -- the GUI thread -----------------------------------------------------------------

    def attach(self, engine: Engine) -> None:
        """The model is loaded again: waiting takes go on with it."""
        with self._cond:
            self._engine, self._asked = engine, False
            self._cond.notify_all()

    def detach(self) -> None:
        """Take the engine away; returns once no transcription uses it any more."""
        with self._cond:
            self._engine = None
            while self._in_use:
                self._cond.wait()

    def close(self) -> None:
        """The controller is going: waiting takes end now (Cancelled)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    # -- a take's thread ------------------------------------------------------------------

    def acquire(self, cancel: threading.Event | None) -> Engine:
        """The attached engine, marked in use; waits for a reload when there is none."""
        with self._cond:
            while self._engine is None:
                if self._closed or (cancel is not None and cancel.is_set()):
                    raise Cancelled()
                if not self._asked:
                    self._asked = True
                    self._load_wanted()
                self._cond.wait(POLL_S)
            self._in_use += 1
            return self._engine

    def release(self) -> None:
        with self._cond:
            self._in_use -= 1
            self._cond.notify_all()
