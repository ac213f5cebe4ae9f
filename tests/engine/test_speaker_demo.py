"""Issue 33's proof 3: the demo speaker model tells voices it never heard apart, end to end.

The model (tests/fixtures/models/speaker-demo, trained by
tools/speaker_demo/gpu_train.py; its README says how) is a small CAM++ in the
official layout. Every voice here is one of `speaker_demo.voices.held_out_voices()`,
made from espeak-ng voice variants that training never used.

* Diarization: synthetic conversations of 2, 3 and 4 of those voices (turns
  of 1-15 s, every fourth starting 0.5 s before the previous one ends), run
  through `Engine.transcribe` with the demo ASR model and speakers "auto" or
  the known count. The diarization error rate of the speaker turns (the
  product's `diarize.speaker_turns` on the engine's own VAD spans, the same
  windows, clustering and smoothing as the transcript's labels) is scored by
  pyannote.metrics' `DiarizationErrorRate`, with a 0.25 s collar either side
  of each reference boundary (its `collar=0.5` is the total width, as NIST's
  md-eval) and overlapped speech scored (`skip_overlap=False`): the overlaps
  count as missed speech for the quieter speaker, since one label per
  moment is what the product gives. Issue 33's goals are asserted: DER <= 10 %
  with the count found, <= 5 % with it given.
* Voice library: each held-out voice in three separate recordings; a voice
  print is the mean of a recording's unit-length window embeddings, as the
  library stores it. The library remembers the first recording of every
  low-pitched voice and is asked about every other recording: each returning
  voice gets its own name, and no voice it does not hold gets one (each of
  those shares its espeak-ng variant with a stored voice, at another pitch)
  at the product's `MATCH_COSINE`, which benchmarks/diarization.py --voices
  fitted on other voices and recordings (its `calibration_voices`), so this
  test can fail.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"
COLLAR = 0.5  # pyannote's collar is the whole width: 0.25 s each side of a reference boundary

from speaker_demo import voices  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)

GOAL_AUTO, GOAL_KNOWN = 0.10, 0.05  # issue 33's goals (measured 0.2-0.3 %: the fixture's README)
# (speakers, seconds, seed): one conversation per case.
CASES = [(2, 60, 2), (3, 90, 3), (4, 120, 4)]


@pytest.fixture(scope="module")
def engine():
    from tingji.engine import Engine

    eng = Engine(DEMO, "cpu", threads=2, speaker_model=SPEAKER_DEMO)
    yield eng
    eng.close()


def pick_voices(count: int, seed: int) -> list:
    """`count` held-out voices with different variants (two voices of one variant differ in pitch only)."""
    return voices.pick_distinct(voices.held_out_voices(), count, seed)


def vad_spans(engine, samples: np.ndarray) -> list[tuple[int, int]]:
    """The engine's VAD speech spans over the whole file, in samples."""
    from tingji.engine.windows import WindowPlanner

    planner = WindowPlanner(engine.vad, max_s=len(samples) / 16000 + 1)
    wins = [*planner.feed(samples), *planner.finish()]
    return [(w.start + round(a * 16000), w.start + round(b * 16000)) for w in wins for a, b in w.speech]


