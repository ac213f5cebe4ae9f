"""Smoke-test a frozen build: the CLI transcribes like the installed engine, the GUI starts.

    python installer/smoke.py --app dist/tingji --model <model folder>

Needs Tingji itself importable in this Python (the build environment) to get
the reference transcripts, and a model folder (CI uses the tiny random model:
tools/make_tiny_checkpoint.py + `tingji export-model`). Test audio is made
here (no speech synthesiser needed): a WAV read by libsndfile and an M4A
decoded by PyAV's FFmpeg. Checks, each a failure if it does not hold:

* `tingji --version` and `tingji models list` (the bundled catalog) work;
* `tingji transcribe --provider cpu` gives the same text as Engine(model, "cpu"),
  in normal mode (Silero VAD from the bundle) and --exact mode (never empty);
* `tingji transcribe` with the default provider (DirectML on Windows) succeeds;
* `tingji-gui`, offscreen, loads the model (llama.cpp's log lines appear in its
  log) and is still running a few seconds later; then it is terminated.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

EXE = ".exe" if sys.platform == "win32" else ""


class SmokeError(Exception):
    pass


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise SmokeError(msg)


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TINGJI_", "QT_"))}
    env.update(TINGJI_HOME=str(home), QT_QPA_PLATFORM="offscreen", PYTHONIOENCODING="utf-8", **extra)
    return env


def make_audio(folder: Path) -> list[Path]:
    """Six seconds of a voice-like signal (harmonics with a wandering pitch, syllable envelope, noise)."""
    import av
    import soundfile as sf

    sr = 16000
    t = np.arange(sr * 6) / sr
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / sr
    voice = sum(np.sin(k * phase) / k for k in range(1, 12))
    envelope = np.clip(np.sin(2 * np.pi * 2.5 * t), 0, None) ** 0.5
    rng = np.random.default_rng(0)
    x = (0.25 * voice * envelope + 0.01 * rng.standard_normal(t.size)).astype(np.float32)
    x /= max(1.0, float(np.abs(x).max()) / 0.9)
    wav = folder / "voice.wav"
    sf.write(str(wav), x, sr, subtype="PCM_16")
    m4a = folder / "voice2.m4a"
    with av.open(str(m4a), "w") as out:
        stream = out.add_stream("aac", rate=sr)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray(x.reshape(1, -1), format="flt", layout="mono")
        frame.sample_rate = sr
        for packet in stream.encode(frame):
            out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return [wav, m4a]


def run_cli(app: Path, args: list[str], home: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [str(app / f"tingji{EXE}"), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=env_for(home),
        timeout=timeout,
    )
    print(f"$ tingji {' '.join(args)}  -> {r.returncode}\n{r.stderr.strip()}", flush=True)
    check("Traceback" not in r.stderr, f"traceback from tingji {args[0]}:\n{r.stderr}")
    return r


def check_cli(app: Path, model: Path, work: Path) -> None:
    import tingji
    from tingji.engine import Engine

    home = work / "home-cli"
    r = run_cli(app, ["--version"], home)
    check(r.returncode == 0 and r.stdout.strip() == f"tingji {tingji.__version__}", f"--version: {r.stdout!r}")
    r = run_cli(app, ["models", "list"], home)
    check(r.returncode == 0 and "fun-asr-nano" in r.stdout, f"models list: {r.stdout!r}")

    audio = make_audio(work)
    for mode in ("normal", "exact"):
        out = work / f"out-{mode}"
        extra = ["--exact"] if mode == "exact" else []
        r = run_cli(
            app,
            [
                "transcribe",
                *map(str, audio),
                "--model",
                str(model),
                "--provider",
                "cpu",
                "--out",
                str(out),
                "--format",
                "txt,json",
                *extra,
            ],
            home,
        )
        check(r.returncode == 0, f"transcribe ({mode}) failed")
        engine = Engine(model, "cpu", exact=mode == "exact")
        try:
            for src in audio:
                got = json.loads((out / f"{src.stem}.json").read_text(encoding="utf-8"))["text"]
                want = engine.transcribe(src).text
                same = "same as" if got == want else "DIFFERENT from"
                print(f"{mode} {src.name}: frozen {got[:40]!r}... ({len(got)} chars) {same} the engine's", flush=True)
                check(got == want, f"{src.name} ({mode}): frozen {got!r} != engine {want!r}")
                if mode == "exact":
                    check(bool(got), f"{src.name}: empty transcript in --exact mode")
        finally:
            engine.close()

    out = work / "out-auto"
    r = run_cli(app, ["transcribe", str(audio[0]), "--model", str(model), "--out", str(out), "--format", "json"], home)
    check(r.returncode == 0, "transcribe with the default provider failed")
    provider = json.loads((out / f"{audio[0].stem}.json").read_text(encoding="utf-8"))["provider"]
    print(f"default provider in the frozen app: {provider}", flush=True)


def check_gui(app: Path, model: Path, work: Path, alive_s: float = 8.0, load_timeout_s: float = 180.0) -> None:
    home = work / "home-gui"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps({"model": str(model), "provider": "cpu", "ui_language": "zh_CN"}), encoding="utf-8"
    )
    log = home / "logs" / "tingji-gui.log"
    errfile = work / "gui-stderr.txt"
    with open(errfile, "wb") as err:
        proc = subprocess.Popen(
            [str(app / f"tingji-gui{EXE}")], env=env_for(home, TINGJI_DEBUG="1"), stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        started = time.monotonic()
        while True:
            check(
                proc.poll() is None,
                f"tingji-gui exited with {proc.returncode}:\n"
                + errfile.read_text(encoding="utf-8", errors="replace")[-3000:],
            )
            text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
            check("engine load failed" not in text, f"tingji-gui could not load the model:\n{text[-4000:]}")
            if "llama.cpp:" in text:
                break
            check(time.monotonic() - started < load_timeout_s, "tingji-gui never loaded the model")
            time.sleep(0.5)
        print(f"tingji-gui loaded the model in {time.monotonic() - started:.1f} s", flush=True)
        time.sleep(alive_s)
        check(proc.poll() is None, f"tingji-gui exited with {proc.returncode} after loading")
        text = log.read_text(encoding="utf-8", errors="replace")
        check("Traceback" not in text and "engine load failed" not in text, text[-4000:])
        print("tingji-gui is running: terminating it", flush=True)
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise SmokeError("tingji-gui did not stop when terminated") from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--app", default="dist/tingji", help="the frozen app folder (default dist/tingji)")
    p.add_argument("--model", required=True, help="a model folder")
    p.add_argument("--work", help="scratch folder (default: a temporary one)")
    p.add_argument("--skip-gui", action="store_true")
    args = p.parse_args(argv)
    app, model = Path(args.app).resolve(), Path(args.model).resolve()
    with tempfile.TemporaryDirectory(prefix="tingji-smoke-") as tmp:
        work = Path(args.work).resolve() if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        try:
            check_cli(app, model, work)
            if not args.skip_gui:
                check_gui(app, model, work)
        except SmokeError as exc:
            print(f"smoke test FAILED: {exc}", file=sys.stderr, flush=True)
            return 1
    print("smoke test passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
