"""`Lane`: one thread's way into a loaded `Engine`, and what a caller may pass to stop a transcription.

The engine is used by at most two threads at once, one per lane; the lanes
share the loaded weights and each has its own state. `Engine` makes both and
runs a lane's transcriptions (`Engine._transcribe_on`: the lane's lock, and the
files lane's pause while a live take runs).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .families.base import LaneState
from .options import TranscribeOptions
from .transcript import Progress, Transcript

if TYPE_CHECKING:
    from .transcribe import Engine

CancelLike = Callable[[], bool] | threading.Event | None


class Lane:
    """One thread's way into a loaded engine: `engine.files` or `engine.live`.

    The file queue and the CLI use `files` (what `Engine.transcribe` runs
    on); dictation takes use `live`. A lane holds a lock - a second caller on
    the same lane waits its turn - and the family's private state for it (for
    the LLM families a llama.cpp context: a KV cache over the shared weights),
    made on first use because it costs memory. Calls on different lanes may
    run at the same time; while a live take runs, the files lane pauses
    between decoding steps, so dictation never waits for a long file.
    """

    def __init__(self, name: str, engine: Engine, *, parks: bool = False) -> None:
        """Made by `Engine`, which has two: `files` and `live`.

        Args:
            name: `"files"` or `"live"`.
            engine: The engine whose model the lane runs.
            parks: Free the lane's state after each window (`LaneState.park`).
        """
        self.name = name
        self.engine = engine
        # Park the state after each window (LaneState.park): right for the files lane, whose
        # windows take seconds and whose KV cache would otherwise sit under the next window's
        # encoder peak; not for the live lane, where the rebuild would be felt as latency.
        self.parks = parks
        self.lock = threading.Lock()
        self._state: LaneState | None = None

    @property
    def state(self) -> LaneState:
        """The lane's family state, opened on first use (call with `lock` held, or before others use it)."""
        if self._state is None:
            self._state = self.engine.recognizer.open_lane()
            if self.parks:  # nothing resident under the first window's encoder either
                self._state.park()
        return self._state

    @property
    def opened(self) -> bool:
        return self._state is not None

    def transcribe(
        self,
        source: str | os.PathLike[str] | np.ndarray,
        options: TranscribeOptions | None = None,
        *,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: CancelLike = None,
        vad_probs: np.ndarray | None = None,
    ) -> Transcript:
        """`Engine.transcribe` on this lane: the same arguments, the same result."""
        return self.engine._transcribe_on(self, source, options or TranscribeOptions(), on_progress, cancel, vad_probs)

    def close(self) -> None:
        if self._state is not None:
            self._state.close()
            self._state = None


def cancel_check(cancel: CancelLike) -> Callable[[], bool] | None:
    """`cancel` as a function to poll between windows and decoding steps; None for no `cancel`."""
    if cancel is None:
        return None
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel
