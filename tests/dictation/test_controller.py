"""Dictation controller logic with a scripted microphone and the real tiny engine (no devices needed).

The microphone is scripted (the test pushes samples; a sound card cannot be
assumed here). The engine is the real one on the tiny model, so every take
goes through VAD, the live lane and decoding for real; expected texts are
computed by that same engine from the kept recording.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

import numpy as np
import pytest
import soundfile as sf

from tests.support.clipboard import MemoryClipboard
from tests.support.dictation import Keys
from tingji.dictation import messages
from tingji.dictation.capture import TakeAudio
from tingji.dictation.controller import DictationController
from tingji.dictation.devices import MicrophoneError
from tingji.dictation.events import DictationEvent, NothingSaid, Problem, StateChanged, TakeStored
from tingji.dictation.history import DictationHistory
from tingji.dictation.output import TextOutput
from tingji.dictation.settings import DictationSettings
from tingji.dictation.states import DictationState
from tingji.engine import Engine, TranscribeOptions

pytestmark = pytest.mark.dictation

E = TypeVar("E", bound=DictationEvent)


class FakeMic:
    """Stands in for capture.Microphone: the test pushes audio, the controller takes it.

    `settle` (the rig sets it) runs after each block: the controller has then acted on it, so a take
    the audio ends (silence after speech, nothing said) ends at the same block however busy the
    machine is. A real microphone's blocks keep coming meanwhile; that is the capture tests' part.
    """

    def __init__(self) -> None:
        self.settle: Callable[[], None] = lambda: None
        self.on_audio = None
        self.on_error = None
        self.recording = False
        self.parts: list[np.ndarray] = []
        self.error: MicrophoneError | None = None
        self.fail_open: MicrophoneError | None = None
        self.begins = 0
        self.prepared: list[bool] = []
        self.lock = threading.Lock()

    def open(self) -> None:
        if self.fail_open:
            raise self.fail_open

    def prepare(self, armed: bool = True) -> None:
        self.prepared.append(armed)

    def begin(self) -> None:
        self.open()
        with self.lock:
            self.recording, self.parts, self.error = True, [], None
            self.begins += 1

    def end(self, tail_s=None) -> TakeAudio:
        with self.lock:
            self.recording = False
            samples = np.concatenate(self.parts) if self.parts else np.zeros(0, np.float32)
            return TakeAudio(samples.astype(np.float32), 0.0, self.error)

    def set_options(self, **kwargs) -> None:
        self.options = kwargs

    def close(self) -> None:
        pass

    def feed(self, samples: np.ndarray, block: int = 1024, pace: float = 0.0) -> None:
        """Deliver `samples` block by block, each handled before the next; `pace` seconds between blocks
        play them in real time (the live preview re-transcribes what has come so far as time passes)."""
        for i in range(0, len(samples), block):
            chunk = samples[i : i + block].astype(np.float32)
            with self.lock:
                live = self.recording
                if live:
                    self.parts.append(chunk)
            if live and self.on_audio:
                self.on_audio(chunk)
            self.settle()
            if pace:
                time.sleep(pace)

    def unplug(self) -> None:
        error = MicrophoneError(messages.DISCONNECTED)
        with self.lock:
            self.error = error
        self.on_error(error)


class CountingEngine:
    """The real Engine, noting what its live lane was asked to transcribe (to check what never reaches it)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.model_name = engine.model_name
        self.vad = engine.vad
        self.live = self  # the lane dictation uses: counted, then passed to the real live lane
        self.calls: list[np.ndarray] = []
        self.options: list[TranscribeOptions | None] = []
        self.vad_probs: list[np.ndarray | None] = []

    def transcribe(self, samples, options=None, *, cancel=None, vad_probs=None):
        self.calls.append(np.array(samples, copy=True))
        self.options.append(options)
        self.vad_probs.append(vad_probs)
        return self.engine.live.transcribe(samples, options, cancel=cancel, vad_probs=vad_probs)


