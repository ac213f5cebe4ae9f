"""Issue 45's proof 3: each family's own token times put a speaker cut at the right word.

The tiny models (random weights) write random tokens, but their times are the
family's real timing paths: SenseVoice's CTC, Paraformer's BiCIF timestamp
head, Fun-ASR-Nano's CTC head matched to the LLM's text. For each, every
segment carries timed words (in order, inside the segment), and a speaker
turn that changes between two neighbouring words - at any gap between them -
splits the segment exactly there. Qwen3-ASR times no token: its segments
carry no words, its capabilities say so, and a labelled transcript says
`speaker_granularity` "segments" in JSON.
"""

from __future__ import annotations

import json

import pytest

FAMILIES = ["tiny_model", "sv_model", "pf_model"]  # Fun-ASR-Nano (with its CTC head), SenseVoice, Paraformer


@pytest.mark.parametrize("fixture", FAMILIES)
def test_token_times_put_the_cut_at_the_right_word(request, fixture, speech_en, speech_zh):
    import numpy as np

    from tingji.engine import Engine, TranscribeOptions
    from tingji.engine.speakers.diarize import Turn, split_at_turns

    engine = Engine(request.getfixturevalue(fixture), "cpu", threads=2)
    try:
        assert engine.capabilities.word_speakers
        samples = speech_zh if fixture == "pf_model" else speech_en
        segments = engine.transcribe(np.concatenate([samples, samples]), TranscribeOptions()).segments
    finally:
        engine.close()
    words = [w for s in segments for w in s.words or []]
    assert segments and all(s.words is not None for s in segments)
    for s in segments:
        assert all(s.start - 1e-6 <= w.start <= w.end <= s.end + 1e-6 for w in s.words)
        assert all(a.start <= b.start for a, b in zip(s.words, s.words[1:]))
    cuts = 0
    for s in segments:
        for k in range(1, len(s.words)):
            before, after = s.words[k - 1], s.words[k]
            if after.start < before.end or before.start == before.end or after.start == after.end:
                continue  # words on one frame, or of no length: no time of their own to cut between
            at = (before.end + after.start) / 2
            parts = split_at_turns([s], [Turn(s.start - 1, at, 0), Turn(at, s.end + 1, 1)])
            assert [len(p.words) for p in parts] == [k, len(s.words) - k]
            assert [p.speaker for p in parts] == [0, 1] and parts[0].end == parts[1].start == pytest.approx(at)
            cuts += 1
    print(f"{fixture}: {len(segments)} segments, {len(words)} timed words, {cuts} cuts each at the right word")
    assert cuts > 0


def test_qwen3_asr_labels_whole_sentences(q3_model, speaker_model, speech_en):
    from tingji.engine import Engine, TranscribeOptions
    from tingji.engine.writers import to_json

    engine = Engine(q3_model, "cpu", threads=2, speaker_model=speaker_model)
    try:
        assert not engine.capabilities.word_speakers
        transcript = engine.transcribe(speech_en, TranscribeOptions(speakers=1))
    finally:
        engine.close()
    data = json.loads(to_json(transcript))
    print(f"Qwen3-ASR: {len(data['segments'])} segments, speaker_granularity {data['speaker_granularity']!r}")
    assert data["speaker_granularity"] == "segments" and data["speakers"] == ["Speaker 1"]
    assert all("words" not in s and s["speaker"] == "Speaker 1" for s in data["segments"])
