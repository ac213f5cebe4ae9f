"""Issue 45, proofs 1 and 2 through the CLI: `tingji transcribe --speakers N|auto` JSON on quick turns.

The conversations of tests/engine/test_speaker_words.py (tests/support/turn_taking.py: two, three and
four held-out espeak-ng voices taking turns of 0.5-4 s, some of one word, 0.2-1 s apart) written as WAV
files and transcribed by the CLI with the demo ASR model (no punctuation) and the demo speaker model.
The JSON's segment labels and word labels are scored against the reference turns, with issue 45's
goals: frame error rate <= 0.10 with the count known, <= 0.15 with `auto`; >= 90 % of words right
(`turn_taking.check_goals`).
"""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import tingji
from tests.support import turn_taking
from tests.support.audio import write_wav
from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"


@pytest.fixture(scope="module", params=turn_taking.CASES, ids=turn_taking.CASE_IDS)
def talk(request):
    return turn_taking.conversation(*request.param)


@pytest.mark.parametrize("mode", ["known", "auto"])
def test_cli_json_labels_quick_turns(talk, tmp_path, mode):
    count = len({who for _, _, who in talk.turns})
    src = write_wav(tmp_path / "talk.wav", talk.samples)
    speakers = str(count) if mode == "known" else "auto"
    r = tingji(
        "transcribe",
        str(src),
        "--model",
        str(DEMO),
        "--provider",
        "cpu",
        "--threads",
        "2",
        "--speakers",
        speakers,
        "--speaker-model",
        str(SPEAKER_DEMO),
        "--format",
        "json",
        "--out",
        str(tmp_path / "out"),
        home=tmp_path / "home",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "out" / "talk.json").read_text(encoding="utf-8"))
    assert data["speaker_granularity"] == "words"
    segments, words = turn_taking.from_json(data)
    assert all(w["speaker"] == s["speaker"] for s in data["segments"] for w in s.get("words", []))
    turn_taking.judge(talk, segments, words, len(data["speakers"]), mode, f"CLI --speakers {speakers}")
