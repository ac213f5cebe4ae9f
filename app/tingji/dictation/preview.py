"""Live preview: the take so far, re-transcribed every ~0.5 s while it records. Imports no Qt.

    preview = LivePreview(engine.live, options, on_text=lambda text, seconds: print(text))
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

Which model previews (`PreviewModel`), by a rule measured on this machine:
  * the dictation model's preview runs are timed (wall seconds, what the
    user waits); at the take's end the median of those over at most the first
    `SHORT_TAKE_S` of the take (none that short: the run over the least audio)
    is the model's cost. A run that heard no speech decoded nothing and is not
    counted; when no run finished, one cut short at the take's end after running
    longer than the interval gives the cost (a lower bound, but already over
    it). Cost within the refresh interval: the
    dictation model previews on its own live lane, as above;
  * cost over the interval: it cannot refresh that often. A faster installed
    model (SenseVoice-Small, which the app offers when it is installed and
    can be told the language spoken) previews from then on, on an Engine of
    its own, so the dictation model's live lane stays free for the final
    take. It is loaded only then (preview on, rule broken), once the take
    that measured it has been transcribed and pasted (a take started while it
    loads previews on the dictation model), and unloaded with the dictation
    engine or when the preview is turned off;
  * no faster model (or it failed to load): the dictation model previews
    less often (the `GAP_S` rule), and Settings says so (`PreviewChoice`).
A slow verdict stays for the session; a model that fits is measured again
on every take. The cost can be given instead of measured (`cost_s`).
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..engine.languages import normalise
from ..engine.options import TranscribeOptions
from ..engine.transcript import Transcript
from ..errors import Cancelled
from .engine_api import Transcriber
from .resample import RATE

if TYPE_CHECKING:
    from ..engine.families.base import Capabilities

__all__ = ["FasterModel", "LivePreview", "PreviewChoice", "PreviewModel", "preview_fits"]

log = logging.getLogger(__name__)

INTERVAL_S = 0.5
GAP_S = 0.1  # the least pause between two runs
MIN_AUDIO_S = 0.3  # shorter than this holds no word worth showing
SHORT_TAKE_S = 3.0  # the runs over this much of a take are what the cost is measured on


class LivePreview:
    """Re-transcribes one take at a time on a thread of its own (`tingji-preview`)."""

    def __init__(
        self,
        engine: Transcriber,
        options: TranscribeOptions,
        on_text: Callable[[str, float], None],
        *,
        interval_s: float = INTERVAL_S,
        model: PreviewModel | None = None,
    ) -> None:
        """Args:
        engine: the dictation model's live lane (`engine.live`), where the preview runs unless `model` says
            otherwise.
        options: how to recognise the take (the final text's options; timestamps are skipped).
        on_text: called on the preview thread with each run's text (not empty ones) and the seconds
            that run took, under the preview's lock so that nothing arrives after `end()`: it must return
            at once.
        interval_s: seconds from the start of one run to the start of the next (at least `GAP_S` after
            its end).
        model: which model previews (the measured rule, a faster model); None: always `engine`.
        """
        self.engine = engine
        self.model = model
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
        if self.model is not None:
            self.model.take_ended()

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
            started = time.monotonic()
            try:
                options = replace(self.options, timestamps=False)
                if self.model is not None:
                    text = self.model.transcribe(self.engine, audio, options, cancel).text.strip()
                else:
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
                    self.on_text(text, time.monotonic() - started)


def preview_fits(cost_s: float, interval_s: float = INTERVAL_S) -> bool:
    """The rule: a model previews itself when one preview run on a short take takes no longer than the interval."""
    return cost_s <= interval_s


class PreviewEngine(Protocol):
    """What the faster model's loader gives: a loaded `tingji.engine.Engine` (its live lane, `close`)."""

    live: Transcriber
    capabilities: Capabilities

    def close(self) -> None: ...


@dataclass(frozen=True)
class FasterModel:
    """An installed model the preview may run on when the dictation model is too slow for it.

    Args:
        name: its name, for Settings.
        load: loads and warms it (called on a thread of its own, `tingji-preview-load`).
        languages: the language codes it can be told (once loaded, the model's own list); a take in another
            language keeps the dictation model. Empty: not known before it loads.
    """

    name: str
    load: Callable[[], PreviewEngine]
    languages: tuple[str, ...] = ()

    def suits(self, options: TranscribeOptions) -> bool:
        code = normalise(options.language)
        return code is None or not self.languages or code in self.languages


@dataclass(frozen=True)
class PreviewChoice:
    """Which model previews now, and why (what Settings says).

    `state`: "unmeasured" (the dictation model, not timed yet), "fits" (the dictation model, within the
    interval), "slow" (the dictation model, less often: no faster model), "loading" (the dictation model
    while the faster one loads), "faster" (the faster model), "failed" (the dictation model, less often:
    the faster one did not load).
    """

    state: str
    dictation: str  # the dictation model's name
    faster: str | None  # the faster model's name, if one is offered
    cost_s: float | None  # the dictation model's measured (or given) cost of a preview run
    interval_s: float

    @property
    def model(self) -> str:
        """The name of the model that previews now."""
        return self.faster if self.state == "faster" and self.faster else self.dictation


class PreviewModel:
    """Which model the live preview runs on (the rule in the module docstring), and the faster model's life."""

    def __init__(
        self,
        dictation: str,
        faster: FasterModel | None = None,
        *,
        interval_s: float = INTERVAL_S,
        cost_s: float | None = None,
        on_change: Callable[[PreviewChoice], None] | None = None,
    ) -> None:
        """Args:
        dictation: the dictation model's name.
        faster: the faster installed model to fall back on; None: the dictation model always previews.
        interval_s: the refresh interval the cost is held against.
        cost_s: the dictation model's cost, given instead of measured (benchmarks, tests).
        on_change: called with the new `PreviewChoice` whenever it changes (from any thread; return at once).
        """
        self.dictation = dictation
        self.faster = faster
        self.interval_s = interval_s
        self.on_change = on_change
        self.cost_s = cost_s
        self._slow = cost_s is not None and not preview_fits(cost_s, interval_s)
        self._runs: list[tuple[int, float, bool]] = []  # this take's runs on the dictation model: samples, s, finished
        self._engine: PreviewEngine | None = None
        self._loader: threading.Thread | None = None
        self._failed = False
        self._closed = False
        self._generation = 0  # bumped by unload(): a load started before it closes what it loaded
        self._in_use = 0
        self._cond = threading.Condition()

    @property
    def choice(self) -> PreviewChoice:
        with self._cond:
            return self._choice()

    def _choice(self) -> PreviewChoice:
        if self.cost_s is None:
            state = "unmeasured"
        elif not self._slow:
            state = "fits"
        elif self.faster is None:
            state = "slow"
        elif self._failed:
            state = "failed"
        else:
            state = "faster" if self._engine is not None else "loading"
        return PreviewChoice(
            state, self.dictation, self.faster.name if self.faster else None, self.cost_s, self.interval_s
        )

    # -- the preview thread ------------------------------------------------------------------

    def transcribe(
        self, own: Transcriber, audio: np.ndarray, options: TranscribeOptions, cancel: threading.Event
    ) -> Transcript:
        """One preview run: on the faster model once it is loaded (and suits the language), else on `own`
        (the dictation model's live lane), timed."""
        with self._cond:
            engine = self._engine if self.faster is not None and self.faster.suits(options) else None
            if engine is not None:
                self._in_use += 1
        if engine is not None:
            try:
                return engine.live.transcribe(audio, options, cancel=cancel)
            finally:
                with self._cond:
                    self._in_use -= 1
                    self._cond.notify_all()
        start = time.perf_counter()
        try:
            result = own.transcribe(audio, options, cancel=cancel)
        except Cancelled:
            # Cut short at the take's end: its time so far is a lower bound of the cost, enough to tell a
            # model that cannot finish one run within the interval.
            self._note_run(len(audio), time.perf_counter() - start, finished=False)
            raise
        if result.windows > result.skipped_windows:  # a run that heard no speech decoded nothing: no cost
            self._note_run(len(audio), time.perf_counter() - start, finished=True)
        return result

    def _note_run(self, samples: int, seconds: float, *, finished: bool) -> None:
        with self._cond:
            self._runs.append((samples, seconds, finished))

    def take_ended(self) -> None:
        """A take ended: its timed runs give the dictation model's cost, and the verdict."""
        with self._cond:
            runs, self._runs = self._runs, []
            if self._slow:
                return
            done = [(samples, seconds) for samples, seconds, finished in runs if finished]
            cut = [seconds for _, seconds, finished in runs if not finished and seconds > self.interval_s]
            short = [seconds for samples, seconds in done if samples <= SHORT_TAKE_S * RATE]
            if short:
                cost = statistics.median(short)
            elif done:
                cost = min(done)[1]
            elif cut:  # no run finished, and one already ran longer than the interval when the take ended
                cost = max(cut)
            else:
                return
            before = self._choice()
            self.cost_s = cost
            self._slow = not preview_fits(self.cost_s, self.interval_s)
            after = self._choice()
        self._changed(before, after)

    # -- the controller ----------------------------------------------------------------------

    def prepare(self, options: TranscribeOptions) -> None:
        """No take is running: load the faster model now if the rule wants it (returns at once)."""
        with self._cond:
            faster = self.faster
            if (
                self._closed
                or not self._slow
                or faster is None
                or not faster.suits(options)
                or self._engine is not None
                or self._failed
                or (self._loader is not None and self._loader.is_alive())
            ):
                return
            self._loader = threading.Thread(
                target=self._load, args=(faster, self._generation), name="tingji-preview-load", daemon=True
            )
            self._loader.start()

    def _load(self, faster: FasterModel, generation: int) -> None:
        try:
            engine: PreviewEngine | None = faster.load()
        except Exception:  # noqa: BLE001 - the dictation model goes on previewing
            log.exception("preview model %s", faster.name)
            engine = None
        with self._cond:
            before = self._choice()
            stale = self._closed or generation != self._generation
            if engine is None:
                self._failed = True
            elif not stale:
                self.faster = replace(faster, languages=tuple(engine.capabilities.languages) or faster.languages)
                self._engine, engine = engine, None
            after = self._choice()
        if engine is not None:  # unloaded (or closed) while it loaded
            engine.close()
        self._changed(before, after)

    def unload(self) -> None:
        """Free the faster model (the dictation engine is unloaded, or the preview turned off); a later
        `prepare` loads it again. Waits for a run in flight on it; a load under way closes what it loads."""
        with self._cond:
            before = self._choice()
            self._generation += 1
            engine, self._engine = self._engine, None
            while self._in_use:
                self._cond.wait()
            after = self._choice()
        if engine is not None:
            engine.close()
        self._changed(before, after)

    def close(self) -> None:
        """The dictation session ends: the faster model goes and none loads again (a load under way is
        waited for, so that no model is left loading when the engine is gone)."""
        with self._cond:
            self._closed = True
        self.unload()
        if self._loader is not None:
            self._loader.join()

    def _changed(self, before: PreviewChoice, after: PreviewChoice) -> None:
        if after != before and self.on_change is not None:
            try:
                self.on_change(after)
            except Exception:  # noqa: BLE001 - a broken listener must not stop the preview
                log.exception("preview model listener")
