"""Issue 45, proofs 1 and 2 through the app's engine worker: a file of quick turns with speakers on.

The conversations of tests/engine/test_speaker_words.py (tests/support/turn_taking.py) as WAV files,
given to `EngineWorker` as the app's queue gives them: the demo ASR model loaded by the worker, the
demo speaker model installed in the user's models folder (the worker loads it on the first file that
asks for speakers), the count known or `auto`. The finished transcript's segment and word labels are
scored against the reference turns with issue 45's goals (`turn_taking.check_goals`).
"""

from __future__ import annotations

import shutil

import pytest

from tests.support import turn_taking
from tests.support.audio import write_wav
from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"


@pytest.fixture(scope="module", params=turn_taking.CASES, ids=turn_taking.CASE_IDS)
def talk(request):
    return turn_taking.conversation(*request.param)


@pytest.mark.parametrize("mode", ["known", "auto"])
def test_engine_worker_labels_quick_turns(qapp, home, talk, tmp_path, mode):
    from tingji.engine import TranscribeOptions
    from tingji.gui.engine_worker import EngineWorker, Request

    shutil.copytree(SPEAKER_DEMO, home / "models" / "speaker-demo")
    count = len({who for _, _, who in talk.turns})
    src = write_wav(tmp_path / "talk.wav", talk.samples)
    worker = EngineWorker()
    loaded, done = [], []
    worker.ready.connect(loaded.append)
    worker.load_failed.connect(lambda seq, error: pytest.fail(str(error)))
    worker.failed.connect(lambda job, error: pytest.fail(str(error)))
    worker.finished.connect(lambda job, transcript, seconds: done.append(transcript))
    worker.load(str(DEMO), "cpu", "", False, 1)
    assert loaded
    try:
        worker.transcribe(Request(1, str(src), TranscribeOptions(speakers=count if mode == "known" else "auto")))
    finally:
        worker.close_engine()
    (transcript,) = done
    assert transcript.speaker_granularity == "words"
    segments = [s for s in transcript.segments if s.text.strip()]
    words = [w for s in segments for w in s.words or []]
    assert all(w.speaker == s.speaker for s in segments for w in s.words or [])
    turn_taking.judge(talk, segments, words, len(transcript.speakers), mode, "GUI worker")
