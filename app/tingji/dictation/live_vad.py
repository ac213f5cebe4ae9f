"""End of speech, decided while the take runs (toggle and continuous modes).

Runs on the microphone's worker thread for every block, so it only counts
frames: speech must last 0.25 s before it counts (a cough or a click does not
arm the end), and a take ends after `silence_s` of frames below the lower
(hysteresis) threshold once speech was heard.
"""

from __future__ import annotations

import numpy as np

from ..engine.vad import FRAME_SECONDS, SileroVad, VadStream
from .settings import DictationSettings


class LiveVad:
    """Decides, while the take runs, when the speaker has finished."""

    def __init__(self, vad: SileroVad, settings: DictationSettings) -> None:
        self.stream = VadStream(vad)
        self.threshold = settings.vad_threshold
        self.neg_threshold = max(0.05, settings.vad_threshold - 0.15)
        self.min_speech = max(1, round(0.25 / FRAME_SECONDS))
        self.silence_frames = max(1, round(settings.silence_s / FRAME_SECONDS))
        self.speech_run = 0
        self.heard_speech = False
        self.quiet_run = 0

    def feed(self, block: np.ndarray) -> bool:
        """True once speech was heard and then `silence_s` of silence followed."""
        ended = False
        for p in self.stream.feed(block):
            if p >= self.threshold:
                self.speech_run += 1
                self.quiet_run = 0
                if self.speech_run >= self.min_speech:
                    self.heard_speech = True
            else:
                self.speech_run = 0
                if p < self.neg_threshold:
                    self.quiet_run += 1
                if self.heard_speech and self.quiet_run >= self.silence_frames:
                    ended = True
        return ended

    @property
    def seconds(self) -> float:
        return self.stream.frames * FRAME_SECONDS
