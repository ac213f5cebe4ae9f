"""Which model the live preview runs on (tingji.dictation.preview.PreviewModel), with real engines.

The dictation model is the tiny Fun-ASR-Nano (`engine`), the faster model the
tiny SenseVoice-Small (`sv_model`), each a real Engine on the CPU. The rule
holds a measured cost against a budget; the tests set the budget so the
verdict cannot depend on the machine's load: 0 s (every real run costs more:
"too slow") or 10^9 s (every run fits). What they check is what follows from
the verdict: which engine the previews ran on, when the faster model loads and
unloads, and that the pasted text is the dictation model's, the same with the
preview on or off.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.dictation.test_controller import Rig, expected_text
from tingji.dictation.events import PreviewModelChanged, PreviewText, TakeStored
from tingji.dictation.preview import FasterModel, PreviewChoice, PreviewModel, preview_fits
from tingji.engine import Engine, TranscribeOptions
from tingji.errors import Cancelled

pytestmark = [pytest.mark.dictation, pytest.mark.load_sensitive]

BLOCK = 512
NEVER = 1e9  # a budget no run exceeds


@pytest.fixture
def five_seconds(speech_en: np.ndarray) -> np.ndarray:
    samples = np.concatenate([speech_en, np.zeros(4000, np.float32), speech_en])
    return samples[: 5 * 16000].astype(np.float32)


class RecordingEngine:
    """A real Engine whose live lane notes what it was asked and what it said, and whether it was closed."""

    def __init__(self, folder: Path) -> None:
        self.engine = Engine(folder, "cpu")
        self.capabilities = self.engine.capabilities
        self.live = self
        self.runs: list[tuple[np.ndarray, str]] = []
        self.closed = False

    def transcribe(self, samples, options=None, *, cancel=None, vad_probs=None):
        result = self.engine.live.transcribe(samples, options, cancel=cancel, vad_probs=vad_probs)
        self.runs.append((np.array(samples, copy=True), result.text.strip()))
        return result

    def close(self) -> None:
        self.closed = True
        self.engine.close()


class Loader:
    """The faster model's loader: counts its loads and keeps what it loaded."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.loaded: list[RecordingEngine] = []

    def __call__(self) -> RecordingEngine:
        engine = RecordingEngine(self.folder)
        self.loaded.append(engine)
        return engine


def _take(rig: Rig, samples: np.ndarray) -> str:
    """One take spoken in real time with the key held; returns what was pasted."""
    rig.c.begin_take()
    rig.wait_recording()
    rig.mic.feed(samples, block=BLOCK, pace=BLOCK / 16000)
    rig.c.end_take()
    assert rig.c.wait_idle(120)
    takes = rig.wait_for(TakeStored, timeout=120)
    return takes[-1].take.text


def _wait_choice(rig: Rig, state: str, n: int = 1, timeout: float = 120.0) -> PreviewChoice:
    """The `n`-th "preview_model" event whose choice is `state`."""
    deadline = time.monotonic() + timeout
    while True:
        choices = [e.choice for e in rig.kinds(PreviewModelChanged) if e.choice.state == state]
        if len(choices) >= n:
            return choices[n - 1]
        assert time.monotonic() < deadline, f"no {state} choice: {rig.kinds(PreviewModelChanged)}"
        time.sleep(0.01)


def test_the_rule_and_the_choice_it_makes() -> None:
    assert preview_fits(0.5, 0.5) and preview_fits(0.1, 0.5) and not preview_fits(0.51, 0.5)
    sv = FasterModel("sv", lambda: None, ("zh", "en"))  # type: ignore[arg-type,return-value]
    assert (
        sv.suits(TranscribeOptions()) and sv.suits(TranscribeOptions("English")) and sv.suits(TranscribeOptions("zh"))
    )
    assert not sv.suits(TranscribeOptions("fr"))
    assert FasterModel("any", lambda: None).suits(TranscribeOptions("fr"))  # type: ignore[arg-type,return-value]
    # Given costs: within the interval the dictation model previews; over it, the faster model (once loaded), or
    # the dictation model less often when there is none.
    unmeasured = PreviewModel("nano")
    unmeasured.take_ended()  # a take without a preview run (too short, or the preview off) measures nothing
    assert unmeasured.choice == PreviewChoice("unmeasured", "nano", None, None, 0.5)
    assert PreviewModel("nano", sv, cost_s=0.2).choice.state == "fits"
    slow = PreviewModel("nano", sv, cost_s=0.8).choice
    assert (slow.state, slow.model, slow.faster) == ("loading", "nano", "sv")
    assert PreviewModel("nano", None, cost_s=0.8).choice.state == "slow"


