"""What a transcription produces: timed segments, the text, and how it was made.

Kept apart from the pipeline (`transcribe.py`) because everything downstream -
writers, the GUI's storage, dictation - needs these plain dataclasses and
none of the machinery that fills them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ErrorReport


@dataclass
class Word:
    """A word (a character, in Chinese or Japanese) with its own time, where the model times tokens.

    Attributes:
        start: Seconds from the start of the source.
        end: Seconds from the start of the source.
        text: The word, with the punctuation that follows it.
        speaker: Who spoke it, as `Segment.speaker` numbers speakers; None when speakers were not labelled.
    """

    start: float
    end: float
    text: str
    speaker: int | None = None

    def to_dict(self, names: list[str]) -> dict[str, Any]:
        item: dict[str, Any] = {"start": round(self.start, 3), "end": round(self.end, 3), "text": self.text}
        if names:
            item["speaker"] = names[self.speaker] if self.speaker is not None and self.speaker < len(names) else None
        return item


@dataclass
class Segment:
    """A timed piece of the transcript, about a sentence long.

    Attributes:
        start: Seconds from the start of the source.
        end: Seconds from the start of the source.
        text: The piece's text.
        window: The index of the window it was recognised in.
        speaker: Who spoke it, as an index into `Transcript.speakers` (in
            order of first appearance); None when speakers were not labelled.
        words: Its words with their times, where the model times tokens
            (`Capabilities.timestamps` "tokens"); None otherwise. A speaker
            change inside a segment splits it at a word (`speakers.labels`).
    """

    start: float
    end: float
    text: str
    window: int = 0
    speaker: int | None = None
    words: list[Word] | None = None


@dataclass(frozen=True)
class VoicePrint:
    """One speaker's voice in one file, as a speaker model heard it (never audio).

    Attributes:
        embedding: The mean of the speaker's windows' unit-length embeddings (float32).
        windows: How many embedding windows it is the mean of (a merge weighs by it).
        model: The speaker model's identity (`SpeakerModel.identity`): prints of
            different models never compare.
    """

    embedding: np.ndarray
    windows: int
    model: str


@dataclass
class WindowInfo:
    """What a model said about one window besides its text.

    Attributes:
        index: The window's number, from 0.
        start: Where the recognised audio begins, in seconds from the start
            of the source (after trimming to speech).
        end: Where it ends, in seconds.
        language: The language code the model detected (or was told); None
            when it does not say.
        extras: Family-specific labels, such as SenseVoice's emotion and
            audio-event tags (`Capabilities.tags`), so JSON output can carry
            them without the pipeline knowing what they mean.
    """

    index: int
    start: float
    end: float
    language: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "start": round(self.start, 3),
            "end": round(self.end, 3),
            "language": self.language,
            **self.extras,
        }


@dataclass
class Progress:
    """Reported after each window: how far the transcription is, and the segments it produced.

    Attributes:
        done_s: Seconds of the source read so far.
        total_s: The source's length in seconds; None when it is not known.
        window: The index of the window just finished.
        segments: That window's segments.
    """

    done_s: float
    total_s: float | None
    window: int
    segments: list[Segment]

    @property
    def fraction(self) -> float | None:
        """The share done, 0 to 1; None when the length is not known."""
        if not self.total_s:
            return None
        return min(1.0, self.done_s / self.total_s)


@dataclass
class Transcript:
    """What `Engine.transcribe` returns: the timed text and how it was made.

    Attributes:
        segments: The timed pieces, in order (`text` is the whole text).
        duration: Seconds of audio read.
        model: The model folder's name.
        provider: Where ONNX Runtime ran the encoder at the end (`"cpu"`, ...).
        decoder_device: Where an LLM decoder finished: `"cpu"` or its GPU (`"vulkan:0 (<adapter>)"`);
            `""` without one.
        language: The language code it was told, or else the one the model
            heard in most windows; None when neither is known.
        source: The file's path; None for samples.
        timings: Seconds per stage (`"read"`, `"vad"`, the family's stages,
            `"total"`).
        windows: Windows the audio was cut into.
        skipped_windows: Windows with no speech, not recognised.
        warnings: What the user should know: a choice the model could not
            take, damage in the file, a GPU provider that fell back, ...
        window_tokens: Each recognised window's token ids.
        window_texts: Each recognised window's text.
        window_info: What the model said about each recognised window.
        family: The model family.
        complete: False when the source could not be read to its end (the
            reason is in `warnings`).
        speakers: The speakers' names, indexed by `Segment.speaker` ("Speaker 1",
            ... until renamed); empty when speakers were not labelled.
        voice_prints: Each speaker's `VoicePrint`, indexed like `speakers` (for
            a voice library, `engine.speakers.library`); never written by the writers.
        speaker_granularity: How finely speakers were labelled: `"words"` (a segment is
            split where the speaker changes, each word labelled), `"segments"` (one label
            per sentence: the model does not time its tokens); "" when not labelled.
    """

    segments: list[Segment]
    duration: float
    model: str
    provider: str
    decoder_device: str
    device: str = ""  # the graphics adapter the provider ran on (DirectML); "" on the CPU
    language: str | None = None
    source: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    windows: int = 0
    skipped_windows: int = 0
    warnings: list[ErrorReport] = field(default_factory=list)  # tingji.errors.warning: English text, code, fields
    window_tokens: list[list[int]] = field(default_factory=list)
    window_texts: list[str] = field(default_factory=list)
    window_info: list[WindowInfo] = field(default_factory=list)
    family: str = ""
    complete: bool = True  # False: the source could not be read to its end (the reason is in warnings)
    speakers: list[str] = field(default_factory=list)
    voice_prints: list[VoicePrint] = field(default_factory=list)
    speaker_granularity: str = ""

    @property
    def text(self) -> str:
        """The whole transcript: each window's text as decoded (segments are a display split of it)."""
        parts = [t for t in self.window_texts if t]
        if not parts and self.segments:  # e.g. rebuilt from stored segments
            parts = [s.text.strip() for s in self.segments if s.text.strip()]
        return join_texts(parts)

    def speaker_name(self, segment: Segment) -> str | None:
        """The name of the segment's speaker; None when it has none."""
        if segment.speaker is None or not 0 <= segment.speaker < len(self.speakers):
            return None
        return self.speakers[segment.speaker]

    def to_dict(self) -> dict[str, Any]:
        segments = []
        for s in self.segments:
            item: dict[str, Any] = {"start": round(s.start, 3), "end": round(s.end, 3), "text": s.text}
            if self.speakers:
                item["speaker"] = self.speaker_name(s)
            if s.words is not None:
                item["words"] = [w.to_dict(self.speakers) for w in s.words]
            segments.append(item)
        speakers = (
            {"speakers": list(self.speakers), "speaker_granularity": self.speaker_granularity} if self.speakers else {}
        )
        return {
            "text": self.text,
            "segments": segments,
            **speakers,
            "source": self.source,
            "duration": round(self.duration, 3),
            "complete": self.complete,
            "language": self.language,
            "model": self.model,
            "family": self.family,
            "provider": self.provider,
            "device": self.device,
            "decoder_device": self.decoder_device,
            "windows": self.windows,
            "skipped_windows": self.skipped_windows,
            "window_info": [w.to_dict() for w in self.window_info],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "warnings": [w.text for w in self.warnings],  # English, for people and scripts
            "warning_codes": [w.to_data() for w in self.warnings],  # the same, as code and fields
        }


def join_texts(parts: list[str]) -> str:
    """Texts of consecutive windows as one: no space between CJK sentences, one between Latin ones."""
    if not parts:
        return ""
    out = parts[0]
    for p in parts[1:]:
        out += p if (is_cjk(out[-1]) or is_cjk(p[0])) else " " + p
    return out


def is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"
