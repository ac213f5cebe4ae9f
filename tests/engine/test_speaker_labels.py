"""Speaker labels as a step of `Engine.transcribe`: the option, the segments' field, the writers' formats.

The speaker model here has random weights (tools/tiny_campplus.py), so it
separates nobody: these tests check the plumbing - every segment labelled, a
known count never exceeded, names in order of appearance, the formats of each
writer, one clear warning for each kind of bad input - not that voices are
told apart (that needs a trained speaker model: issue 33's proof 3). The speech
comes from the committed demo ASR model, so segments hold real words.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.support.paths import ROOT
from tingji.engine import Segment, TranscribeOptions, Transcript
from tingji.engine.speakers.labels import SpeakerLabels, default_names
from tingji.engine.speakers.model import SpeakerModel
from tingji.engine.writers import render
from tingji.errors import TingjiError

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
RATE = 16000


def _codes(transcript: Transcript) -> list[str]:
    return [w.code for w in transcript.warnings]


# -- the option -----------------------------------------------------------------------------------


@pytest.mark.parametrize("given, taken", [("off", "off"), ("AUTO", "auto"), (3, 3), ("8", 8), (" 1 ", 1)])
def test_speakers_option_takes_off_auto_or_a_count(given, taken):
    assert TranscribeOptions(speakers=given).speakers == taken


@pytest.mark.parametrize("bad", [0, 9, -1, "many", "", True, 2.0, None])
def test_speakers_option_refuses_anything_else_with_one_coded_line(bad):
    with pytest.raises(TingjiError) as info:
        TranscribeOptions(speakers=bad)
    assert info.value.code == "speakers.choice"
    assert "\n" not in str(info.value) and "1 to 8" in str(info.value)


# -- the writers ----------------------------------------------------------------------------------


def _labelled() -> Transcript:
    segments = [
        Segment(0.0, 1.5, "hello world", speaker=0),
        Segment(1.5, 3.0, "open the file", speaker=1),
        Segment(3.0, 4.0, "thank you", speaker=0),
    ]
    return Transcript(segments, 4.0, "demo", "cpu", "", speakers=["Speaker 1", "Ann <host> & co"])


def test_writers_put_the_speaker_in_each_format():
    t = _labelled()
    assert render(t, "txt").splitlines() == [
        "Speaker 1: hello world",
        "Ann <host> & co: open the file",
        "Speaker 1: thank you",
    ]
    srt = render(t, "srt").split("\n\n")
    assert [cue.splitlines()[2] for cue in srt] == [
        "Speaker 1: hello world",
        "Ann <host> & co: open the file",
        "Speaker 1: thank you",
    ]
    vtt = render(t, "vtt").split("\n\n")[1:]
    # the voice span's annotation cannot hold "<", ">" or "&" raw (WebVTT cue text): escaped
    assert [cue.splitlines()[1] for cue in vtt] == [
        "<v Speaker 1>hello world",
        "<v Ann &lt;host&gt; &amp; co>open the file",
        "<v Speaker 1>thank you",
    ]
    data = json.loads(render(t, "json"))
    assert [s["speaker"] for s in data["segments"]] == ["Speaker 1", "Ann <host> & co", "Speaker 1"]
    assert data["speakers"] == ["Speaker 1", "Ann <host> & co"]


def test_writers_without_speakers_are_unchanged():
    t = _labelled()
    t.speakers = []
    assert render(t, "txt").splitlines() == ["hello world", "open the file", "thank you"]
    assert "<v " not in render(t, "vtt") and "Speaker" not in render(t, "srt")
    data = json.loads(render(t, "json"))
    assert "speakers" not in data and all("speaker" not in s for s in data["segments"])


# -- the pipeline step ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine(speaker_model: Path):
    from tingji.engine import Engine

    eng = Engine(DEMO, "cpu", threads=2, speaker_model=speaker_model)
    yield eng
    eng.close()


@pytest.mark.parametrize("speakers", ["auto", 2, 1, 3])
def test_every_segment_gets_a_speaker_and_a_count_is_respected(engine, two_voices, speakers):
    t = engine.transcribe(two_voices, TranscribeOptions(speakers=speakers))
    labels = [s.speaker for s in t.segments]
    print(f"speakers={speakers}: {len(t.segments)} segments, {len(t.speakers)} speaker(s), labels {labels}")
    assert len(t.segments) >= 2 and t.text  # the demo model writes no punctuation: long segments
    assert all(label is not None and 0 <= label < len(t.speakers) for label in labels)
    assert t.speakers == default_names(len(t.speakers)) and len(t.speakers) >= 1
    assert labels[0] == 0  # numbered in order of first appearance
    assert sorted(set(labels)) == list(range(len(t.speakers)))  # no name without a segment
    if speakers != "auto":
        assert len(t.speakers) <= speakers
        fewer = len(t.speakers) < speakers
        assert ("speakers.fewer" in _codes(t)) == fewer
    assert t.timings["speakers"] > 0
    data = t.to_dict()
    assert [s["speaker"] for s in data["segments"]] == [t.speakers[label] for label in labels]


def test_speakers_off_labels_nothing(engine, two_voices):
    plain = engine.transcribe(two_voices)
    labelled = engine.transcribe(two_voices, TranscribeOptions(speakers="auto"))
    assert plain.speakers == [] and all(s.speaker is None for s in plain.segments)
    assert "speakers" not in plain.timings

    # With speakers on, each speaker's part of a window is recognised alone (issue 45): the window is
    # cut between the voices, and every word stays inside one part.
    parts = [(w.start, w.end) for w in labelled.window_info]
    assert len(parts) >= len(plain.window_info), (parts, plain.window_info)
    for seg in labelled.segments:
        for w in seg.words or []:
            assert any(a - 1e-6 <= w.start and w.end <= b + 1e-6 for a, b in parts), (w, parts)
    same_window = [(x, y) for x, y in zip(labelled.window_info, labelled.window_info[1:]) if x.index == y.index]
    assert all(x.end <= y.start for x, y in same_window)  # the parts do not overlap
    if not same_window:  # no change inside a window (this random-weight speaker model): no word differs

        def words(t):
            return [(w.start, w.end, w.text) for s in t.segments for w in s.words or []]

        assert words(plain) == words(labelled)
    # (Where the parts fall and whose they are is scored with the trained demo speaker model in
    # test_speaker_words.py.)


def test_asked_without_a_speaker_model_warns_and_keeps_the_text(two_voices):
    from tingji.engine import Engine

    eng = Engine(DEMO, "cpu", threads=2)
    try:
        t = eng.transcribe(two_voices, TranscribeOptions(speakers=2))
    finally:
        eng.close()
    assert _codes(t).count("speakers.no_model") == 1
    assert t.text and t.speakers == [] and all(s.speaker is None for s in t.segments)


def test_all_silence_is_a_warning_not_an_error(engine):
    t = engine.transcribe(np.zeros(RATE * 5, np.float32), TranscribeOptions(speakers="auto"))
    assert t.segments == [] and t.speakers == []
    assert "speakers.no_speech" in _codes(t)


# -- SpeakerLabels on its own ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def model(speaker_model: Path) -> SpeakerModel:
    return SpeakerModel(speaker_model, provider="cpu", threads=2)


def test_windows_are_placed_in_the_file(model):
    """A window's speech spans are seconds from its start; the embedding windows are in file time."""
    labels = SpeakerLabels(model)
    rng = np.random.default_rng(0)
    samples = (0.1 * rng.standard_normal(RATE * 10)).astype(np.float32)
    labels.add(samples, start=60 * RATE, speech=[(1.0, 3.0), (9.5, 12.0)])  # the second runs past the window
    starts = [(w.start, w.end) for w in labels.windows]
    assert starts[0] == (61.0, 62.5) and starts[-1][1] == 70.0
    assert all(61.0 <= a < b <= 70.0 for a, b in starts)
    assert labels.speech_s == pytest.approx(2.5)


def test_shorter_than_a_window_is_one_speaker(model):
    """0.8 s of speech: one zero-padded window, one speaker, and a warning when more were asked for."""
    rng = np.random.default_rng(1)
    samples = (0.1 * rng.standard_normal(RATE * 2)).astype(np.float32)
    for count in (None, 3):
        labels = SpeakerLabels(model, count)
        labels.add(samples, start=0, speech=[(0.5, 1.3)])
        segments = [Segment(0.5, 1.3, "yes")]
        names, notes = labels.label(segments)
        assert names == ["Speaker 1"] and segments[0].speaker == 0
        assert [n.code for n in notes] == ([] if count is None else ["speakers.fewer"])


def test_no_speech_spans_give_no_labels(model):
    labels = SpeakerLabels(model, 2)
    labels.add(np.zeros(RATE, np.float32), start=0, speech=[])
    segments = [Segment(0.0, 1.0, "")]
    names, notes = labels.label(segments)
    assert names == [] and segments[0].speaker is None
    assert [n.code for n in notes] == ["speakers.no_speech"]
