"""Crash recovery: recordings the app kept but never stored a text for.

A take's WAV is written before it is transcribed (see takes.py), so when the
app dies between the two the WAV stays in recordings_dir() without a history
row. On the next start these are transcribed into the history, marked as
recovered and not inserted anywhere: the user's focus has long moved on.
A WAV whose take was deleted is never one of them, whenever the app died
(history.py lists it as deleted before it unlinks it).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace

from ..engine.options import TranscribeOptions
from ..errors import Cancelled, TingjiError
from . import messages
from .engine_api import Transcriber
from .events import DictationEvent, TakeStored
from .history import DictationHistory, DictationTake
from .resample import RATE

log = logging.getLogger(__name__)


def recover_orphans(
    engine: Transcriber,
    history: DictationHistory,
    options: Callable[[], TranscribeOptions],
    *,
    model_name: str | None,
    cancel: threading.Event,
    emit: Callable[[DictationEvent], None],
) -> int:
    """Transcribe WAVs left without a history row by a crash; returns how many were stored.

    `options()` is asked per recording, so a change made meanwhile applies to the rest.
    """
    import soundfile as sf

    stored = 0
    for wav in history.orphan_recordings():
        try:
            samples = sf.read(str(wav), dtype="float32")[0]
            text = engine.transcribe(samples, replace(options(), timestamps=False), cancel=cancel).text.strip()
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - an unreadable leftover must not block startup
            log.warning("cannot recover %s: %s", wav, exc)
            continue
        if not text:
            wav.unlink(missing_ok=True)
            continue
        take = DictationTake(
            text=text,
            duration_s=len(samples) / RATE,
            recording=wav.name,
            created=wav.stat().st_mtime,
            model=model_name,
            output="none",
        )
        take.note(TingjiError(messages.RECOVERED))
        history.add(take)
        stored += 1
        emit(TakeStored(take))
    return stored
