"""Dictation capture through a real PulseAudio virtual microphone."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support.audio import espeak, write_wav
from tests.support.pulse import VirtualMic, pulse_available
from tingji.dictation import capture
from tingji.dictation.capture import Microphone
from tingji.dictation.devices import MicrophoneError
from tingji.dictation.resample import to_mono_16k

# xdist: one worker runs the users of the virtual microphone and displays (tests/support/schedule.py)
pytestmark = [pytest.mark.dictation, pytest.mark.xdist_group("desktop")]


@pytest.fixture(scope="module")
def vmic():
    if not pulse_available():
        pytest.skip("PulseAudio (pulseaudio, pactl, paplay) is not installed")
    mic = VirtualMic().start()
    yield mic
    mic.stop()


@pytest.fixture(scope="module")
def phrase(tmp_path_factory) -> tuple[Path, np.ndarray]:
    path = tmp_path_factory.mktemp("capture") / "phrase.wav"
    return path, espeak(path, "Please send the report to the team by Friday.")


def _wait_flowing(mic: Microphone, timeout: float = 60.0) -> None:
    """PulseAudio's monitor source needs about a second before its first block."""
    deadline = time.monotonic() + timeout
    while mic.frames_captured < 0.2 * 16000:
        assert time.monotonic() < deadline, "the virtual microphone delivers no audio"
        time.sleep(0.02)


class Heard:
    """Every block the microphone's worker converted to 16 kHz, in order, as it happens.

    The real conversion runs; this only watches it, so that a test can wait
    for audio time to pass or for a sound to have gone through, instead of
    sleeping and hoping the sound server kept up.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.blocks: list[np.ndarray] = []
        self._cond = threading.Condition()

        def spy(block: np.ndarray, resampler) -> np.ndarray:
            out = to_mono_16k(block, resampler)
            with self._cond:
                self.blocks.append(np.array(out, copy=True))
                self._cond.notify_all()
            return out

        monkeypatch.setattr(capture, "to_mono_16k", spy)  # the name capture.py calls it by

    def _wait(self, ready, what: str, timeout: float = 60.0) -> None:
        with self._cond:
            assert self._cond.wait_for(ready, timeout), f"timed out waiting for {what}"

    def samples(self) -> int:
        with self._cond:
            return sum(len(b) for b in self.blocks)

    def wait_audio(self, seconds: float) -> None:
        """Until this much more audio has come through."""
        goal = self.samples() + int(seconds * 16000)
        self._wait(lambda: sum(len(b) for b in self.blocks) >= goal, f"{seconds} s of audio")

    def wait_sound_over(self, since: int) -> None:
        """Until a loud sound came through after block `since`, and then silence."""

        def over() -> bool:
            loud = [i for i, b in enumerate(self.blocks[since:], since) if len(b) and np.abs(b).max() > 0.3]
            return bool(loud) and any(len(b) and np.abs(b).max() < 0.05 for b in self.blocks[loud[0] :])

        self._wait(over, "the sound to come through and end")


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> Heard:
    return Heard(monkeypatch)


def _best_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Peak normalised cross-correlation: is `b` (the reference) inside `a`, at any offset?"""
    n = len(a) + len(b)
    size = 1 << (n - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size)), size)
    return float(corr.max() / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12))


@pytest.mark.load_sensitive
def test_dictation_capture_records_the_virtual_microphone(vmic, phrase, heard) -> None:
    wav, reference = phrase
    mic = Microphone(keep_open=True, pre_roll_s=0.3)
    errors: list[str] = []
    mic.on_error = errors.append
    try:
        mic.begin()
        _wait_flowing(mic)
        assert mic.device_rate == 44100 and mic.device_channels == 2  # the device's own format
        vmic.play(wav)  # returns once the sound server has played it ...
        heard.wait_audio(1.0)  # ... and a second of audio later, all of it has come through
        take = mic.end()
    finally:
        mic.close()
    assert not errors and take.error is None
    assert take.samples.dtype == np.float32
    assert len(reference) / 16000 < take.duration
    # Nothing lost, nothing twice, nothing out of order: the take is the pre-roll and then the blocks
    # converted until end(), one stretch of what the worker converted (a busy machine that was slow to
    # start the player only makes that stretch longer).
    assert _is_one_stretch_of(heard, take)
    # The same speech came through the sound server and our resampler.
    assert _best_correlation(take.samples, reference) > 0.8


