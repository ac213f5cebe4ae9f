"""Live dictation with the trained demo model: real words through the virtual microphone.

Uses the committed demo model (tests/fixtures/models/demo/); the
tiny random model used by the other dictation tests only produces gibberish,
so this is the test that shows the words survive the whole chain: sound
server -> native-rate capture -> resampling -> VAD end of take -> engine.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.support.clipboard import MemoryClipboard
from tests.support.dictation import Keys
from tests.support.paths import DEMO_MODEL
from tingji.dictation.controller import DictationController
from tingji.dictation.events import DictationEvent, NothingSaid, TakeStored
from tingji.dictation.history import DictationHistory
from tingji.dictation.settings import DictationSettings

# xdist: one worker runs the users of the virtual microphone and displays (tests/support/schedule.py)
pytestmark = [pytest.mark.dictation, pytest.mark.xdist_group("desktop")]

DEMO = DEMO_MODEL
# Words from the demo model's vocabulary (tools/demo_model/recipe.py), at most six as in its training.
PHRASE = "please call home today, one two"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def test_dictation_demo_model_recognises_live_speech(tmp_path) -> None:
    from tests.support.audio import espeak
    from tests.support.pulse import VirtualMic
    from tingji.engine import Engine

    wav = tmp_path / "phrase.wav"
    espeak(wav, PHRASE)
    mic = VirtualMic().start()
    engine = Engine(DEMO)
    events: list[DictationEvent] = []
    clipboard = MemoryClipboard("previous")
    keys = Keys(clipboard)
    c = DictationController(
        engine,
        DictationSettings(mode="toggle", keep_mic_open=True, silence_s=0.8, restore_delay_s=0.05),
        clipboard=clipboard,
        keys=keys,
        history=DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec"),
        on_event=events.append,
        use_hotkey=False,
    )
    try:
        c.start(recover=False)
        deadline = time.monotonic() + 10
        while c.mic.frames_captured < 0.3 * 16000:  # type: ignore[attr-defined]
            assert time.monotonic() < deadline, "the virtual microphone delivers no audio"
            time.sleep(0.05)
        c.toggle()
        mic.play(wav)
        deadline = time.monotonic() + 60
        while not any(isinstance(e, (TakeStored, NothingSaid)) for e in events):
            assert time.monotonic() < deadline, events
            time.sleep(0.05)
    finally:
        c.close()
        mic.stop()
    (take,) = [e for e in events if isinstance(e, TakeStored)]
    heard = set(_words(take.take.text))
    said = set(_words(PHRASE))
    print(
        f"\ndictation with the demo model: {take.take.text!r} "
        f"(end of take -> text {take.timings['end_to_text_s']:.2f} s)"
    )
    assert keys.pasted == [take.take.text] and clipboard.text() == "previous"
    assert len(heard & said) >= len(said) // 2, take.take.text
