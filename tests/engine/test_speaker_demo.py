"""Issue 33's proof 3: the demo speaker model tells voices it never heard apart, end to end.

The model (tests/fixtures/models/speaker-demo, trained by
tools/train_speaker_model.py; its README says how) is a small CAM++ in the
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
  moment is what the product gives.
* Voice library: each held-out voice in three separate recordings; a voice
  print is the mean of a recording's unit-length window embeddings, as the
  library stores it. At `VOICE_MATCH_THRESHOLD` (measured by
  benchmarks/diarization.py --voices) no two different voices match.

Issue 33's goals (DER <= 10 % auto, <= 5 % with the count; a returning voice
named) are NOT met by this model: it was trained for minutes on a busy
2-core machine with its front kept at random weights (see its README). The
tests print each figure against its goal and assert what holds on any CPU and
load: on two voices the labels beat putting every speech turn under one speaker.
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
# The least cosine between two voice prints for them to be the same voice (benchmarks/diarization.py --voices).
VOICE_MATCH_THRESHOLD = 0.98

from speaker_demo import voices  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)

GOAL_AUTO, GOAL_KNOWN = 0.10, 0.05  # issue 33's goals: printed, met or not
# The committed model does not meet the goals yet (tests/fixtures/models/speaker-demo/README.md: 14-44 % DER);
# the test prints the DER against them and, on two voices, asserts that the labels beat the trivial answer,
# every speech turn under one speaker, on the same turns (a bound from this run's own data: any CPU, any load).
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
    rng = np.random.default_rng([seed, 7])
    pool = voices.held_out_voices()
    chosen: list = []
    for i in rng.permutation(len(pool)):
        if all(pool[i].variant != v.variant for v in chosen):
            chosen.append(pool[i])
        if len(chosen) == count:
            break
    return chosen


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
    if truth == 2:  # where the model separates voices; with 3-4 it is within a few points of one speaker, and
        # a run beside another worker moved the 4-voice DER by 5.6 points: printed there, not asserted
        assert error < one_speaker
    if count is not None:
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


def test_voice_library_names_returning_voices_and_no_other(prints):
    emb, who = prints
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    cos = unit @ unit.T
    pairs = list(itertools.combinations(range(len(who)), 2))
    same = np.array([cos[i, j] for i, j in pairs if who[i] == who[j]])
    different = np.array([cos[i, j] for i, j in pairs if who[i] != who[j]])
    print(
        f"same voice: {len(same)} pairs, cosine min {same.min():.3f} median {np.median(same):.3f}; "
        f"different voices: {len(different)} pairs, max {different.max():.3f} median {np.median(different):.3f}; "
        f"threshold {VOICE_MATCH_THRESHOLD}: false accepts {(different >= VOICE_MATCH_THRESHOLD).sum()}, "
        f"false rejects {(same < VOICE_MATCH_THRESHOLD).sum()}"
    )
    assert (different >= VOICE_MATCH_THRESHOLD).sum() == 0
    # The model hears voices apart on the whole (a weak one: see the fixture's README) ...
    assert np.median(same) > np.median(different) + 0.2
    # ... and a recording's best match among the others (the library holding them all) is often its own voice.
    np.fill_diagonal(cos, -1.0)
    own = float((who[cos.argmax(axis=1)] == who).mean())
    print(f"best match is the same voice for {own:.0%} of recordings")
    assert own >= 0.1  # measured 0.17 and 0.21 in two runs; chance is 2 in 47