def _is_one_stretch_of(heard: Heard, take) -> bool:
    """Whether the take's samples are, exactly, consecutive audio the microphone's worker converted."""
    with heard._cond:
        blocks = list(heard.blocks)
    stream = np.concatenate(blocks)
    pre = round(take.pre_roll_s * 16000)
    body = take.samples[pre:]
    starts = np.cumsum([0] + [len(b) for b in blocks])  # a take begins and ends between blocks
    return any(i >= pre and np.array_equal(stream[i - pre : i + len(body)], take.samples) for i in starts.tolist())


def test_dictation_capture_pre_roll_keeps_audio_from_before_the_take(vmic, tmp_path, heard) -> None:
    t = np.arange(int(0.25 * 16000)) / 16000
    beep = write_wav(tmp_path / "beep.wav", (0.5 * np.sin(2 * np.pi * 700 * t)).astype(np.float32))
    results = {}
    for pre_roll in (1.0, 0.0):
        mic = Microphone(keep_open=True, pre_roll_s=pre_roll)
        try:
            mic.open()
            _wait_flowing(mic)
            heard.wait_audio(pre_roll + 0.2)  # the pre-roll ring is full
            since = len(heard.blocks)
            vmic.play(beep)  # the "first word", said before the key press ...
            heard.wait_sound_over(since)  # ... and captured, all of it, before the press
            mic.begin()
            heard.wait_audio(0.2)
            take = mic.end()
        finally:
            mic.close()
        results[pre_roll] = take
    with_pre = results[1.0]
    assert with_pre.pre_roll_s == pytest.approx(1.0, abs=0.05)
    assert np.abs(with_pre.samples[: int(1.0 * 16000)]).max() > 0.3  # the beep is in the take
    assert results[0.0].pre_roll_s == 0.0
    assert np.abs(results[0.0].samples).max() < 0.05
    print("pre-roll: a beep captured before the press is in a 1.0 s pre-roll take, not in a 0 s one")


def test_dictation_capture_unplugged_device_is_reported_and_partial_take_kept(vmic, phrase, heard) -> None:
    wav, _ = phrase
    mic = Microphone(keep_open=False, linger_s=0)
    errors: list[str] = []
    got_error = threading.Event()
    mic.on_error = lambda error: (errors.append(str(error)), got_error.set())
    try:
        mic.begin()
        _wait_flowing(mic)
        player = vmic.play(wav, wait=False)
        heard.wait_audio(1.0)  # a second of the take is in
        vmic.unplug()
        assert got_error.wait(60), "no error reported after the device went away"
        take = mic.end()
        player.wait(60)
        assert take.error and len(take.samples) > 0.5 * 16000  # the partial take is kept
        assert len(errors) == 1 and "\n" not in errors[0] and "microphone" in errors[0]

        # Plugged in again: the next take opens a fresh stream and works.
        vmic.plug()
        mic.begin()
        _wait_flowing(mic)
        vmic.play(wav)
        again = mic.end()
        assert again.error is None and np.abs(again.samples).max() > 0.1
    finally:
        vmic.plug()
        mic.close()


def test_dictation_capture_missing_device_is_a_clear_error(vmic) -> None:
    mic = Microphone(device="no such microphone 12345")
    try:
        with pytest.raises(MicrophoneError, match="no such microphone 12345") as info:
            mic.begin()
        assert "\n" not in str(info.value)
    finally:
        mic.close()


def test_dictation_capture_armed_hotkey_opens_early_then_lingers(vmic, tmp_path, heard) -> None:
    """keep_open off: the stream opens when the hotkey's modifiers go down, and closes after the linger."""
    t = np.arange(int(0.25 * 16000)) / 16000
    beep = write_wav(tmp_path / "beep.wav", (0.5 * np.sin(2 * np.pi * 700 * t)).astype(np.float32))
    mic = Microphone(keep_open=False, pre_roll_s=1.5, linger_s=2.0)
    try:
        assert not mic.is_open
        mic.prepare(True)  # ctrl+alt are down
        assert mic.is_open
        _wait_flowing(mic)
        since = len(heard.blocks)
        vmic.play(beep)  # speech starts before space is pressed
        heard.wait_sound_over(since)
        mic.begin()  # space
        mic.prepare(False)  # modifiers released while talking: the take goes on
        heard.wait_audio(2.2)  # longer than the linger
        assert mic.is_open and mic.recording
        take = mic.end()
        assert np.abs(take.samples[: int(1.5 * 16000)]).max() > 0.3
        assert mic.is_open  # lingers for a quick follow-up take ...
        deadline = time.monotonic() + 20
        while mic.is_open:  # ... then lets the device go
            assert time.monotonic() < deadline, "the microphone stayed open after its linger"
            time.sleep(0.02)
    finally:
        mic.close()
