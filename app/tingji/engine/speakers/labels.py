"""The speakers step of a transcription: embeddings while the windows go by, labels at the end.

`Engine.transcribe` hands each window it recognised to `SpeakerLabels.add`,
which cuts the window's speech spans into embedding windows
(`diarize.windows`) and keeps only their embeddings - 192 numbers per 0.75 s
of speech, so a file's audio is never held whole. `SpeakerLabels.label` then
clusters them (`cluster.cluster`), makes speaker turns (`diarize.turns`) and
gives every segment the speaker who covers most of it (`diarize.speaker_of`).
Speakers are numbered in order of first appearance in the transcript and named
"Speaker 1", "Speaker 2", ... (a GUI translates or renames them); `prints` then
holds each named speaker's voice print (`voice_prints`), for a voice library.
`rename_speaker` renames (or merges) a labelled transcript's speakers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ErrorReport, warning
from .. import messages
from ..transcript import VoicePrint
from . import diarize
from .cluster import cluster

if TYPE_CHECKING:
    from ..transcript import Segment, Transcript
    from .model import SpeakerModel

DEFAULT_NAME = "Speaker {number}"


def default_names(count: int) -> list[str]:
    """ "Speaker 1" ... "Speaker {count}"."""
    return [DEFAULT_NAME.format(number=i + 1) for i in range(count)]


class SpeakerLabels:
    """One file's speaker labelling, fed window by window.

    Args:
        model: The loaded speaker model.
        count: The number of speakers when known (1 to 8); None: found from the audio.
    """

    def __init__(self, model: SpeakerModel, count: int | None = None) -> None:
        self.model = model
        self.count = count
        self.windows: list[diarize.Window] = []
        self._embeddings: list[np.ndarray] = []
        self.speech_s = 0.0
        self.prints: list[VoicePrint] = []  # after `label`: one per named speaker

    def add(self, samples: np.ndarray, start: int, speech: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        """Embed a transcription window's speech; returns where the speaker changes inside it, as (from, to) in
        file seconds: between two turns of its own windows clustered alone, the count found. The engine
        recognises each speaker's part of the window alone, cut at the quietest point there, so a model's
        text never runs across a turn (the labels themselves come from the whole file, in `label`).

        Args:
            samples: The window's 16 kHz mono samples.
            start: Its first sample's index in the file.
            speech: Its speech spans, in seconds from its start (the VAD's).
        """
        rate = self.model.frontend.sample_rate
        spans = []
        for a, b in speech:
            first, end = max(0, round(a * rate)), min(len(samples), round(b * rate))
            if end > first:
                spans.append((start + first, start + end))
                self.speech_s += (end - first) / rate
        shift = self.model.shift_seconds
        wins = diarize.windows(spans, rate=rate, window_s=self.model.window_seconds, shift_s=shift)
        if not wins:
            return []
        size = self.model.window_samples
        embeddings = self.model.embed([diarize.window_audio(samples, w, size, start) for w in wins])
        self._embeddings.append(embeddings)
        self.windows += wins
        local = diarize.turns(wins, cluster(embeddings, None))
        # A gap between two turns holds the change; turns that met were split in their windows' overlap. Turns
        # of one speaker on either side of a pause (separate speech spans) are no change.
        return [
            (a.end, b.start) if b.start > a.end else (a.end - shift, a.end + shift)
            for a, b in zip(local, local[1:])
            if a.speaker != b.speaker
        ]

    def label(self, segments: list[Segment]) -> tuple[list[str], list[ErrorReport]]:
        """Give each segment its `speaker`, and each timed word its own: a segment whose words two speakers
        said is replaced by one segment per speaker's run of words (`diarize.split_at_turns`). Returns the
        speakers' names and what the user should know.

        Args:
            segments: The transcript's segments, in time order (changed in place).
        """
        if not self.windows:
            return [], [warning(messages.NO_SPEECH_FOR_SPEAKERS)]
        embeddings = np.concatenate(self._embeddings)
        labels = cluster(embeddings, self.count)
        turns = diarize.turns(self.windows, labels)
        segments[:] = diarize.split_at_turns(segments, turns)
        order: dict[int, int] = {}  # a turn's speaker -> the number it gets: first to speak in the transcript first
        for seg in segments:
            who = seg.speaker
            seg.speaker = None if who is None else order.setdefault(who, len(order))
            for w in seg.words or ():
                w.speaker = None if w.speaker is None else order.setdefault(w.speaker, len(order))
        notes = []
        if self.count is not None and 0 < len(order) < self.count:
            notes.append(warning(messages.FEWER_SPEAKERS, found=len(order), asked=self.count, seconds=self.speech_s))
        self.prints = voice_prints(embeddings, diarize.relabel(labels), order, self.model.identity)
        return default_names(len(order)), notes


def voice_prints(embeddings: np.ndarray, labels: Sequence[int], order: dict[int, int], model: str) -> list[VoicePrint]:
    """Each named speaker's print: the mean of its windows' unit embeddings.

    Args:
        embeddings: [N, E] window embeddings.
        labels: each window's speaker, as the turns number them (`diarize.relabel`).
        order: a turns' speaker -> the number it is named by (only speakers that were given a segment).
        model: the speaker model's identity.
    """
    unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-12)
    labels = np.asarray(labels)
    prints: list[VoicePrint | None] = [None] * len(order)
    for who, number in order.items():
        mine = unit[labels == who]
        if len(mine):
            prints[number] = VoicePrint(mine.mean(axis=0).astype(np.float32), len(mine), model)
    if any(p is None for p in prints):  # a speaker smoothing gave segments but no window of its own: no print
        return []
    return [p for p in prints if p is not None]


def rename_speaker(transcript: Transcript, speaker: int, name: str) -> int:
    """Rename a speaker in every segment of the transcript; returns the speaker's number afterwards.

    A name another speaker of the transcript has (exactly) makes the two one speaker: the segments
    join the other, its print becomes the mean of both weighed by their windows, and the numbers above
    the renamed one move down, so they stay in order of first appearance with no gap.

    Args:
        transcript: A labelled transcript (changed in place).
        speaker: The speaker's number (an index into `transcript.speakers`).
        name: The new name, as `library.clean_name` leaves it.
    """
    names = transcript.speakers
    if not 0 <= speaker < len(names):
        raise IndexError(speaker)
    other = next((i for i, n in enumerate(names) if n == name and i != speaker), None)
    if other is None:
        names[speaker] = name
        return speaker
    prints = transcript.voice_prints
    if len(prints) == len(names):
        a, b = prints[other], prints[speaker]
        total = a.windows + b.windows
        mean = ((a.embedding * a.windows + b.embedding * b.windows) / total).astype(np.float32)
        prints[other] = VoicePrint(mean, total, a.model)
    for seg in transcript.segments:
        if seg.speaker == speaker:
            seg.speaker = other
    order: dict[int, int] = {}  # old number -> new, by first appearance
    for seg in transcript.segments:
        if seg.speaker is not None:
            seg.speaker = order.setdefault(seg.speaker, len(order))
    kept = sorted(order, key=order.__getitem__)
    transcript.speakers = [names[i] for i in kept]
    if len(prints) == len(names):
        transcript.voice_prints = [prints[i] for i in kept]
    return order[other]