def test_a_run_that_heard_no_speech_measures_nothing_and_one_cut_short_still_tells_a_slow_model(
    engine, speech_en
) -> None:
    """Found by the full-size benchmark: runs over the take's first, silent half-second returned at once and
    made a model that needs seconds per run look fast; the runs that really decoded were all cut at key-up."""
    options = TranscribeOptions()
    model = PreviewModel(engine.model_name, None, interval_s=NEVER)
    model.transcribe(engine.live, np.zeros(16000, np.float32), options, threading.Event())
    model.take_ended()
    assert model.choice.state == "unmeasured"
    model.transcribe(engine.live, speech_en[: 2 * 16000], options, threading.Event())
    model.take_ended()
    assert model.choice.state == "fits" and model.choice.cost_s > 0
    # A run cancelled at the take's end counts only when it had already run longer than the interval.
    cancelled = threading.Event()
    cancelled.set()
    for interval, state in ((NEVER, "unmeasured"), (0.0, "slow")):
        cut = PreviewModel(engine.model_name, None, interval_s=interval)
        with pytest.raises(Cancelled):
            cut.transcribe(engine.live, speech_en, options, cancelled)
        cut.take_ended()
        assert cut.choice.state == state, cut.choice


def test_a_dictation_model_that_fits_previews_itself_and_nothing_else_loads(tmp_path, engine, sv_model, five_seconds):
    loader = Loader(sv_model)
    rig = Rig(tmp_path, engine, preview=True, preview_model=PreviewModel(engine.model_name, FasterModel("sv", loader)))
    rig.c.preview_model.interval_s = NEVER
    pasted = _take(rig, five_seconds)
    fits = _wait_choice(rig, "fits")
    rig.c.close()
    rig.c.preview.join(30)
    assert fits.cost_s is not None and fits.cost_s > 0 and fits.model == engine.model_name
    assert loader.loaded == []  # the faster model never loaded: memory only when needed
    previews = rig.kinds(PreviewText)
    assert previews and len(rig.engine.calls) >= len(previews) + 1  # the previews ran on the dictation model
    assert pasted == expected_text(engine, rig.engine.calls[-1]) and pasted


def test_a_slow_dictation_model_hands_the_preview_to_the_faster_model(tmp_path, engine, sv_model, five_seconds):
    loader = Loader(sv_model)
    rig = Rig(tmp_path, engine, preview=True, preview_model=PreviewModel(engine.model_name, FasterModel("sv", loader)))
    rig.c.preview_model.interval_s = 0.0  # every run on the dictation model is "too slow"

    # Take 1: the dictation model previews and is timed; the verdict comes at the release, and the faster model
    # loads only after the take was transcribed and pasted.
    first = _take(rig, five_seconds)
    assert rig.kinds(PreviewText) and len(rig.engine.calls) > 1
    loading = _wait_choice(rig, "loading")
    assert loading.cost_s is not None and loading.cost_s > 0 and loading.model == engine.model_name
    faster = _wait_choice(rig, "faster")
    assert faster.model == "sv" and len(loader.loaded) == 1
    kinds = [type(e) for e in rig.events]
    assert kinds.index(TakeStored) < next(
        i for i, e in enumerate(rig.events) if isinstance(e, PreviewModelChanged) and e.choice is faster
    )

    # Take 2: every preview comes from the faster model, on its own engine; the dictation model runs the final
    # take only, on the whole kept recording.
    sv = loader.loaded[0]
    rig.c.preview.join(30)  # take 1's preview thread has ended: what the dictation model is asked now is take 2's
    calls_before, previews_before = len(rig.engine.calls), len(rig.kinds(PreviewText))
    second = _take(rig, five_seconds)
    previews = [e.text for e in rig.kinds(PreviewText)[previews_before:]]
    assert previews and sv.runs
    assert set(previews) <= {text for _, text in sv.runs}
    assert len(rig.engine.calls) == calls_before + 1
    # What the faster model said is what a fresh SenseVoice engine says of the same audio.
    audio, said = sv.runs[-1]
    check = Engine(sv_model, "cpu")
    try:
        assert check.live.transcribe(audio).text.strip() == said
    finally:
        check.close()

    # Turning the preview off frees the faster model; closing dictation would too.
    rig.c.apply_settings(replace(rig.c.settings, preview=False))
    assert rig.c.wait_idle(30)
    assert sv.closed
    rig.c.close()
    rig.c.preview.join(30)

    # The pasted text is the dictation model's, exactly as with the preview off.
    off = Rig(tmp_path / "off", engine, preview=False)
    without = _take(off, five_seconds)
    off.c.close()
    assert first == second == without and first
    assert np.array_equal(rig.engine.calls[-1], off.engine.calls[-1])


def test_closing_dictation_unloads_the_faster_model_and_none_loads_after(tmp_path, engine, sv_model, five_seconds):
    loader = Loader(sv_model)
    model = PreviewModel(engine.model_name, FasterModel("sv", loader), cost_s=1.0, interval_s=0.5)
    rig = Rig(tmp_path, engine, preview=True, preview_model=model)
    model.prepare(TranscribeOptions())  # a given cost over the interval: the faster model loads between takes
    _wait_choice(rig, "faster")
    model.unload()  # the dictation engine was unloaded for idleness: the faster one goes with it
    assert loader.loaded[0].closed and model.choice.state == "loading"
    model.prepare(TranscribeOptions("fr"))  # a language it cannot be told: not loaded for nothing
    model.prepare(TranscribeOptions())
    _wait_choice(rig, "faster", n=2)
    assert len(loader.loaded) == 2
    rig.c.close()
    assert loader.loaded[1].closed
    model.prepare(TranscribeOptions())
    assert len(loader.loaded) == 2
