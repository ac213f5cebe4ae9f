"""Issue 45: speaker changes inside a transcript segment split it at a word; words carry speakers.

* Proof 3 (the cut): `diarize.split_at_turns` on segments whose words have
  known times cuts each at the word where the turn changes, gives every part
  and word its speaker, joins CJK words without spaces and leaves a segment
  without word times whole (sentence-level labels).
* JSON: segments carry `words: [{start, end, text, speaker}]` and the
  transcript says `speaker_granularity`; SRT/VTT/TXT show the parts.
* Proofs 1 and 2: quick turn-taking conversations of 2, 3 and 4 held-out
  espeak-ng voices (tests/support/turn_taking.py: turns of 0.5-4 s, pauses
  of 0.2-1 s, about one turn in six a single word) through `Engine.transcribe`
  with the demo ASR model (no punctuation) and the demo speaker model, the
  speaker count known and found. Printed: the frame error rate of the
  speaker turns, of the transcript's segment labels and the share of words
  labelled with their reference turn's voice, against issue 45's goals
  (frame error rate <= 0.10 known, <= 0.15 auto; words >= 90 %). Asserted:
  every word has its segment's speaker, and the split segments' frame error
  rate is no worse than one label per sentence of the same text, and the
  goals (`turn_taking.check_goals`). They hold because each speaker's part
  of a window is recognised alone: read as one window, the demo model's
  decoder loses its place after about ten words and misses whole turns.
"""

from __future__ import annotations

import json

import pytest

from tests.support import turn_taking
from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"


def _words(*spec: tuple[float, float, str]):
    from tingji.engine.transcript import Word

    return [Word(a, b, text) for a, b, text in spec]


def _turns(*spec: tuple[float, float, int]):
    from tingji.engine.speakers.diarize import Turn

    return [Turn(a, b, who) for a, b, who in spec]


def test_split_at_turns_cuts_at_the_word_where_the_turn_changes():
    from tingji.engine.speakers.diarize import split_at_turns
    from tingji.engine.transcript import Segment

    words = _words((0.5, 0.8, "yes"), (1.0, 1.3, "okay"), (2.1, 2.4, "no"), (2.5, 2.9, "stop"), (3.0, 3.3, "go"))
    seg = Segment(0.5, 3.3, "yes okay no stop go", 3, words=words)
    plain = Segment(4.0, 5.0, "hello world", 3)
    turns = _turns((0.4, 1.6, 0), (1.9, 2.95, 1), (2.95, 5.2, 0))
    parts = split_at_turns([seg, plain], turns)
    assert [(p.text, p.speaker) for p in parts] == [("yes okay", 0), ("no stop", 1), ("go", 0), ("hello world", 0)]
    assert [w.speaker for w in parts[0].words + parts[1].words + parts[2].words] == [0, 0, 1, 1, 0]
    # The parts follow on: each ends where the next speaker's turn starts, kept between the two words.
    assert [(p.start, p.end) for p in parts[:3]] == [(0.5, 1.9), (1.9, 2.95), (2.95, 3.3)]
    assert parts[3].words is None and all(p.window == 3 for p in parts)
    assert seg.words[0].speaker is None  # the input is left as it was


def test_split_at_turns_joins_cjk_words_without_spaces():
    from tingji.engine.speakers.diarize import split_at_turns
    from tingji.engine.transcript import Segment

    words = _words((0.0, 0.2, "今"), (0.2, 0.4, "天"), (1.0, 1.2, "开"), (1.2, 1.4, "会。"))
    parts = split_at_turns([Segment(0.0, 1.4, "今天开会。", words=words)], _turns((0, 0.6, 1), (0.6, 2, 0)))
    assert [(p.text, p.speaker) for p in parts] == [("今天", 1), ("开会。", 0)]


