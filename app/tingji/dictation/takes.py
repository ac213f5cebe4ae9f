"""What happens to a finished take, on the controller's take worker, in this order.

Nothing dictated is lost:
  1. its audio is written to a WAV under recordings_dir() (fsynced before the
     rename that publishes it) and read back, so what is transcribed is
     exactly what is kept;
  2. no speech in it (VAD) -> the WAV is deleted, a NothingSaid event, nothing
     typed: an accidental key press yields nothing;
  3. transcription; an empty text is treated like 2;
  4. the history row is committed (text + WAV name);
  5. the text goes to the focused application (paste or typing);
  6. only now may the retention setting delete old recordings.
If the app dies between 1 and 4 the WAV stays without a row and
`recovery.recover_orphans()` transcribes it into the history on the next start.
`TakeWorker` is the thread that runs these, one take at a time and in order.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..engine.options import TranscribeOptions
from ..engine.vad import FRAME, SileroVad, SpeechParams, speech_spans
from ..errors import Cancelled, TingjiError
from . import messages
from .capture import TakeAudio
from .engine_api import Transcriber
from .events import DictationEvent, NothingSaid, Problem, TakeStored
from .global_hotkey import GlobalHotkey
from .history import DictationHistory, DictationTake
from .output import TextOutput
from .resample import RATE
from .settings import DictationSettings

log = logging.getLogger(__name__)


@dataclass
class FinishedTake:
    audio: TakeAudio
    ended_at: float  # time.monotonic() when the take ended
    ended_wall: float  # time.time() of the same moment
    reason: str
    quiet: bool = False  # a continuous-mode idle segment: drop without an "empty" event


def process_take(
    f: FinishedTake,
    s: DictationSettings,
    options: TranscribeOptions,
    *,
    engine: Transcriber,
    vad: SileroVad,
    history: DictationHistory,
    output: TextOutput,
    hotkey: Callable[[], GlobalHotkey | None],
    model_name: str | None,
    cancel: threading.Event,
    emit: Callable[[DictationEvent], None],
) -> None:
    """Steps 1-6 above for one take; events go to `emit`, errors other than output ones propagate.

    `options` say how to recognise it; the text is all a take needs, so no time is spent timing it.

    `hotkey()` is asked at insert time: a settings change may have replaced it
    while the take was transcribed.
    """
    samples = f.audio.samples
    timings: dict[str, float] = {}
    if len(samples) < int(0.1 * RATE):
        _nothing(f, emit, "nothing was recorded")
        return
    # 1. The WAV first: from here on the take survives a crash.
    wav, samples = _keep_wav(history, samples)
    # 2. Silence-only takes (an accidental press) produce nothing.
    probs, spans = _find_speech(vad, samples, s, timings)
    if not spans:
        _nothing(f, emit, "no speech heard" if f.audio.error is None else str(f.audio.error), wav)
        return
    # 3. Transcribe exactly what is kept.
    t0 = time.monotonic()
    # Live lane: a file being transcribed meanwhile pauses instead of making the user wait.
    transcript = engine.transcribe(samples, replace(options, timestamps=False), cancel=cancel, vad_probs=probs)
    timings["transcribe_s"] = time.monotonic() - t0
    text = transcript.text.strip()
    if not text:
        _nothing(f, emit, "no words recognised", wav)
        return
    # 4. Commit the text with its recording.
    take = _new_take(f, text, len(samples) / RATE, wav, transcript.language or options.language, model_name)
    history.add(take)
    # 5. Insert into the focused application.
    _insert(take, output, hotkey(), emit)
    _note_latency(take, f, output, spans[-1][1], timings)
    history.update(take)
    # 6. Only now may old recordings go.
    history.apply_retention(s.keep_recordings)
    emit(TakeStored(take, timings))


def _find_speech(
    vad: SileroVad, samples: np.ndarray, s: DictationSettings, timings: dict[str, float]
) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """The take's VAD probabilities per frame and its speech spans; the time taken goes in `timings`."""
    t0 = time.monotonic()
    probs = vad.probabilities(samples, tail=True)  # the engine takes them too: the VAD runs once a take
    spans = _speech_spans(probs[: len(samples) // FRAME], s)
    timings["vad_s"] = time.monotonic() - t0
    return probs, spans


def _new_take(
    f: FinishedTake, text: str, duration_s: float, wav: Path, language: str | None, model_name: str | None
) -> DictationTake:
    """The history row of a take's text and recording (not yet stored), noting its capture's error if any."""
    take = DictationTake(
        text=text,
        duration_s=duration_s,
        recording=wav.name,
        created=f.ended_wall,
        language=language,
        model=model_name,
    )
    take.note(f.audio.error)
    return take


def _nothing(f: FinishedTake, emit: Callable[[DictationEvent], None], why: str, wav: Path | None = None) -> None:
    """A take that yields no text: its WAV goes, and a NothingSaid event says why (not for a quiet segment)."""
    if wav is not None:
        wav.unlink(missing_ok=True)
    if not f.quiet:
        emit(NothingSaid(why))


def _note_latency(
    take: DictationTake, f: FinishedTake, output: TextOutput, speech_end: float, timings: dict[str, float]
) -> None:
    """The take's latency: from its end, and from the end of its speech, to the moment the text was sent."""
    # To the moment the text was sent (the paste key), not to the end of the clipboard-restore
    # wait that follows it.
    sent = output.last_sent or time.monotonic()
    take.latency_s = sent - f.ended_at
    timings["end_to_text_s"] = take.latency_s
    # Speech ended before the take did (toggle mode waits `silence_s`).
    timings["speech_end_to_text_s"] = take.latency_s + max(0.0, take.duration_s - speech_end)


def _keep_wav(history: DictationHistory, samples: np.ndarray) -> tuple[Path, np.ndarray]:
    """Write the take's WAV (on disk for good when this returns) and read it back: the 16-bit
    file is what gets transcribed."""
    import soundfile as sf

    wav = history.write_recording(samples, RATE)
    return wav, sf.read(str(wav), dtype="float32")[0]


def _speech_spans(probs: np.ndarray, s: DictationSettings) -> list[tuple[float, float]]:
    return speech_spans(probs, SpeechParams(threshold=s.vad_threshold, neg_threshold=max(0.05, s.vad_threshold - 0.15)))


def _insert(
    take: DictationTake, output: TextOutput, hotkey: GlobalHotkey | None, emit: Callable[[DictationEvent], None]
) -> None:
    """Send the text; a failure is recorded on the take (the text stays in the history)."""
    if hotkey is not None:
        # Hold mode: modifiers still down would turn Ctrl+V into Ctrl+Alt+V.
        hotkey.matcher.wait_modifiers_released(1.0)
    output.last_sent = None
    try:
        take.output = output.insert(take.text)
    except TingjiError as exc:
        take.output = "failed"
        error = TingjiError(messages.NOT_INSERTED, problem=exc)
        take.note(error)
        emit(Problem(error))


def reason_of(exc: Exception) -> TingjiError | str:
    """An error of ours stays one (a UI translates it); anything else is a bug, said as Python says it."""
    return exc if isinstance(exc, TingjiError) else str(exc)


class TakeWorker:
    """The take thread's queue: finished takes one at a time and in order, and the crash leftovers' recovery.

    A take that fails is reported (a Problem event) and its WAV kept; the thread keeps running.
    """

    _RECOVER = "recover"

    def __init__(
        self,
        process: Callable[[FinishedTake], None],
        recover: Callable[[], object],
        done: Callable[[], None],
        emit: Callable[[DictationEvent], None],
    ) -> None:
        """Args:
        process: runs one finished take (the controller's `process_take` call).
        recover: stores the WAVs a crash left (`recovery.recover_orphans`).
        done: called after each take, however it ended.
        emit: sends a Problem event when a take failed.
        """
        self._process, self._recover, self._done, self._emit = process, recover, done, emit
        self._queue: queue.SimpleQueue[FinishedTake | str | None] = queue.SimpleQueue()

    def put(self, take: FinishedTake) -> None:
        self._queue.put(take)

    def recover(self) -> None:
        """Recover crash leftovers after the takes queued before this."""
        self._queue.put(self._RECOVER)

    def stop(self) -> None:
        """End `run` after what is queued (a take being processed is cancelled by its own `cancel`)."""
        self._queue.put(None)

    def run(self) -> None:
        """The thread's body: until `stop`."""
        while (item := self._queue.get()) is not None:
            try:
                if isinstance(item, FinishedTake):
                    self._process(item)
                else:
                    self._recover()
            except Cancelled:
                pass
            except Exception as exc:  # noqa: BLE001 - report, keep the WAV, keep running
                log.exception("dictation take")
                self._emit(Problem(TingjiError(messages.TAKE_FAILED, reason=reason_of(exc))))
            finally:
                if isinstance(item, FinishedTake):
                    self._done()
