#!/usr/bin/env python3
"""Take the README screenshots: the real app under Xvfb, empty / busy / finished, English and Chinese.

    python3 tools/screenshots.py [--model DIR] [--out docs/screenshots]

It starts its own Xvfb (1280x800, so the shots look like a laptop screen),
runs the app on it through the normal xcb platform plugin (real fonts, real
rendering), feeds it speech made with espeak-ng, and saves what the window
shows at each stage. Each shot uses a fresh, throw-away data folder.

The model defaults to the trained demo model (tests/fixtures/models/demo) when
present, else a tiny random-weight model is built on the spot (its transcripts
are gibberish, but the layout is what the shots are for).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT / "app", ROOT / "tools", ROOT / "tests"):
    sys.path.insert(0, str(extra))

SHOTS_SIZE = (1120, 700)
SENTENCES = {
    "interview": "Thanks for coming in today. Could you tell us how the project started, and what "
                 "surprised you most in the first year? We began with a small team and a lot of recordings.",
    "memo": "Remember to send the slides before Friday and book the meeting room for ten o'clock.",
    "lecture": "In this lecture we look at signals and systems: sampling, aliasing and the Fourier transform.",
    "meeting_zh": "今天的会议主要讨论三个问题。第一，下个季度的预算；第二，新产品的发布时间。",
}


def start_xvfb() -> tuple[subprocess.Popen, str]:
    for n in range(99, 120):
        if Path(f"/tmp/.X11-unix/X{n}").exists() or Path(f"/tmp/.X{n}-lock").exists():
            continue
        proc = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if Path(f"/tmp/.X11-unix/X{n}").exists():
                return proc, f":{n}"
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
    raise SystemExit("screenshots: could not start Xvfb")


def default_model(work: Path) -> Path:
    demo = ROOT / "tests" / "fixtures" / "models" / "demo"
    if (demo / "manifest.json").is_file():
        return demo
    from make_tiny_checkpoint import make_checkpoint
    from tingji.export import export_model

    print("screenshots: building a tiny model (no demo model yet)…", file=sys.stderr)
    ckpt = make_checkpoint(work / "ckpt" / "Fun-ASR-Nano-tiny", seed=0)
    return Path(export_model(ckpt, work / "models" / "tiny", decoder_quant="f32"))


def make_media(folder: Path) -> dict[str, Path]:
    """A few believable files, one long enough to catch mid-way, and one broken."""
    import numpy as np

    from audio_fixtures import espeak, ffmpeg, write_wav

    folder.mkdir(parents=True, exist_ok=True)
    speech = {k: espeak(folder / f".{k}.wav", text, voice="cmn" if k.endswith("_zh") else "en")
              for k, text in SENTENCES.items()}
    gap = np.zeros(8000, np.float32)
    files = {
        "interview": write_wav(folder / "Interview with Dr. Chen.wav",
                               np.concatenate([np.concatenate([speech["interview"], gap])] * 16)),
        "memo": folder / "Voice memo 12 May.m4a",
        "lecture": folder / "Lecture 03 - Signals and systems.flac",
        "meeting_zh": write_wav(folder / "产品例会 2024-05-12.wav", speech["meeting_zh"]),
        "broken": folder / "camera-clip-0042.mp4",
    }
    write_wav(folder / ".memo.src.wav", speech["memo"])
    ffmpeg("-i", str(folder / ".memo.src.wav"), "-c:a", "aac", str(files["memo"]))
    write_wav(folder / ".lecture.src.wav", np.concatenate([speech["lecture"], gap] * 3))
    ffmpeg("-i", str(folder / ".lecture.src.wav"), str(files["lecture"]))
    files["broken"].write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(2048))  # a truncated video
    return files


class Session:
    """One app window in a fresh data folder, in one language and appearance."""

    def __init__(self, app, model: Path, lang: str, appearance: str, work: Path, with_model: bool = True) -> None:
        from tingji.gui import i18n, settings as settings_mod, theme
        from tingji.gui.app import create_window

        self.app = app
        home = Path(tempfile.mkdtemp(prefix=f"home-{lang}-", dir=work))
        os.environ["TINGJI_HOME"] = str(home)
        settings_mod.save(settings_mod.Settings(model=str(model) if with_model else "", ui_language=lang,
                                                appearance=appearance))
        i18n.install(app, lang)
        theme.apply_appearance(app, appearance)
        self.window = create_window()
        self.window.resize(*SHOTS_SIZE)
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        self.wait(lambda: True, 0.5)

    def wait(self, condition, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.app.processEvents()
            if condition():
                return True
            time.sleep(0.01)
        return condition()

    def ready(self) -> None:
        from tingji.gui.controller import EngineState

        if not self.wait(lambda: self.window.controller.engine_state is EngineState.READY, 120):
            raise SystemExit(f"screenshots: the engine did not load ({self.window.controller.engine_detail})")

    def shot(self, path: Path) -> None:
        self.wait(lambda: False, 0.4)  # let every repaint land
        self.window.grab().save(str(path))
        print(path)

    def close(self) -> None:
        self.window.close()
        self.window.deleteLater()  # gone before the QApplication, not at interpreter exit
        self.wait(lambda: False, 0.2)


def settings_shot(s: Session, path: Path) -> None:
    from tingji.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(s.window.controller.settings, s.window)
    dialog.show()
    s.wait(lambda: False, 0.5)
    dialog.grab().save(str(path))
    print(path)
    dialog.close()
    dialog.deleteLater()


def run(model: Path, out: Path, work: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from tingji.gui.app import create_app
    from tingji.gui.storage import Status

    os.environ["TINGJI_HOME"] = str(work / "home-boot")
    app = create_app([sys.argv[0]])
    assert isinstance(app, QApplication)
    media = make_media(work / "media")
    order = ["meeting_zh", "memo", "interview", "lecture", "broken"]

    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        for appearance in ("light", "dark"):
            suffix = "" if appearance == "light" else "-dark"
            s = Session(app, model, lang, appearance, work)
            s.ready()
            if appearance == "light":
                s.shot(out / f"empty-{tag}.png")
            c = s.window.controller
            s.window.add_paths([str(media[k]) for k in order])

            def job(name: str):
                return next(j for j in c.model.jobs() if j.name == media[name].name)

            s.wait(lambda: job("interview").status is Status.RUNNING and (c.model.fraction(job("interview").id) or 0)
                   >= 0.3, 180)
            s.window.queue.select_job(job("interview").id)
            s.shot(out / f"busy-{tag}{suffix}.png")
            s.wait(lambda: all(j.status.finished for j in c.model.jobs()), 300)
            s.window.queue.select_job(job("lecture").id)
            s.shot(out / f"finished-{tag}{suffix}.png")
            if appearance == "light":
                settings_shot(s, out / f"settings-{tag}.png")
            s.close()
        s = Session(app, model, lang, "light", work, with_model=False)
        s.shot(out / f"no-model-{tag}.png")
        s.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="model folder (default: demo model, else a tiny one)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    xvfb, display = start_xvfb()
    work = Path(tempfile.mkdtemp(prefix="tingji-shots-"))
    os.environ["DISPLAY"] = display
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    os.environ.pop("WAYLAND_DISPLAY", None)
    try:
        model = args.model or default_model(work)
        run(model, args.out, work)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