def test_sentence_words_times_each_word_from_its_characters():
    from tingji.engine.align import sentence_words

    piece = '"Hi" there, 我用Python写。'
    times = [(i * 0.1, i * 0.1 + 0.1) for i in range(len(piece))]
    got = sentence_words(piece, times)
    assert [w for _, _, w in got] == ['"Hi"', "there,", "我", "用", "Python", "写。"]
    assert got[0][:2] == pytest.approx((0.1, 0.3)) and got[4][:2] == pytest.approx((1.4, 2.0))


def test_json_carries_words_and_granularity_and_the_formats_show_the_parts():
    from tingji.engine import writers
    from tingji.engine.speakers.diarize import split_at_turns
    from tingji.engine.transcript import Segment, Transcript

    seg = Segment(0.5, 2.4, "yes no", words=_words((0.5, 0.8, "yes"), (2.1, 2.4, "no")))
    t = Transcript(split_at_turns([seg], _turns((0.4, 1.6, 0), (1.9, 3, 1))), 3.0, "m", "cpu", "")
    t.speakers, t.speaker_granularity = ["Ann", "Bo"], "words"
    data = json.loads(writers.to_json(t))
    assert data["speaker_granularity"] == "words"
    assert [s["words"] for s in data["segments"]] == [
        [{"start": 0.5, "end": 0.8, "text": "yes", "speaker": "Ann"}],
        [{"start": 2.1, "end": 2.4, "text": "no", "speaker": "Bo"}],
    ]
    assert writers.to_txt(t) == "Ann: yes\nBo: no\n"
    assert "00:00:00,500 --> 00:00:01,900\nAnn: yes" in writers.to_srt(t)
    assert "<v Bo>no" in writers.to_vtt(t)


@pytest.fixture(scope="module")
def engine():
    from tingji.engine import Engine

    eng = Engine(DEMO, "cpu", threads=2, speaker_model=SPEAKER_DEMO)
    yield eng
    eng.close()


@pytest.fixture(scope="module", params=turn_taking.CASES, ids=turn_taking.CASE_IDS)
def talk(request):
    return turn_taking.conversation(*request.param)


@pytest.mark.parametrize("mode", ["known", "auto"])
def test_quick_turns_split_inside_segments(engine, talk, mode):
    from types import SimpleNamespace

    from tingji.engine import TranscribeOptions
    from tingji.engine.speakers import diarize

    count = len({who for _, _, who in talk.turns})
    asked = count if mode == "known" else "auto"
    transcript = engine.transcribe(talk.samples, TranscribeOptions(speakers=asked))
    assert transcript.speaker_granularity == "words" and engine.capabilities.word_speakers
    segments = [s for s in transcript.segments if s.text.strip()]
    assert segments and all(s.words for s in segments)
    assert all(w.speaker == s.speaker for s in segments for w in s.words)
    words = [w for s in segments for w in s.words]
    fer = turn_taking.frame_error_rate(talk, segments)
    agree = turn_taking.word_agreement(talk, words)
    # The diarization's own turns (the product's windows, clustering and smoothing on the engine's VAD
    # spans), scored the same way; and the sentences the parts were cut from, one label each, as before.
    spans = [(round(a * 16000), round(b * 16000)) for a, b in _speech(engine, talk.samples)]
    turns = diarize.speaker_turns(engine.speaker_model, talk.samples, spans, count if mode == "known" else None)
    turn_fer = turn_taking.frame_error_rate(talk, [SimpleNamespace(**vars(t), text="x") for t in turns])
    sentences = []
    for s in segments:  # parts of one sentence follow on exactly (split_at_turns' cuts)
        if sentences and s.window == sentences[-1].window and s.start == sentences[-1].end:
            sentences[-1].end = s.end
        else:
            sentences.append(SimpleNamespace(start=s.start, end=s.end, window=s.window, text="x"))
    for s in sentences:
        s.speaker = diarize.speaker_of(s.start, s.end, turns)
    sentence_fer = turn_taking.frame_error_rate(talk, sentences)
    goal = turn_taking.GOAL_KNOWN if mode == "known" else turn_taking.GOAL_AUTO
    print(
        f"{count} speakers, {talk.seconds:.0f} s, {len(talk.turns)} turns, {mode} count: {len(sentences)} sentences "
        f"-> {len(segments)} segments, {len(transcript.speakers)} speakers; frame error rate of the segment labels "
        f"{fer:.3f} (goal {goal}: {'met' if fer <= goal else 'NOT met'}; one label a sentence: {sentence_fer:.3f}; "
        f"the speaker turns themselves: {turn_fer:.3f}); words labelled right {100 * agree:.1f}% of {len(words)} "
        f"(goal {100 * turn_taking.GOAL_WORDS:.0f}%: {'met' if agree >= turn_taking.GOAL_WORDS else 'NOT met'})"
    )
    # Splitting at words never does worse than one label per sentence.
    assert fer <= sentence_fer + 1e-9
    # Issue 45's goals: met, or an expected failure while the demo model's text misses or loops over words.
    turn_taking.check_goals(fer, agree, goal)


