"""Shared fixtures: tiny random checkpoints of each family, their exports, the references, test audio.

Everything is built once per test run from scratch (no downloads): the
checkpoint by tools/make_tiny_checkpoint.py, the model folder by our exporter.
Under pytest-xdist the workers share what one of them built (tests/support/once.py).
"""

from __future__ import annotations

import faulthandler
import importlib
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.support import schedule
from tests.support.once import built_once, xdist_worker
from tingji.engine.families.kit import KITS, Family

# app/, tools/ and benchmarks/ come first on sys.path through pytest's `pythonpath` setting
# (pyproject.toml): this checkout's code, not an installed tingji; helpers are `tests.support`.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A test stuck in native code while holding the GIL (a Qt wait, a llama.cpp call) never sees
# pytest-timeout's SIGALRM (900 s, pyproject.toml: a hang in Python fails that test only), and
# the run would sit there until CI kills it with nothing said. faulthandler's watchdog is a C
# thread: past this it prints every thread's stack and ends the process.
HUNG_TEST_S = int(os.environ.get("TINGJI_HUNG_TEST_S", "1200"))
_STDERR = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    # Output capture is suspended while plugins configure: fd 2 is the real stderr here.
    config.stash[_STDERR] = os.dup(2)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker per CPU this process may run on (as tests/test_under_load.py counts them),
    not xdist's count of physical cores, which is 1 on a 2-vCPU machine whose vCPUs are hyperthreads.
    PYTEST_XDIST_AUTO_NUM_WORKERS still says otherwise (left to xdist)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _leave_load_sensitive_to_test_under_load(config, items)
    if xdist_worker(config) is not None:  # how xdist's workers share the run: tests/support/schedule.py
        schedule.group_by_file(items)
        schedule.longest_first(items)


def _leave_load_sensitive_to_test_under_load(config: pytest.Config, items: list[pytest.Item]) -> None:
    # tests/test_under_load.py runs every load_sensitive test in a child pytest beside one busy loop per
    # core: when it is in this run, those tests are left to it rather than run twice (minutes of CI).
    if not any(item.nodeid.startswith("tests/test_under_load.py") for item in items):
        return
    sensitive = [item for item in items if item.get_closest_marker("load_sensitive") is not None]
    if sensitive:
        config.hook.pytest_deselected(items=sensitive)
        items[:] = [item for item in items if item.get_closest_marker("load_sensitive") is None]


