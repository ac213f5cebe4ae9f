"""A labelled transcript for tests of speaker names, renames and voice prints."""

from __future__ import annotations

from collections.abc import Sequence

from tingji.engine.transcript import Segment, Transcript, VoicePrint


def three_speakers(prints: Sequence[VoicePrint]) -> Transcript:
    """Segments "a", "b", "c", one per speaker, named "Speaker 1" to "Speaker 3", with these voice prints."""
    return Transcript(
        [Segment(0, 1, "a", speaker=0), Segment(1, 2, "b", speaker=1), Segment(2, 3, "c", speaker=2)],
        3.0,
        "m",
        "cpu",
        "",
        speakers=["Speaker 1", "Speaker 2", "Speaker 3"],
        voice_prints=list(prints),
    )
