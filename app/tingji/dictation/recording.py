"""The take being recorded: the microphone's blocks feed the live VAD, the level meter and the preview, and
the audio itself asks for the take's end (silence after speech, nothing said, the maximum length).

The controller begins and ends takes on its command thread, when the coordinator's table says so; the
blocks arrive on the microphone's worker thread. An end the audio asks for is a command posted like any
other (EndTake, or EndSegment in continuous mode), so it is refused when it comes too late.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from ..engine.options import TranscribeOptions
from ..engine.vad import SileroVad
from .capture import TakeAudio
from .commands import Command, EndSegment, EndTake
from .devices import MicrophoneError
from .events import DictationEvent, Problem, TakeBegun
from .live_vad import LiveVad
from .preview import LivePreview
from .resample import RATE
from .settings import DictationSettings
from .takes import FinishedTake

__all__ = ["AudioInput", "TakeRecorder"]


class AudioInput(Protocol):
    """What the controller needs from capture.Microphone (tests substitute a fake)."""

    on_audio: Callable[[np.ndarray], None] | None
    on_error: Callable[[MicrophoneError], None] | None

    def open(self) -> None: ...

    def prepare(self, armed: bool = True) -> None: ...

    def begin(self) -> None: ...

    def end(self, tail_s: float | None = None) -> TakeAudio: ...

    def set_options(self, **kwargs: Any) -> None: ...

    def close(self) -> None: ...


class TakeRecorder:
    """Records one take at a time from `mic`; `level` is the RMS of the last block (a level meter polls it)."""

    def __init__(
        self,
        mic: AudioInput,
        vad: SileroVad,
        preview: LivePreview,
        *,
        settings: Callable[[], DictationSettings],
        options: Callable[[], TranscribeOptions],
        post: Callable[[Command], None],
        emit: Callable[[DictationEvent], None],
    ) -> None:
        """Args:
        mic: the microphone; its `on_audio` becomes this recorder's.
        vad: the Silero VAD the live end of speech runs on.
        preview: the live preview the blocks feed while the setting is on.
        settings: the controller's settings now (they change between takes).
        options: how takes are recognised now (the preview runs with them).
        post: queues a command for the controller (the end a take's audio asks for).
        emit: sends an event to the user.
        """
        self.mic, self.vad, self.preview = mic, vad, preview
        self._settings, self._options, self._post, self._emit = settings, options, post, emit
        self.level = 0.0
        self._live: LiveVad | None = None
        self._take_samples = 0
        self._segments = 0  # segments of this continuous-mode session
        self._end_requested = False
        mic.on_audio = self._on_audio

    def begin(self, *, segment: bool = False) -> bool:
        """Start recording a take (`segment`: continuous mode's next one); False when the microphone failed
        (a Problem event said why)."""
        settings = self._settings()
        if not segment:
            self._segments = 0
            self._emit(TakeBegun())  # before the microphone opens, which may take 100+ ms
        self._live = LiveVad(self.vad, settings)
        self._take_samples = 0
        self._end_requested = False
        try:
            self.mic.begin()
        except MicrophoneError as exc:
            self._live = None
            self._emit(Problem(exc))
            return False
        if settings.preview:
            self.preview.options = self._options()
            self.preview.begin()
        return True

    def end(self, reason: str, *, quiet: bool = False, restart: bool = False) -> FinishedTake:
        """Stop recording; the take, for the take worker. `restart`: a segment ends and the next follows."""
        ended_at, ended_wall = time.monotonic(), time.time()
        if self._settings().mode == "continuous":
            # Stopping after some utterances: the trailing pause is not worth a "nothing said" message.
            quiet = quiet or (self._segments > 0 and not restart)
            self._segments += 1
        self.preview.end()  # a preview in flight is cancelled: the final take runs at once
        audio = self.mic.end(tail_s=0.0 if reason in ("silence", "microphone error") else None)
        self._live = None
        self.level = 0.0
        return FinishedTake(audio, ended_at, ended_wall, reason, quiet)

    # -- the microphone's worker thread ---------------------------------------------------------

    def _on_audio(self, block: np.ndarray) -> None:
        live = self._live
        if live is None or self._end_requested:
            return
        s = self._settings()
        self.level = float(np.sqrt(np.mean(block * block))) if len(block) else 0.0
        if s.preview:
            self.preview.feed(block)
        self._take_samples += len(block)
        if self._take_samples > s.max_take_s * RATE:
            self._request_end("maximum length", s)
            return
        if s.mode == "hold":
            return
        if live.feed(block):
            self._request_end("silence", s)
        elif not live.heard_speech and live.seconds >= s.no_speech_timeout_s > 0:
            self._request_end("no speech", s, quiet=s.mode == "continuous")

    def _request_end(self, reason: str, s: DictationSettings, quiet: bool = False) -> None:
        self._end_requested = True
        if s.mode == "continuous" and reason in ("silence", "no speech"):
            self._post(EndSegment(reason, quiet))
        else:
            self._post(EndTake(reason))
