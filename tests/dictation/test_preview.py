"""Live preview (tingji.dictation.preview) in the controller, on the real tiny engine.

The microphone is scripted and paced in real time (the preview refreshes by the
clock while the take records); everything after it is real. Proof 1 of issue 35
on the engine side: >= 4 preview updates in a 5 s take (fewer only as slower measured runs allow), the final text pasted
exactly as with the preview off, and a preview in flight at the release is
cancelled instead of awaited.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.dictation.test_controller import CountingEngine, Rig
from tests.support.preview_counts import previews_expected
from tingji.dictation.events import PreviewText, StateChanged, TakeStored
from tingji.dictation.states import DictationState
from tingji.errors import Cancelled

pytestmark = pytest.mark.dictation

BLOCK = 512


@pytest.fixture
def five_seconds(speech_en: np.ndarray) -> np.ndarray:
    """5 s of speech (the utterance repeated and cut), the take the issue describes."""
    samples = np.concatenate([speech_en, np.zeros(4000, np.float32), speech_en])
    return samples[: 5 * 16000].astype(np.float32)


def _take(rig: Rig, samples: np.ndarray) -> str:
    """One take spoken in real time; returns what was pasted."""
    rig.c.begin_take()
    rig.wait_recording()
    rig.mic.feed(samples, block=BLOCK, pace=BLOCK / 16000)
    rig.c.end_take()
    assert rig.c.wait_idle(120)
    takes = rig.wait_for(TakeStored, timeout=120)
    assert rig.keys.pasted[-1] == takes[-1].take.text
    return rig.keys.pasted[-1]


@pytest.mark.load_sensitive  # how many preview runs fit the take depends on the machine's load
def test_preview_updates_while_speaking_and_the_pasted_text_is_the_same(tmp_path, engine, five_seconds) -> None:
    with_preview = Rig(tmp_path / "on", engine, preview=True)
    pasted_on = _take(with_preview, five_seconds)
    kinds = [type(e) for e in with_preview.events]
    previews = with_preview.kinds(PreviewText)
    with_preview.c.close()
    with_preview.c.preview.join(30)

    without = Rig(tmp_path / "off", engine, preview=False)
    pasted_off = _take(without, five_seconds)
    without.c.close()

    run_s = [e.run_s for e in previews]
    assert len(previews) >= previews_expected(len(five_seconds) / 16000, run_s), (kinds, run_s)
    assert all(e.text for e in previews)
    # Every preview came while the take was recording, none after the release.
    assert kinds.index(TakeStored) > max(i for i, k in enumerate(kinds) if k is PreviewText)
    first_transcribing = next(
        i for i, e in enumerate(with_preview.events) if e == StateChanged(DictationState.TRANSCRIBING)
    )
    assert all(i < first_transcribing for i, k in enumerate(kinds) if k is PreviewText)
    # Never pasted: one paste, and it is exactly what dictation pastes with the preview off.
    assert with_preview.keys.pasted == [pasted_on] and pasted_on == pasted_off and pasted_on
    # The preview ran on the live lane (several calls), the final on the whole kept take (the last call).
    assert len(with_preview.engine.calls) >= len(previews) + 1
    assert without.engine.calls and len(without.engine.calls) == 1
    assert np.array_equal(with_preview.engine.calls[-1], without.engine.calls[-1])
    # The level meter's RMS followed the take and went back to 0.
    assert with_preview.c.level == 0.0


class StuckPreview(CountingEngine):
    """The real engine, except that a preview run (one while the take records) hangs until it is cancelled,
    as a long decode on a slow model does."""

    def __init__(self, engine, recording) -> None:
        super().__init__(engine)
        self.recording = recording
        self.preview_started = threading.Event()
        self.preview_cancelled: list[bool] = []

    def transcribe(self, samples, options=None, *, cancel=None, vad_probs=None):
        if self.recording():
            self.preview_started.set()
            self.preview_cancelled.append(cancel.wait(60))
            raise Cancelled()
        return super().transcribe(samples, options, cancel=cancel, vad_probs=vad_probs)


def test_a_preview_in_flight_is_cancelled_when_the_key_is_released(tmp_path, engine, five_seconds) -> None:
    rig = Rig(tmp_path, engine, preview=True)
    stuck = StuckPreview(engine, lambda: rig.mic.recording)
    rig.c.engine = stuck
    rig.c.preview.engine = stuck
    rig.c.begin_take()
    rig.wait_recording()
    rig.mic.feed(five_seconds[: 2 * 16000], block=BLOCK, pace=BLOCK / 16000)
    assert stuck.preview_started.wait(60)
    rig.c.end_take()
    takes = rig.wait_for(TakeStored, timeout=120)
    assert rig.c.wait_idle(60)
    rig.c.preview.join(30)
    rig.c.close()
    # The release cancelled the hung run (it did not wait its 60 s out) and the final take ran on.
    assert stuck.preview_cancelled == [True]
    assert rig.keys.pasted == [takes[0].take.text] and takes[0].take.text
    assert rig.kinds(PreviewText) == []
