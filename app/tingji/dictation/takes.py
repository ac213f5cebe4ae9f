"""What happens to a finished take, on the controller's take worker, in this order.

Nothing dictated is lost:
  1. its audio is written to a WAV under recordings_dir() (fsynced before the
     rename that publishes it) and read back, so what is transcribed is
     exactly what is kept;
  2. no speech in it (VAD) -> the WAV is deleted, an "empty" event, nothing
     typed: an accidental key press yields nothing;
  3. transcription; an empty text is treated like 2;
  4. the history row is committed (text + WAV name);
  5. the text goes to the focused application (paste or typing);
  6. only now may the retention setting delete old recordings.
If the app dies between 1 and 4 the WAV stays without a row and
`recovery.recover_orphans()` transcribes it into the history on the next start.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..engine.options import TranscribeOptions
from ..engine.transcript import Transcript
from ..engine.vad import FRAME, SileroVad, SpeechParams, speech_spans
from ..errors import TingjiError
from . import messages
from .capture import TakeAudio
from .events import DictationEvent
from .global_hotkey import GlobalHotkey
from .history import DictationHistory, DictationTake
from .output import TextOutput
from .resample import RATE
from .settings import DictationSettings


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
    t0 = time.monotonic()
    probs = vad.probabilities(samples, tail=True)  # the engine takes them too: the VAD runs once a take
    spans = _speech_spans(probs[: len(samples) // FRAME], s)
    timings["vad_s"] = time.monotonic() - t0
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
    take = DictationTake(
        text=text,
        duration_s=len(samples) / RATE,
        recording=wav.name,
        created=f.ended_wall,
        language=transcript.language or options.language,
        model=model_name,
    )
    take.note(f.audio.error)
    history.add(take)
    # 5. Insert into the focused application.
    _insert(take, output, hotkey(), emit)
    _note_latency(take, f, output, spans[-1][1], timings)
    history.update(take)
    # 6. Only now may old recordings go.
    history.apply_retention(s.keep_recordings)
    emit(DictationEvent("take", take=take, timings=timings))


def _nothing(f: FinishedTake, emit: Callable[[DictationEvent], None], why: str, wav: Path | None = None) -> None:
    """A take that yields no text: its WAV goes, and an "empty" event says why (not for a quiet segment)."""
    if wav is not None:
        wav.unlink(missing_ok=True)
    if not f.quiet:
        emit(DictationEvent("empty", why))


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
        emit(DictationEvent.problem("error", error))
