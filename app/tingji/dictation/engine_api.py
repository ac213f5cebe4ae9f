"""What dictation needs from `tingji.engine`, as protocols (tests and the GUI's on-demand engine stand in).

Its own module, so that the live preview and the take pipeline share these without importing each other.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..engine.options import TranscribeOptions
from ..engine.transcript import Transcript
from ..engine.vad import SileroVad

__all__ = ["DictationEngine", "Transcriber"]


class Transcriber(Protocol):
    """What takes need from the engine: its live lane (`tingji.engine.Lane`, i.e. `engine.live`).

    Dictation always runs on the live lane: a take never waits for a file the
    queue is transcribing, and the file pauses between decoding steps instead.
    """

    def transcribe(
        self,
        source: np.ndarray,
        options: TranscribeOptions | None = None,
        *,
        cancel: Any = None,
        vad_probs: np.ndarray | None = None,
    ) -> Transcript: ...


class DictationEngine(Protocol):
    """What the controller needs from `tingji.engine.Engine`: the live lane, the VAD, the model's name."""

    live: Transcriber
    vad: SileroVad
    model_name: str
