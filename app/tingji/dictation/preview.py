"""Live preview: the take so far, re-transcribed every ~0.5 s while it records. Imports no Qt.

    preview = LivePreview(engine.live, options, on_text=print)
    preview.begin()              # a take starts
    preview.feed(block)          # each 16 kHz block the take receives (microphone worker)
    preview.end()                # the key is released: a run in flight is cancelled, never awaited

The preview is shown, never pasted: the final take transcribes the kept WAV
as before, so the text inserted is the same with the preview on or off.

Why it cannot make the final text later:
  * `end()` sets the run's cancel event and returns at once; the engine stops
    a cancelled run at its next check (between decoding steps), which frees
    the live lane for the final take;
  * runs start every `interval_s`, but never less than `GAP_S` after the
    previous one ended: on a model slower than the interval the preview
    refreshes less often, and the capture and the GUI always get a turn;
  * text of a run that ends after `end()` is dropped, so the overlay never
    shows a stale preview over the final text.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..engine.options import TranscribeOptions
from ..errors import Cancelled
from .resample import RATE
from .takes import Transcriber

__all__ = ["LivePreview"]

log = logging.getLogger(__name__)

INTERVAL_S = 0.5
GAP_S = 0.1  # the least pause between two runs
MIN_AUDIO_S = 0.3  # shorter than this holds no word worth showing


class LivePreview:
    """Re-transcribes one take at a time on a thread of its own (`tingji-preview`)."""

    def __init__(
        self,
        engine: Transcriber,
        options: TranscribeOptions,
        on_text: Callable[[str], None],
        *,
        interval_s: float = INTERVAL_S,
    ) -> None:
        """Args:
        engine: the live lane the preview runs on (the dictation model's `engine.live`).
        options: how to recognise the take (the final text's options; timestamps are skipped).
        on_text: called on the preview thread with each run's text (not empty ones), under the
            preview's lock so that nothing arrives after `end()`: it must return at once.
        interval_s: seconds from the start of one run to the start of the next (at least `GAP_S` after
            its end).
        """
        self.engine = engine
        self.options = options
        self.on_text = on_text
        self.interval_s = interval_s
        self.runs = 0  # preview runs finished, this take
        self._lock = threading.Lock()
        self._parts: list[np.ndarray] = []
        self._samples = 0
        self._take = 0  # take generation: a run of an ended take shows nothing
        self._wake = threading.Event()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def begin(self) -> None:
        """A take starts: a fresh buffer, and the thread that previews it."""
        with self._lock:
            self._take += 1
            self._parts, self._samples, self.runs = [], 0, 0
            self._cancel = threading.Event()
            self._wake.clear()
            take, cancel = self._take, self._cancel
        self._thread = threading.Thread(target=self._run, args=(take, cancel), name="tingji-preview", daemon=True)
        self._thread.start()

    def feed(self, block: np.ndarray) -> None:
        with self._lock:
            self._parts.append(block)
            self._samples += len(block)

    def end(self) -> None:
        """The take ended: cancel a run in flight and stop; returns at once (the final take must not wait)."""
        with self._lock:
            self._take += 1
            self._cancel.set()
            self._parts, self._samples = [], 0
        self._wake.set()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the preview thread to end (tests, shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, take: int, cancel: threading.Event) -> None:
        next_start = time.monotonic() + self.interval_s
        while not self._wake.wait(max(0.0, next_start - time.monotonic())):
            next_start = time.monotonic() + self.interval_s
            with self._lock:
                if take != self._take:
                    return
                if self._samples < MIN_AUDIO_S * RATE:
                    continue
                audio = np.concatenate(self._parts)
                self._parts = [audio]
            try:
                options = replace(self.options, timestamps=False)
                text = self.engine.transcribe(audio, options, cancel=cancel).text.strip()
            except Cancelled:
                return
            except Exception:  # noqa: BLE001 - a failed preview must not touch the take
                log.exception("dictation preview")
                return
            next_start = max(next_start, time.monotonic() + GAP_S)
            with self._lock:
                if take != self._take:
                    return  # the take ended while this ran: its final text is what counts
                self.runs += 1
                if text:
                    self.on_text(text)
