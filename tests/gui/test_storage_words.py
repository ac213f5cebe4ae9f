"""The queue's store keeps a transcript's timed words and their speakers across a restart (issue 45)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.support.audio import write_wav
from tests.support.paths import ROOT
from tingji.engine import Engine, TranscribeOptions
from tingji.engine.writers import render
from tingji.gui.files.storage import Store

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"

from demo_model import speech  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)


def test_words_and_their_speakers_survive_a_save_and_reload(tmp_path: Path) -> None:
    """A real transcript of the demo model (Nano with its CTC head: timed words), its words labelled with two
    speakers as the speakers step labels them, stored, the store closed, and read back."""
    clips = [u.samples for u in speech.held_out_set(2, seed=4545)]
    src = write_wav(tmp_path / "two.wav", np.concatenate([clips[0], np.zeros(8000, np.float32), clips[1]]))
    engine = Engine(DEMO, threads=2)
    try:
        transcript = engine.transcribe(str(src), TranscribeOptions())
    finally:
        engine.close()
    words = [w for s in transcript.segments for w in s.words or []]
    assert len(words) >= 2, transcript.to_dict()  # the model timed its words
    for i, word in enumerate(words):  # the first half Ann's, the rest another speaker's
        word.speaker = 0 if i < len(words) // 2 else 1
    for segment in transcript.segments:
        segment.speaker = segment.words[0].speaker if segment.words else None
    transcript.speakers, transcript.speaker_granularity = ["Ann", "Speaker 2"], "words"

    store = Store(tmp_path / "q.sqlite3")
    (job,) = store.add([str(src)])
    store.start(job.id)
    store.finish(job.id, transcript)
    store.close()
    again = Store(tmp_path / "q.sqlite3").transcript(job.id)

    assert again is not None
    assert [[(w.start, w.end, w.text, w.speaker) for w in s.words or []] for s in again.segments] == [
        [(round(w.start, 3), round(w.end, 3), w.text, w.speaker) for w in s.words or []] for s in transcript.segments
    ]
    assert again.to_dict()["segments"] == transcript.to_dict()["segments"]  # JSON export: words and all
    assert again.speaker_granularity == "words"
    assert render(again, "srt") == render(transcript, "srt")


def test_a_transcript_without_timed_words_stays_without(tmp_path: Path) -> None:
    from tingji.engine.transcript import Segment, Transcript

    store = Store(tmp_path / "q.sqlite3")
    (job,) = store.add(["/m/a.wav"])
    store.start(job.id)
    store.finish(job.id, Transcript([Segment(0.0, 1.0, "hello")], 1.0, "m", "cpu", "cpu"))
    again = store.transcript(job.id)
    assert again is not None and again.segments[0].words is None
    assert "words" not in again.to_dict()["segments"][0]