def expected_text(engine: Engine, samples: np.ndarray) -> str:
    return engine.live.transcribe(samples).text.strip()


class Rig:
    def __init__(
        self, tmp_path, engine: Engine, options: TranscribeOptions | None = None, *, preview_model=None, **settings
    ) -> None:
        self.mic = FakeMic()
        self.engine = CountingEngine(engine)
        self.clipboard = MemoryClipboard("previous")
        self.keys = Keys(self.clipboard)
        self.history = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
        self.events: list[DictationEvent] = []
        # No live preview unless a test asks: these tests count what the live lane is asked (test_preview.py).
        s = DictationSettings(**({"restore_delay_s": 0.01, "preview": False} | settings))
        self.c = DictationController(
            self.engine,
            s,
            options,
            clipboard=self.clipboard,
            keys=self.keys,
            history=self.history,
            microphone=self.mic,
            on_event=self.events.append,
            use_hotkey=False,
            preview_model=preview_model,
        )
        self.c.start(recover=False)
        self.mic.settle = self.settled

    def settled(self) -> None:
        """Until the controller has handled every command queued so far (an end the audio asked for)."""
        c = self.c
        with c._cond:
            assert c._cond.wait_for(lambda: c._pending == 0, timeout=120), "the controller never got to its commands"

    def kinds(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def wait_for(self, kind: type[E], n: int = 1, timeout: float = 120.0) -> list[E]:
        deadline = time.monotonic() + timeout
        while len(self.kinds(kind)) < n:
            assert time.monotonic() < deadline, f"no {kind} event: {self.events}"
            time.sleep(0.01)
        return self.kinds(kind)

    def wait_recording(self, on: bool = True) -> None:
        deadline = time.monotonic() + 60
        while self.mic.recording != on:
            assert time.monotonic() < deadline
            time.sleep(0.005)


@pytest.fixture
def silence() -> np.ndarray:
    return np.zeros(16000 * 2, np.float32)


@pytest.fixture
def quiet_noise() -> np.ndarray:
    return (np.random.default_rng(3).standard_normal(16000 * 2) * 0.003).astype(np.float32)


def test_takes_are_recognised_with_the_controllers_options(tmp_path, engine, speech_en) -> None:
    """The controller's TranscribeOptions reach the engine for each take (text only: no timestamps), and
    options applied between takes are what the next take uses."""
    first, second = TranscribeOptions(language="en", hotwords=("Tingji",)), TranscribeOptions(itn=False)
    rig = Rig(tmp_path, engine, first)
    for options in (first, second):
        rig.c.apply_options(options)
        rig.c.begin_take()
        rig.wait_recording()
        rig.mic.feed(speech_en)
        rig.c.end_take()
        assert rig.c.wait_idle()
    assert rig.engine.options == [replace(first, timestamps=False), replace(second, timestamps=False)]
    newer, older = rig.history.recent()
    assert (older.language, newer.language) == ("en", None)  # the tiny Nano says nothing of what it heard
    rig.c.close()


def test_dictation_silence_only_take_yields_nothing(tmp_path, engine, silence, quiet_noise) -> None:
    rig = Rig(tmp_path, engine)
    for audio in (silence, quiet_noise):
        rig.c.begin_take()
        rig.wait_recording()
        rig.mic.feed(audio)
        rig.c.end_take()
        assert rig.c.wait_idle()
    assert len(rig.kinds(NothingSaid)) == 2
    assert rig.keys.pasted == [] and rig.engine.calls == []  # not even transcribed
    assert rig.history.count() == 0 and not list((tmp_path / "rec").glob("*.wav"))
    assert rig.clipboard.text() == "previous"
    rig.c.close()


def test_dictation_take_is_stored_then_inserted(tmp_path, engine, speech_en) -> None:
    order: list[str] = []
    rig = Rig(tmp_path, engine, keep_recordings=1)
    h = rig.history
    add, apply_retention, insert = h.add, h.apply_retention, rig.c.output.insert

    def spy_add(take):
        assert (h.recordings / take.recording).is_file(), "the WAV must exist before the row"
        order.append("row")
        return add(take)

    def spy_insert(text):
        assert h.count() >= 1, "the text must be stored before it is inserted"
        order.append("insert")
        return insert(text)

    def spy_retention(keep):
        order.append("retention")
        return apply_retention(keep)

    h.add, h.apply_retention, rig.c.output.insert = spy_add, spy_retention, spy_insert
    for _ in range(2):
        rig.c.begin_take()
        rig.wait_recording()
        rig.mic.feed(speech_en)
        rig.c.end_take()
        assert rig.c.wait_idle()
    assert order == ["row", "insert", "retention"] * 2
    takes = rig.wait_for(TakeStored, 2)
    newest = h.recent()[0]
    assert rig.keys.pasted == [t.take.text for t in takes]
    assert newest.output == "paste" and newest.latency_s is not None and newest.latency_s >= 0
    # what was transcribed is exactly the kept recording
    kept, rate = sf.read(str(h.recording_path(newest)), dtype="float32")
    assert rate == 16000 and np.array_equal(kept, rig.engine.calls[-1])
    assert newest.text == expected_text(engine, kept) and newest.text
    # the speech check's VAD probabilities go with it: the engine does not run the VAD over the take again
    assert np.array_equal(rig.engine.vad_probs[-1], engine.vad.probabilities(kept, tail=True))
    # retention 1: only the newest take still has its WAV
    assert [h.recording_path(t) is not None for t in h.recent()] == [True, False]
    assert rig.clipboard.text() == "previous"
    assert {e.state for e in rig.kinds(StateChanged)} >= {
        DictationState.LISTENING,
        DictationState.TRANSCRIBING,
        DictationState.IDLE,
    }
    rig.c.close()


def test_dictation_output_failure_keeps_text_in_history(tmp_path, engine, speech_en) -> None:
    rig = Rig(tmp_path, engine)
    rig.keys.fail = True
    rig.c.begin_take()
    rig.wait_recording()
    rig.mic.feed(speech_en)
    rig.c.end_take()
    assert rig.c.wait_idle()
    (err,) = rig.kinds(Problem)
    assert "no X display" in err.message and "history" in err.message
    assert err.error.code == "insert.not_inserted" and err.error.fields["problem"].code == "insert.cannot_send_keys"
    stored = rig.history.recent()[0]
    assert stored.output == "failed" and stored.error == err.message  # the English line, as data
    assert json.loads(stored.error_code)["fields"]["problem"]["code"] == "insert.cannot_send_keys"
    assert rig.clipboard.text() == "previous"
    rig.c.close()


def test_dictation_unplugged_mid_take_reports_and_keeps_partial(tmp_path, engine, speech_en) -> None:
    rig = Rig(tmp_path, engine)
    rig.c.begin_take()
    rig.wait_recording()
    rig.mic.feed(speech_en[: len(speech_en) // 2])
    rig.mic.unplug()
    take = rig.wait_for(TakeStored)[0].take
    (event,) = rig.kinds(Problem)
    assert "microphone disconnected" in event.message and event.error.code == "microphone.disconnected"
    assert take.error and "disconnected" in take.error  # stored, marked partial
    assert json.loads(rig.history.get(take.id).error_code)["code"] == "microphone.disconnected"  # and its code
    assert rig.keys.pasted == [take.text]
    # the key release that follows changes nothing, and the next take works
    rig.c.end_take("key released")
    rig.c.begin_take()
    rig.wait_recording()
    rig.mic.feed(speech_en)
    rig.c.end_take()
    assert rig.c.wait_idle()
    assert len(rig.kinds(TakeStored)) == 2 and rig.history.recent()[0].error is None
    rig.c.close()


def test_dictation_no_microphone_is_an_event_not_a_crash(tmp_path, engine) -> None:
    rig = Rig(tmp_path, engine)
    rig.mic.fail_open = MicrophoneError(messages.NO_MICROPHONE)
    rig.c.begin_take()
    assert rig.c.wait_idle()
    assert rig.kinds(Problem)[0].message == "no microphone found (no default input device)"
    assert rig.kinds(Problem)[0].error is rig.mic.fail_open  # the error itself travels, for a UI to translate
    assert rig.c.state is DictationState.IDLE
    rig.mic.fail_open = None
    rig.c.toggle()
    rig.wait_recording()
    rig.c.toggle()
    assert rig.c.wait_idle() and rig.c.state is DictationState.IDLE
    # Stale commands (the coordinator refuses them: nothing records) change nothing and report nothing.
    problems = len(rig.kinds(Problem))
    rig.c.end_take("silence")
    rig.c.apply_settings(rig.c.settings)  # and a legal one after them still runs
    assert rig.c.wait_idle() and rig.c.state is DictationState.IDLE and len(rig.kinds(Problem)) == problems
    rig.c.close()
    assert rig.kinds(StateChanged)[-1] == StateChanged(DictationState.OFF)


@pytest.mark.load_sensitive
def test_dictation_toggle_mode_ends_after_silence(tmp_path, engine, speech_en) -> None:
    rig = Rig(tmp_path, engine, mode="toggle", silence_s=0.6)
    pad = np.zeros(int(16000 * 0.3), np.float32)
    rig.c.toggle()
    rig.wait_recording()
    rig.mic.feed(np.concatenate([pad, speech_en, np.zeros(16000 * 3, np.float32)]))
    take = rig.wait_for(TakeStored)[0]
    assert not rig.mic.recording and rig.mic.begins == 1
    # the take ended ~silence_s after the speech, not at the end of the fed audio
    assert take.take.duration_s < (len(pad) + len(speech_en)) / 16000 + 1.3
    assert take.timings["speech_end_to_text_s"] > take.timings["end_to_text_s"]
    rig.c.close()


@pytest.mark.load_sensitive
def test_dictation_toggle_mode_gives_up_when_nothing_is_said(tmp_path, engine) -> None:
    rig = Rig(tmp_path, engine, mode="toggle", no_speech_timeout_s=1.0)
    rig.c.toggle()
    rig.wait_recording()
    rig.mic.feed(np.zeros(16000 * 3, np.float32))
    rig.wait_for(NothingSaid)
    assert not rig.mic.recording and rig.keys.pasted == []
    rig.c.close()


@pytest.mark.load_sensitive
def test_dictation_continuous_mode_inserts_each_utterance(tmp_path, engine, speech_en) -> None:
    rig = Rig(tmp_path, engine, mode="continuous", silence_s=0.5)
    gap = np.zeros(int(16000 * 1.2), np.float32)
    rig.c.toggle()
    rig.wait_recording()
    rig.mic.feed(np.concatenate([speech_en, gap, speech_en[: 16000 * 2], gap]))
    rig.wait_for(TakeStored, 2)
    assert rig.mic.recording  # still listening
    rig.c.toggle()
    assert rig.c.wait_idle()
    assert len(rig.keys.pasted) == 2 and not rig.kinds(NothingSaid)
    # each utterance's text is what the engine makes of that utterance's recording
    for take in rig.history.recent():
        kept = sf.read(str(rig.history.recording_path(take)), dtype="float32")[0]
        assert take.text == expected_text(engine, kept)
    assert sorted(rig.keys.pasted) == sorted(t.text for t in rig.history.recent())
    rig.c.close()


def test_dictation_hold_mode_follows_the_hotkey(tmp_path, engine, speech_en) -> None:
    rig = Rig(tmp_path, engine, mode="hold")
    rig.c._hotkey_down()
    rig.wait_recording()
    rig.mic.feed(np.concatenate([speech_en, np.zeros(16000 * 2, np.float32)]))
    assert rig.mic.recording  # silence does not end a hold-to-talk take
    rig.c._hotkey_up()
    rig.wait_for(TakeStored)
    # the hotkey's modifiers going down/up open/release the microphone early
    rig.c._hotkey_arm(True)
    rig.c._hotkey_arm(False)
    assert rig.c.wait_idle() and rig.mic.prepared == [True, False]
    rig.c.close()


def test_dictation_settings_validation() -> None:
    from tingji.errors import TingjiError

    assert DictationSettings().validate() == DictationSettings()
    for bad in (
        {"mode": "shout"},
        {"output": "fax"},
        {"hotkey": "ctrl"},
        {"silence_s": 0.05},
        {"max_take_s": float("nan")},
        {"vad_threshold": 1.5},
        {"keep_recordings": -1},
    ):
        with pytest.raises(TingjiError):
            DictationSettings(**bad).validate()
    print("validate() refuses 7 unusable settings")


def test_dictation_settings_parser_keeps_good_fields_and_defaults_bad_ones(caplog) -> None:
    """A hand-edited or newer settings file: every usable field is kept, every other one falls back
    to its default with a logged reason, and the result always validates (dictation stays on)."""
    good = {
        "hotkey": "ctrl+shift+d",
        "mode": "toggle",
        "output": "type",
        "keep_mic_open": True,
        "device": "pulse, ALSA",
        "pre_roll_s": 1,
        "silence_s": 0.8,
        "keep_recordings": None,
    }
    bad = {
        "max_take_s": "300",
        "no_speech_timeout_s": -1,
        "vad_threshold": True,
        "restore_delay_s": None,
        "keep_recordings": 2.5,
    }
    newer = {"from_the_future": {"x": 1}, "mode": "toggle"}
    with caplog.at_level("WARNING", logger="tingji.dictation.settings"):
        parsed = DictationSettings.from_dict(good)
        assert caplog.records == []
        assert parsed.to_dict() == good | {
            key: value for key, value in DictationSettings().to_dict().items() if key not in good
        } | {"pre_roll_s": 1.0}
        assert isinstance(parsed.pre_roll_s, float)

        mixed = DictationSettings.from_dict(
            {**newer, **bad, "hotkey": "ctrl+banana", "silence_s": 0.05, "device": "USB mic"}
        )
        defaults = DictationSettings()
        assert (mixed.mode, mixed.device) == ("toggle", "USB mic")
        for key in [*bad, "hotkey", "silence_s"]:
            assert getattr(mixed, key) == getattr(defaults, key), key
        logged = " ".join(r.getMessage() for r in caplog.records)
        for key in [*bad, "hotkey", "silence_s"]:
            assert f"ignoring {key}=" in logged, key
        assert "from_the_future" not in logged  # unknown keys are not worth a warning
        mixed.validate()

        for junk in ("hold", [1, 2], 7):  # not an object at all: defaults, still valid
            assert DictationSettings.from_dict(junk) == DictationSettings()
    assert DictationSettings.from_dict(None) == DictationSettings()
    print(f"parser: {len(good)} good fields kept, {len(bad) + 2} bad ones defaulted and logged, unknown key ignored")


def test_dictation_recovers_recordings_left_by_a_crash(tmp_path, engine, speech_en) -> None:
    history = DictationHistory(tmp_path / "d.sqlite3", tmp_path / "rec")
    wav = history.new_recording_path()
    sf.write(str(wav), speech_en, 16000, subtype="PCM_16")
    events: list[DictationEvent] = []
    c = DictationController(
        engine,
        DictationSettings(),
        history=history,
        microphone=FakeMic(),
        output=TextOutput(MemoryClipboard(), Keys(MemoryClipboard())),
        on_event=events.append,
        use_hotkey=False,
    )
    assert c.recover_orphans() == 1
    (take,) = history.recent()
    assert take.recording == wav.name and take.output == "none" and "recovered" in take.error
    assert take.text == expected_text(engine, sf.read(str(wav), dtype="float32")[0])
    assert history.orphan_recordings() == []
    c.close()