def _speech(engine, samples) -> list[tuple[float, float]]:
    from tingji.engine.windows import WindowPlanner

    planner = WindowPlanner(engine.vad, max_s=len(samples) / 16000 + 1)
    wins = [*planner.feed(samples), *planner.finish()]
    return [(w.start / 16000 + a, w.start / 16000 + b) for w in wins for a, b in w.speech]


def test_one_voice_with_pauses_is_one_part(engine):
    """Pauses between one voice's sentences are no speaker change: the window is recognised whole, as with
    speakers off (the window's own turns on either side of a pause are one speaker's)."""
    import numpy as np
    from demo_model import recipe
    from demo_model.speech import Speaker, espeak_many

    from tingji.engine import TranscribeOptions

    rng = np.random.default_rng(7)
    voice = Speaker("en-us", "m4", 165, 30, 1)
    pause = np.zeros(8000, np.float32)
    clips = espeak_many([(" ".join(rng.choice(recipe.WORDS, 5)), voice) for _ in range(14)])
    audio = np.concatenate([pause, *(x for clip in clips for x in (clip, pause))])
    labelled = engine.transcribe(audio, TranscribeOptions(speakers="auto"))
    print(f"one voice, {len(audio) / 16000:.0f} s: {len(labelled.window_info)} part(s), speakers {labelled.speakers}")
    assert labelled.speakers == ["Speaker 1"]
    assert len(labelled.window_info) == len({w.index for w in labelled.window_info}) == 1


def test_split_window_gives_each_part_its_own_speech_spans():
    import numpy as np

    from tingji.engine.windows import Window, quiet_frame, split_window

    rate = 16000
    window = Window(3, rate, np.arange(3 * rate, dtype=np.float32), [(0.2, 1.2), (1.5, 2.8)])
    # a cut in the pause, one inside the second span, and cuts at the ends or repeated (left out)
    parts = split_window(window, [0, round(1.35 * rate), round(1.35 * rate), round(2.0 * rate), 3 * rate])
    assert [(p.index, p.start, len(p.samples)) for p in parts] == [
        (3, rate, round(1.35 * rate)),
        (3, rate + round(1.35 * rate), round(0.65 * rate)),
        (3, 3 * rate, rate),
    ]
    assert [[(round(a, 3), round(b, 3)) for a, b in p.speech] for p in parts] == [
        [(0.2, 1.2)],
        [(0.15, 0.65)],
        [(0.0, 0.8)],
    ]
    assert parts[1].samples[0] == round(1.35 * rate)  # the samples follow on, none lost or repeated
    assert split_window(window, []) == [window]
    # the quiet point: the middle of the longest run under the threshold, else the least speech-like frame
    assert quiet_frame(np.array([0.9, 0.1, 0.9, 0.1, 0.1, 0.1, 0.9]), 0.35) == 4
    assert quiet_frame(np.array([0.9, 0.8, 0.5, 0.8, 0.9]), 0.35) == 2
