"""The voice library: named voice prints that label returning speakers in later files. No Qt.

A voice is the mean of a speaker's unit-length window embeddings (a
`transcript.VoicePrint`, never audio), stored as one plain JSON file per voice
in the user data folder's `voices/` (`paths.voices_dir`), written atomically
(`tingji.atomic`). Deleting a voice deletes its file. A file that cannot be
read as a voice is never overwritten: it is renamed `<name>.bad-<time>` and
reported once as a coded warning, and the other voices go on working.

`name_speakers(transcript, library)` gives a transcript's speakers the names
of the stored voices they match: each speaker's print against every voice of
the same speaker model, best pairs first, each voice used once, a pair only
when its cosine is at least `MATCH_COSINE`; the others keep "Speaker N".
"""

from __future__ import annotations

import json
import math
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ... import atomic
from ...errors import ErrorReport, TingjiError, warning
from .. import messages
from ..transcript import Transcript, VoicePrint

# The least cosine between a speaker's print and a stored voice for the speaker to get the voice's name:
# benchmarks/diarization.py --voices, midway between the highest different-voice score and the lowest
# same-voice score of the demo speaker model's calibration voices - never-trained espeak-ng variants at accents
# and pitches the tests' voices do not have, in other recordings - so test_speaker_demo.py judges it on voices
# it was not fitted on (benchmarks/README.md has the figures).
MATCH_COSINE = 0.67
FORMAT = 1  # the voice files' format number
MAX_NAME_CHARS = 64
SUFFIX = ".json"


@dataclass(frozen=True)
class Voice:
    """A stored voice.

    Attributes:
        id: Its file's stem in the library folder.
        name: The name speakers matching it are given.
        embedding: Its print (float32, the mean of unit-length embeddings).
        windows: How many embedding windows the print is the mean of.
        model: The speaker model that made it (`SpeakerModel.identity`).
        created: When it was first remembered (seconds since the epoch).
    """

    id: str
    name: str
    embedding: np.ndarray
    windows: int
    model: str
    created: float


def clean_name(name: str) -> str:
    """A voice's or speaker's name as stored: trimmed, one line, 1 to 64 characters (TingjiError otherwise)."""
    text = " ".join(str(name).split())
    if not text or len(text) > MAX_NAME_CHARS or not text.isprintable():
        raise TingjiError(messages.VOICE_NAME, name=name, most=MAX_NAME_CHARS)
    return text


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a64 @ b64 / max(np.linalg.norm(a64) * np.linalg.norm(b64), 1e-12))