@pytest.fixture(autouse=True)
def _stacks_if_hung(request: pytest.FixtureRequest):
    # A test that sets a longer pytest-timeout of its own (a bound on a hang on a busy machine) gets
    # pytest-timeout's failure first, and the watchdog a while after it.
    marker = request.node.get_closest_marker("timeout")
    own = int(marker.args[0]) + 300 if marker and marker.args else 0
    faulthandler.dump_traceback_later(max(HUNG_TEST_S, own), exit=True, file=request.config.stash[_STDERR])
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session", autouse=True)
def _isolated_user_data(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Never touch the real user data folder from tests."""
    os.environ["TINGJI_HOME"] = str(tmp_path_factory.mktemp("tingji-home"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user data folder per test (settings, databases, models); never a developer's desktop."""
    path = tmp_path / "home"
    monkeypatch.setenv("TINGJI_HOME", str(path))
    monkeypatch.delenv("DISPLAY", raising=False)  # dictation's global hotkey would grab the real display
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("TINGJI_CATALOG", raising=False)  # the built-in catalog unless a test names one
    return path


@pytest.fixture(scope="module")
def engine(tiny_model: Path):
    """A warmed engine on the tiny model, on the CPU, shared by a module's tests."""
    from tingji.engine import Engine

    eng = Engine(tiny_model, "cpu")
    yield eng
    eng.close()


# A session that starts another (tests/test_under_load.py) hands it the tiny model it already
# exported: building it again, with every core busy, would be most of that run's time.
def _prebuilt_env(fixture: str) -> str:
    return f"TINGJI_TEST_{fixture.upper()}_MODEL"


PREBUILT_TINY_MODEL = _prebuilt_env("tiny")


def _family_fixtures(family: Family) -> tuple[Any, Any]:
    """A family's session fixture pair, named by its declaration (engine/families/kit.py):
    `<fixture>_checkpoint`, its tiny random checkpoint in the official layout, and `<fixture>_model`,
    that checkpoint exported with the declared options (family detected from its config)."""
    tiny = family.tiny

    def checkpoint(request: pytest.FixtureRequest) -> Path:
        maker = importlib.import_module(tiny.maker).make_checkpoint
        return built_once(request, tiny.checkpoint_fixture, lambda folder: maker(folder / tiny.checkpoint, seed=0))

    def model(request: pytest.FixtureRequest) -> Path:
        from tingji.export import export_model

        prebuilt = os.environ.get(_prebuilt_env(tiny.fixture))
        if prebuilt:
            return Path(prebuilt)
        source = request.getfixturevalue(tiny.checkpoint_fixture)
        return built_once(
            request, tiny.model_fixture, lambda folder: export_model(source, folder / tiny.model, **tiny.export)
        )

    checkpoint.__doc__ = f"A tiny random {family.name} checkpoint in its official release layout."
    model.__doc__ = f"The tiny {family.name} checkpoint exported as a model folder ({dict(tiny.export) or 'defaults'})."
    return (
        pytest.fixture(scope="session", name=tiny.checkpoint_fixture)(checkpoint),
        pytest.fixture(scope="session", name=tiny.model_fixture)(model),
    )


for _family in KITS:  # tiny_checkpoint/tiny_model (Nano), sv_..., q3_..., pf_..., punc_..., speaker_...
    globals()[_family.tiny.checkpoint_fixture], globals()[_family.tiny.model_fixture] = _family_fixtures(_family)


@pytest.fixture(scope="session")
def reference(tiny_checkpoint: Path):
    from tests.support.reference_nano import Reference

    return Reference(tiny_checkpoint)


@pytest.fixture(scope="session")
def speech_en(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    from tests.support.audio import espeak

    return espeak(
        tmp_path_factory.mktemp("speech") / "en.wav",
        "Hello world. This is a test of the speech recognizer, one two three four five.",
    )


@pytest.fixture(scope="session")
def speech_zh(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    from tests.support.audio import espeak

    return espeak(tmp_path_factory.mktemp("speech") / "zh.wav", "今天天气很好，我们一起去学校吧。", voice="cmn")


@pytest.fixture(scope="session")
def noise() -> np.ndarray:
    return (np.random.default_rng(7).standard_normal(16000 * 3) * 0.05).astype(np.float32)


@pytest.fixture(autouse=True)
def _gui_thread_gc(request: pytest.FixtureRequest) -> None:
    """Qt tests get the app's GUI-thread garbage collection (tingji.gui.gc_guard), as the app has it.

    The app freezes its start-up heap so that a full collection on the GUI thread
    stays short. A test process also holds what earlier tests built (the funasr
    reference, torch modules): frozen too before each Qt test, or one full
    collection of it would show up in the event-loop stall measurements.
    """
    if "qtbot" in request.fixturenames or "qapp" in request.fixturenames:
        import gc

        from tingji.gui import gc_guard

        gc_guard.install(request.getfixturevalue("qapp"))
        gc.freeze()


@pytest.fixture(scope="session")
def sv_reference(sv_checkpoint: Path):
    from tests.support.reference_sense_voice import SenseVoiceReference

    return SenseVoiceReference(sv_checkpoint)


@pytest.fixture(scope="session")
def q3_reference(q3_checkpoint: Path):
    from tests.support.reference_qwen3 import Qwen3Reference

    return Qwen3Reference(q3_checkpoint)


@pytest.fixture(scope="session")
def pf_reference(pf_checkpoint: Path):
    from tests.support.reference_paraformer import ParaformerReference

    return ParaformerReference(pf_checkpoint)


@pytest.fixture(scope="session")
def pf_plain_checkpoint(request: pytest.FixtureRequest) -> Path:
    """A tiny random plain Paraformer checkpoint (paraformer-large, CifPredictorV2)."""
    from tiny_paraformer import make_checkpoint

    return built_once(
        request,
        "pf_plain_checkpoint",
        lambda folder: make_checkpoint(folder / "paraformer-large-tiny", seed=0, variant="plain"),
    )


@pytest.fixture(scope="session")
def pf_plain_model(pf_plain_checkpoint: Path, request: pytest.FixtureRequest) -> Path:
    """The plain checkpoint in fp32, dynamic graphs only (its fixed twins are the BiCIF model's graphs)."""
    from tingji.export import export_model

    return built_once(
        request,
        "pf_plain_model",
        lambda folder: export_model(pf_plain_checkpoint, folder / "pf-plain-tiny", fixed=False),
    )


@pytest.fixture(scope="session")
def pf_plain_reference(pf_plain_checkpoint: Path):
    from tests.support.reference_paraformer import ParaformerReference

    return ParaformerReference(pf_plain_checkpoint)


@pytest.fixture(scope="session")
def punc_reference(punc_checkpoint: Path):
    from tests.support.reference_punctuation import PunctuationReference

    return PunctuationReference(punc_checkpoint)


@pytest.fixture(scope="session")
def two_voices(request: pytest.FixtureRequest) -> Path:
    """A WAV file of two espeak-ng voices taking turns (8 turns of six demo-vocabulary words, ~25 s)."""
    from demo_model import recipe, speech

    from tests.support.audio import write_wav

    def build(folder: Path) -> Path:
        rng = np.random.default_rng(33)
        voices = [speech.Speaker("en-us", "m4", 165, 30, 1), speech.Speaker("en-gb-x-rp", "f3", 175, 80, 1)]
        jobs = [(" ".join(rng.choice(recipe.WORDS, 6)), voices[i % 2]) for i in range(8)]
        pause = np.zeros(int(0.6 * recipe.SAMPLE_RATE), np.float32)
        parts = [pause]
        for clip in speech.espeak_many(jobs):
            parts += [clip, pause]
        return write_wav(folder / "two-voices.wav", np.concatenate(parts))

    return built_once(request, "two_voices", build)


@pytest.fixture(autouse=True)
def _root_logger_untouched() -> None:
    """A helper that raises the root logger's level for good hides every later test's warnings (caplog
    included): fail where it happens, not in some unrelated test later."""
    import logging

    before = logging.getLogger().level
    yield
    assert logging.getLogger().level == before, "the root logger's level was changed and not restored"