def der(reference: list[tuple[float, float, int]], hypothesis: list, seconds: float) -> float:
    """pyannote.metrics' diarization error rate over the whole file."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    ref, hyp = Annotation(), Annotation()
    for i, (a, b, who) in enumerate(reference):
        ref[Segment(a, b), i] = f"voice{who}"
    for i, t in enumerate(hypothesis):
        hyp[Segment(t.start, t.end), i] = f"speaker{t.speaker}"
    metric = DiarizationErrorRate(collar=COLLAR, skip_overlap=False)
    return float(metric(ref, hyp, uem=Timeline([Segment(0, seconds)])))


@pytest.fixture(scope="module", params=CASES, ids=[f"{n}-speakers" for n, _, _ in CASES])
def conversation(request):
    count, seconds, seed = request.param
    return voices.conversation(pick_voices(count, seed), seconds, seed)


@pytest.mark.parametrize("mode", ["auto", "known"])
def test_conversation_der(engine, conversation, mode):
    from tingji.engine import TranscribeOptions
    from tingji.engine.speakers.diarize import speaker_turns

    truth = len(conversation.voices)
    count = None if mode == "auto" else truth
    samples = conversation.samples
    turns = speaker_turns(engine.speaker_model, samples, vad_spans(engine, samples), count)
    error = der(conversation.turns, turns, conversation.seconds)
    transcript = engine.transcribe(samples, TranscribeOptions(speakers="auto" if count is None else count))
    found = len({t.speaker for t in turns})
    goal = GOAL_AUTO if count is None else GOAL_KNOWN
    print(
        f"{truth} speakers, {conversation.seconds:.0f} s, {len(conversation.turns)} turns, {mode} count: "
        f"DER {100 * error:.1f}% (issue 33's goal {100 * goal:.0f}%: {'met' if error <= goal else 'NOT met'}; "
        f"{found} speakers in the turns, {len(transcript.speakers)} in the transcript)"
    )
    one_speaker = der(
        conversation.turns, [SimpleNamespace(start=t.start, end=t.end, speaker=0) for t in turns], conversation.seconds
    )
    print(f"  everything under one speaker: DER {100 * one_speaker:.1f}%")
    assert error <= goal
    assert found == truth and len(transcript.speakers) <= truth
    assert transcript.speakers and all(s.speaker is not None for s in transcript.segments)


@pytest.fixture(scope="module")
def prints(engine) -> tuple[np.ndarray, np.ndarray]:
    """Voice prints of each held-out voice in three recordings: ([16 * 3, E] prints, [16 * 3] voice index)."""
    from tingji.engine.speakers import diarize

    rows, who = [], []
    for voice, recordings in enumerate(voices.recordings(voices.held_out_voices(), per_voice=3, seed=5)):
        for samples in recordings:
            wins = diarize.windows(vad_spans(engine, samples))
            model = engine.speaker_model
            emb = model.embed([diarize.window_audio(samples, w, model.window_samples) for w in wins])
            unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
            rows.append(unit.mean(axis=0))
            who.append(voice)
    return np.stack(rows), np.asarray(who)


def test_voice_print_scores(prints):
    """Every same-voice pair scores above the match threshold, every different-voice pair below it."""
    from tingji.engine.speakers.library import MATCH_COSINE

    emb, who = prints
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    cos = unit @ unit.T
    pairs = list(itertools.combinations(range(len(who)), 2))
    same = np.array([cos[i, j] for i, j in pairs if who[i] == who[j]])
    different = np.array([cos[i, j] for i, j in pairs if who[i] != who[j]])
    print(
        f"same voice: {len(same)} pairs, cosine min {same.min():.3f} median {np.median(same):.3f}; "
        f"different voices: {len(different)} pairs, max {different.max():.3f} median {np.median(different):.3f}; "
        f"threshold {MATCH_COSINE}: false accepts {(different >= MATCH_COSINE).sum()}, "
        f"false rejects {(same < MATCH_COSINE).sum()}"
    )
    assert (different >= MATCH_COSINE).sum() == 0 and (same < MATCH_COSINE).sum() == 0


def test_voice_library_names_returning_voices_and_no_other(prints, engine, tmp_path):
    from tingji.engine.speakers.library import VoiceLibrary
    from tingji.engine.transcript import VoicePrint

    emb, who = prints
    identity = engine.speaker_model.identity
    library = VoiceLibrary(tmp_path)
    stored = {}  # voice index -> name: the low-pitched voice of each variant (held_out_voices() alternates)
    for row in range(len(who)):
        if who[row] % 2 == 0 and who[row] not in stored:
            stored[who[row]] = library.remember(f"Voice {who[row]}", VoicePrint(emb[row], 10, identity)).name
    named = wrong = accepted = 0
    for row in range(len(who)):
        if who[row] in stored and row == min(np.flatnonzero(who == who[row])):
            continue  # the recording the library holds
        match = library.match([VoicePrint(emb[row], 10, identity)])[0]
        if who[row] in stored:
            named += match is not None and match.name == stored[who[row]]
            wrong += match is not None and match.name != stored[who[row]]
        else:
            accepted += match is not None
    returning = sum(1 for row in range(len(who)) if who[row] in stored) - len(stored)
    unknown = int(sum(who[row] not in stored for row in range(len(who))))
    print(
        f"{len(stored)} voices stored; {named} of {returning} recordings of them named right, {wrong} wrong; "
        f"{accepted} of {unknown} recordings of other voices named (false accepts)"
    )
    assert named == returning and wrong == 0 and accepted == 0