def _voice(path: Path, data: object) -> Voice:
    """A voice from a file's parsed JSON; ValueError says what is wrong."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a format {FORMAT} voice")
    name, model, windows, created = data.get("name"), data.get("model"), data.get("windows"), data.get("created")
    values = data.get("embedding")
    if not isinstance(name, str) or not isinstance(model, str) or not model:
        raise ValueError("no name or model")
    if not isinstance(windows, int) or isinstance(windows, bool) or windows < 1:
        raise ValueError("windows must be a count")
    if not isinstance(values, list) or not values or not all(isinstance(v, (int, float)) for v in values):
        raise ValueError("the embedding must be a list of numbers")
    embedding = np.asarray(values, np.float32)
    if not np.isfinite(embedding).all() or not np.any(embedding):
        raise ValueError("the embedding is not finite or all zero")
    stamp = float(created) if isinstance(created, (int, float)) and math.isfinite(created) else 0.0
    return Voice(path.stem, clean_name(name), embedding, windows, model, stamp)


class VoiceLibrary:
    """The voices in one folder.

    Args:
        folder: Where the voice files are (`paths.voices_dir()` for the app); created on the first save.

    `problems` collects a warning for each unreadable file set aside by `voices()`.
    Saving raises TingjiError (`voices.write_failed`) when the folder cannot be written.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.problems: list[ErrorReport] = []

    def voices(self) -> list[Voice]:
        """Every readable voice, by name; unreadable files are set aside (and reported in `problems`)."""
        found: list[Voice] = []
        try:
            paths = sorted(self.folder.glob(f"*{SUFFIX}"))
        except OSError:
            return []
        for path in paths:
            try:
                found.append(_voice(path, json.loads(path.read_text(encoding="utf-8"))))
            except FileNotFoundError:
                continue  # deleted meanwhile
            except (OSError, ValueError, TingjiError) as exc:
                self._set_aside(path, exc)
        return sorted(found, key=lambda v: (v.name.casefold(), v.created))

    def _set_aside(self, path: Path, why: Exception) -> None:
        kept = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            os.replace(path, kept)
        except OSError:
            kept = path  # left where it is; still never overwritten (new voices get new names)
        reason = str(why) if not isinstance(why, OSError) else why.strerror or str(why)
        self.problems.append(warning(messages.VOICE_FILE_BAD, file=str(path), reason=reason, kept=kept.name))

    def get(self, voice_id: str) -> Voice | None:
        return next((v for v in self.voices() if v.id == voice_id), None)

    def _save(self, voice: Voice) -> Voice:
        data = {
            "format": FORMAT,
            "name": voice.name,
            "model": voice.model,
            "windows": voice.windows,
            "created": voice.created,
            "embedding": [float(x) for x in voice.embedding],
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic.write_text(self.folder / f"{voice.id}{SUFFIX}", json.dumps(data, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise TingjiError(messages.VOICE_WRITE_FAILED, folder=str(self.folder), reason=exc.strerror or exc) from exc
        return voice

    def remember(self, name: str, voice_print: VoicePrint) -> Voice:
        """Store a speaker's print under `name`. A voice of that name (any case) from the same speaker model
        takes it in: its print becomes the mean of both, weighed by their windows."""
        name = clean_name(name)
        for old in self.voices():
            if old.name.casefold() == name.casefold() and old.model == voice_print.model:
                total = old.windows + voice_print.windows
                mean = (old.embedding * old.windows + voice_print.embedding * voice_print.windows) / total
                return self._save(Voice(old.id, old.name, mean.astype(np.float32), total, old.model, old.created))
        embedding = np.asarray(voice_print.embedding, np.float32)
        windows = max(1, voice_print.windows)
        return self._save(Voice(uuid.uuid4().hex[:16], name, embedding, windows, voice_print.model, time.time()))

    def rename(self, voice_id: str, name: str) -> Voice:
        """Give a voice another name; a name another voice has is refused (`voices.name_taken`)."""
        name = clean_name(name)
        voices = self.voices()
        voice = next((v for v in voices if v.id == voice_id), None)
        if voice is None:
            raise TingjiError(messages.VOICE_GONE, name=voice_id)
        if any(v.id != voice_id and v.name.casefold() == name.casefold() for v in voices):
            raise TingjiError(messages.VOICE_NAME_TAKEN, name=name)
        return self._save(Voice(voice.id, name, voice.embedding, voice.windows, voice.model, voice.created))

    def delete(self, voice_id: str) -> None:
        """Remove a voice: its file is deleted (the print is no longer on disk)."""
        path = self.folder / f"{Path(voice_id).name}{SUFFIX}"
        try:
            path.unlink(missing_ok=True)
            atomic.fsync_dir(self.folder)
        except OSError as exc:
            raise TingjiError(messages.VOICE_WRITE_FAILED, folder=str(self.folder), reason=exc.strerror or exc) from exc

    def match(self, prints: Sequence[VoicePrint]) -> list[Voice | None]:
        """The stored voice each print matches (cosine >= MATCH_COSINE, same model, each voice at most once)."""
        voices = self.voices()
        pairs = []
        for i, p in enumerate(prints):
            for j, v in enumerate(voices):
                if v.model == p.model and v.embedding.shape == p.embedding.shape:
                    score = cosine(p.embedding, v.embedding)
                    if score >= MATCH_COSINE:
                        pairs.append((score, i, j))
        found: list[Voice | None] = [None] * len(prints)
        used: set[int] = set()
        for _, i, j in sorted(pairs, reverse=True):
            if found[i] is None and j not in used:
                found[i] = voices[j]
                used.add(j)
        return found


def name_speakers(transcript: Transcript, library: VoiceLibrary) -> list[str]:
    """Rename the transcript's speakers whose prints match a stored voice; returns the names given.
    The library's problems (a file set aside) join the transcript's warnings."""
    given: list[str] = []
    if transcript.speakers and len(transcript.voice_prints) == len(transcript.speakers):
        for i, voice in enumerate(library.match(transcript.voice_prints)):
            # A voice named like another speaker here ("Speaker 2") would make two speakers one: left out.
            if voice is not None and voice.name not in transcript.speakers:
                transcript.speakers[i] = voice.name
                given.append(voice.name)
    transcript.warnings.extend(library.problems)
    library.problems = []
    return given
