"""Issue 45's proof 4: `tingji transcribe --speakers` names returning voices from the voice library, as the app
does (`library.name_speakers` after the transcription), and `--no-voice-library` leaves them "Speaker N".

The voices are remembered from an in-process transcription of the same two espeak-ng voices with the demo
speaker model (whose matching of held-out voices tests/engine/test_speaker_demo.py scores); the CLI then runs
in a fresh process whose user data folder holds that library.
"""

from __future__ import annotations

import json

from tests.cli.test_cli_speakers import demo_transcribe
from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"
SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"


def test_cli_names_remembered_voices_unless_told_not_to(two_voices, tmp_path, monkeypatch):
    from tingji.engine import Engine, TranscribeOptions
    from tingji.engine.speakers.library import VoiceLibrary

    home = tmp_path / "home"
    monkeypatch.setenv("TINGJI_HOME", str(home))
    from tingji.paths import voices_dir

    engine = Engine(DEMO, "cpu", threads=2, speaker_model=SPEAKER_DEMO)
    try:
        heard = engine.transcribe(two_voices, TranscribeOptions(speakers=2))
    finally:
        engine.close()
    assert len(heard.voice_prints) == 2
    library = VoiceLibrary(voices_dir())
    for name, voice_print in zip(["Ann", "Bo"], heard.voice_prints):
        library.remember(name, voice_print)
    args = ["--threads", "2", "--speakers", "2", "--speaker-model", str(SPEAKER_DEMO), "--format", "json"]
    named = demo_transcribe(two_voices, tmp_path / "named", home, *args)
    plain = demo_transcribe(two_voices, tmp_path / "plain", home, *args, "--no-voice-library")
    assert named.returncode == 0 and plain.returncode == 0, named.stderr + plain.stderr
    with_library = json.loads((tmp_path / "named" / "two-voices.json").read_text(encoding="utf-8"))
    without = json.loads((tmp_path / "plain" / "two-voices.json").read_text(encoding="utf-8"))
    print(f"with the library: {with_library['speakers']}; --no-voice-library: {without['speakers']}")
    assert with_library["speakers"] == ["Ann", "Bo"]
    assert {s["speaker"] for s in with_library["segments"]} == {"Ann", "Bo"}
    assert without["speakers"] == ["Speaker 1", "Speaker 2"]
