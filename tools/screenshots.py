#!/usr/bin/env python3
"""Take the README screenshots: the real app under Xvfb, English and Chinese.

    python3 tools/screenshots.py [--model DIR] [--out docs/screenshots]

Shots: empty / busy / finished queue (light and dark), settings, no model,
and the dictation page with a few takes in its history and one under way.
`--extra` takes the views the README does not show instead (a damaged file
done with warnings, automatic export's chosen names, the model unloaded
while idle, the databases' banner), for checking how they look. `--models`
takes the model views: the first-run picker (idle, and converting an
imported official checkpoint), a model per use (the window, the model
manager, Settings) and the Qwen3-ASR language menu open, with tiny
SenseVoice-Small and Qwen3-ASR models built on the spot. `--overlay` takes
the dictation overlay, listening (its level meter moving) and showing the
live preview, over the app's window as it floats over any window.
`--paraformer` takes the picker scrolled to Paraformer-zh and a Chinese
transcript made by a tiny Paraformer-zh with its tiny punctuation model
(random weights: the characters are gibberish, the punctuation and
timestamps are real).
`--speakers` takes speaker labels: a three-voice conversation's transcript
with named, coloured speakers, the rename dialog, and the voice library in
Settings; with `--speaker-model DIR`, or the trained speaker model under
tests/fixtures/models, else a random-weight one (draft shots: arbitrary labels).
`--turns` takes issue 45's three-voice conversation of quick turns (one window, turns of 0.5-4 s)
transcribed with speakers found, English and Chinese.
`--settings` takes only the Settings dialog (settings-*.png): its speech tab (where the decoder
runs, drafting) and its speakers tab (per word or per sentence), English and Chinese.

It starts its own Xvfb (1280x800, so the shots look like a laptop screen),
runs the app on it through the normal xcb platform plugin (real fonts, real
rendering), feeds it speech made with espeak-ng, and saves what the window
shows at each stage. Each shot uses a fresh, throw-away data folder.

The model defaults to the trained demo model (tests/fixtures/models/demo) when
present, else a tiny random-weight model is built on the spot (its transcripts
are gibberish, but the layout is what the shots are for). The demo model
knows a small English vocabulary (digits and some thirty common words, at
most six words an utterance), so every sentence spoken here uses only those.

Dictation is real too, except the microphone: the takes are spoken into the
controller through tests.support.gui.ScriptedMicrophone (Xvfb has no sound
card), then VAD, the engine and the history do their work.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "app", ROOT / "tools"):  # ROOT: the tests package (tests.support)
    sys.path.insert(0, str(extra))

SHOTS_SIZE = (1120, 700)
# Phrases from the demo model's vocabulary (tools/demo_model/recipe.py: VOCAB), six words at most,
# as it was trained. The engine reads a file in windows of up to 60 s, so the long file has one
# phrase a minute: each window then holds one utterance, as the demo model knows them.
FILES = {
    "call": [
        "hello thank you",
        "please call home today",
        "new meeting today time nine",
        "yes please save file",
        "no thank you",
    ],
    "memo": ["please call home today"],
    "numbers": ["five five two one zero nine"],
    "lesson": ["red green blue left right"],
}
CALL_SPACING_S = 60.0
TAKES = ["please call home today", "save file open new file", "one two three four five"]


def start_xvfb() -> tuple[subprocess.Popen, str]:
    """RECORD and XTEST on: dictation's global hotkey and paste work as on a desktop."""
    for n in range(99, 120):
        if Path(f"/tmp/.X11-unix/X{n}").exists() or Path(f"/tmp/.X{n}-lock").exists():
            continue
        proc = subprocess.Popen(
            [
                "Xvfb",
                f":{n}",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
                "+extension",
                "XTEST",
                "+extension",
                "RECORD",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
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


def speak(folder: Path, name: str, phrases: list[str], voices: tuple[str, ...] = ("en-gb", "en-us")):
    """The phrases spoken one by one (alternating voices), 0.7 s apart, as 16 kHz samples."""
    import numpy as np

    from tests.support.audio import espeak

    gap = np.zeros(11200, np.float32)
    parts = []
    for i, phrase in enumerate(phrases):
        parts += [espeak(folder / f".{name}-{i}.wav", phrase, voice=voices[i % len(voices)], speed=150), gap]
    return np.concatenate(parts)


def make_media(folder: Path) -> dict[str, Path]:
    """A few believable files, one long enough to catch mid-way, and one broken."""
    import numpy as np

    from tests.support.audio import ffmpeg, write_wav

    folder.mkdir(parents=True, exist_ok=True)
    speech = {k: speak(folder, k, phrases) for k, phrases in FILES.items() if k != "call"}
    minute = int(CALL_SPACING_S * 16000)
    call = [speak(folder, f"call{i}", [p]) for i, p in enumerate(FILES["call"])]
    files = {
        "call": write_wav(
            folder / "Call with Dr. Chen.wav",
            np.concatenate([np.pad(c, (8000, max(0, minute - 8000 - len(c)))) for c in call]),
        ),
        "memo": folder / "Voice memo 12 May.m4a",
        "lesson": folder / "Lesson 03 - Colours and directions.flac",
        "numbers": write_wav(folder / "电话号码 2024-05-12.wav", speech["numbers"]),
        "broken": folder / "camera-clip-0042.mp4",
    }
    write_wav(folder / ".memo.src.wav", speech["memo"])
    ffmpeg("-i", str(folder / ".memo.src.wav"), "-c:a", "aac", str(files["memo"]))
    write_wav(folder / ".lesson.src.wav", speech["lesson"])
    ffmpeg("-i", str(folder / ".lesson.src.wav"), str(files["lesson"]))
    files["broken"].write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(2048))  # a truncated video
    return files


class Session:
    """One app window in a fresh data folder, in one language and appearance."""

    def __init__(
        self,
        app,
        model_dir: Path,
        lang: str,
        appearance: str,
        work: Path,
        with_model: bool = True,
        damage_queue: bool = False,
        installed: dict[str, Path] | None = None,
        **settings,
    ) -> None:
        from tests.support.gui import ScriptedMicrophone
        from tingji.gui import i18n, theme
        from tingji.gui import settings as settings_mod
        from tingji.gui.app import create_window

        self.app = app
        home = Path(tempfile.mkdtemp(prefix=f"home-{lang}-", dir=work))
        os.environ["TINGJI_HOME"] = str(home)
        if with_model:  # installed, as a user has it: Settings then names it, not a path on this machine
            shutil.copytree(model_dir, home / "models" / model_dir.name)
            settings.setdefault("model", model_dir.name)
        for name, folder in (installed or {}).items():  # more models, under the names users give them
            shutil.copytree(folder, home / "models" / name)
        settings_mod.save(settings_mod.Settings(ui_language=lang, appearance=appearance, **settings))
        if damage_queue:  # the databases' banner: this one is set aside at start-up
            (home / "tingji.sqlite3").write_bytes(b"not a database " * 64)
        i18n.install(app, lang)
        theme.apply_appearance(app, appearance)
        self.mics: list[ScriptedMicrophone] = []
        self.window = create_window(dictation_microphone=self._microphone)
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
        from tingji.gui.engine_host import EngineState

        if not self.wait(lambda: self.window.engine.state_of("files") is EngineState.READY, 120):
            raise SystemExit(f"screenshots: the engine did not load ({self.window.engine.detail_of('files')})")

    def shot(self, path: Path) -> None:
        self.wait(lambda: False, 0.4)  # let every repaint land
        self.window.grab().save(str(path))
        print(path)

    def _microphone(self, settings):
        from tests.support.gui import ScriptedMicrophone

        self.mics.append(ScriptedMicrophone(settings))
        return self.mics[-1]

    def close(self) -> None:
        self.window.quit_app()
        self.window.deleteLater()  # gone before the QApplication, not at interpreter exit
        self.wait(lambda: False, 0.2)


def settings_shot(s: Session, path: Path, page: str = "speech") -> None:
    """The Settings dialog open at `page` (a key of `SettingsDialog.pages`)."""
    from tingji.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(s.window.settings, s.window)
    dialog.tabs.setCurrentWidget(dialog.pages[page])
    dialog.show()
    s.wait(lambda: False, 0.5)
    dialog.grab().save(str(path))
    print(path)
    dialog.close()
    dialog.deleteLater()


def settings_shots(app, model: Path, out: Path, work: Path) -> None:
    """The Settings dialog alone, in English and Chinese, with the model loaded (as `run` takes it)."""
    speakers, _ = speaker_model_for_shots(work, None)
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        s = Session(app, model, lang, "light", work, installed={"campplus": speakers}, speakers="auto")
        s.ready()
        settings_shot(s, out / f"settings-{tag}.png")
        settings_shot(s, out / f"settings-speakers-{tag}.png", "speakers")
        s.close()


def dictation_shot(s: Session, takes: dict, path: Path) -> None:
    """The dictation page: a few takes done, the next one listening."""
    from tingji.dictation.states import DictationState

    idle = DictationState.IDLE
    host = s.window.dictation_host
    s.window.show_page("dictation")
    s.window.dictation.table.setFocus()  # the takes are pasted into the focused window: this one
    if not s.wait(lambda: host.controller is not None, 30):
        raise SystemExit("screenshots: dictation did not start")
    for text in TAKES:
        done = s.window.dictation.table.rowCount() + 1
        host.controller.begin_take()
        s.wait(lambda: s.mics[-1].recording, 5)
        s.mics[-1].speak(takes[text])
        host.controller.end_take()
        if not s.wait(lambda: s.window.dictation.table.rowCount() >= done and host.controller.state is idle, 60):
            print(f"screenshots: the take {text!r} produced no text", file=sys.stderr)
    s.wait(lambda: False, 0.8)  # the last paste's clipboard restore
    host.controller.begin_take()
    s.wait(lambda: host.state is DictationState.LISTENING, 5)
    s.shot(path)
    host.controller.end_take()
    s.wait(lambda: host.controller.state is idle, 30)


def overlay_shots(app, model: Path, out: Path, work: Path) -> None:
    """The dictation overlay listening and previewing, in both languages, over the window behind it."""
    import numpy as np
    from PySide6.QtGui import QGuiApplication

    from tingji.dictation.states import DictationState

    phrases = ["please call home today", "save file open new file"]
    samples = speak(work, "overlay", phrases, ("en-us",))
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        s = Session(app, model, lang, "light", work)
        s.ready()
        host = s.window.dictation_host
        if not s.wait(lambda: host.controller is not None, 30) or host.overlay is None:
            raise SystemExit("screenshots: dictation (or its overlay) did not start")
        overlay, block = host.overlay, 512
        s.window.dictation.table.setFocus()
        host.controller.begin_take()
        s.wait(lambda: s.mics[-1].recording, 5)

        def say(start: int, until) -> int:  # in real time, the GUI running meanwhile; returns where it stopped
            i = start
            while i < len(samples) and not until(i):
                s.mics[-1].speak(samples[i : i + block])
                s.wait(lambda: False, block / 16000)
                i += block
            return i

        first_word = int(np.argmax(np.abs(samples) > 0.02))
        at = say(0, lambda i: i > first_word + 4000)
        screen = QGuiApplication.primaryScreen()
        g = overlay.frameGeometry().adjusted(-24, -24, 24, 24)

        def grab(name: str) -> None:
            screen.grabWindow(0, g.x(), g.y(), g.width(), g.height()).save(str(out / name))
            print(out / name)

        grab(f"overlay-listening-{tag}.png")
        # Mid-sentence, with a preview of two phrases' words showing: the meter still moves.
        at = say(at, lambda i: len(overlay.text.split()) >= 3 and overlay.level > 0.5)
        grab(f"overlay-preview-{tag}.png")
        say(at, lambda i: False)
        host.controller.end_take()
        s.wait(lambda: host.controller.state is DictationState.IDLE, 60)
        s.close()


def run(model: Path, out: Path, work: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from tingji.gui.app import create_app
    from tingji.gui.files.storage import Status

    os.environ["TINGJI_HOME"] = str(work / "home-boot")
    app = create_app([sys.argv[0]])
    assert isinstance(app, QApplication)
    import numpy as np

    media = make_media(work / "media")
    order = ["numbers", "memo", "call", "lesson", "broken"]
    silence = np.zeros(4800, np.float32)
    takes = {
        t: np.concatenate([silence, speak(work / "media", f"take{i}", [t], ("en-us",)), silence])
        for i, t in enumerate(TAKES)
    }

    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        for appearance in ("light", "dark"):
            suffix = "" if appearance == "light" else "-dark"
            s = Session(app, model, lang, appearance, work)
            s.ready()
            if appearance == "light":
                s.shot(out / f"empty-{tag}.png")
            c = s.window.controller
            s.window.files.add_paths([str(media[k]) for k in order])

            def job(name: str):
                return next(j for j in c.model.jobs() if j.name == media[name].name)

            s.wait(lambda: job("call").status is Status.RUNNING and (c.model.fraction(job("call").id) or 0) >= 0.3, 180)
            s.window.files.queue.select_job(job("call").id)
            s.shot(out / f"busy-{tag}{suffix}.png")
            s.wait(lambda: all(j.status.finished for j in c.model.jobs()), 300)
            s.window.files.queue.select_job(job("call").id)
            s.shot(out / f"finished-{tag}{suffix}.png")
            if appearance == "light":
                settings_shot(s, out / f"settings-{tag}.png")
                dictation_shot(s, takes, out / f"dictation-{tag}.png")
            s.close()
        s = Session(app, model, lang, "light", work, with_model=False)
        s.shot(out / f"no-model-{tag}.png")
        s.close()


def extra_shots(app, model: Path, out: Path, work: Path) -> None:
    """The views the README does not show, in both languages (see the module docstring)."""
    import numpy as np
    import soundfile as sf

    from tests.support.audio import damaged_at
    from tests.support.gui import fill_to_the_brim
    from tingji.gui.files.storage import Status

    media = work / "extra"
    media.mkdir(parents=True, exist_ok=True)
    talk = speak(media, "talk", FILES["call"])
    sf.write(
        str(media / "Interview 2024-05-12.flac"), np.resize(np.concatenate([talk, np.zeros(16000)]), 90 * 16000), 16000
    )
    damaged = damaged_at(media / "Interview 2024-05-12.flac", 1 / 2)
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        folder = work / f"extra-{tag}"
        folder.mkdir()
        shutil.copy(damaged, folder / damaged.name)
        memo = folder / "Team meeting.wav"
        sf.write(str(memo), speak(media, "memo", FILES["memo"]), 16000)
        (folder / "Team meeting.txt").write_text("my own notes\n", encoding="utf-8")
        s = Session(app, model, lang, "light", work, auto_export=True)
        s.ready()
        c = s.window.controller
        jobs = c.add_paths([str(folder / damaged.name), str(memo)])
        s.wait(lambda: all(j.status.finished for j in c.model.jobs()), 300)
        s.window.files.queue.select_job(jobs[0].id)
        s.shot(out / f"warnings-{tag}.png")
        s.window.files.queue.select_job(jobs[1].id)
        s.shot(out / f"exported-{tag}.png")
        unloads: list[bool] = []
        s.window.engine.unloaded.connect(lambda: unloads.append(True))
        s.window.apply_settings(replace(s.window.settings, unload_after_min=0.05 / 60))  # idle for 50 ms
        s.wait(lambda: bool(unloads), 30)
        s.window.statusBar().clearMessage()  # a message hides the engine's status while it shows
        s.shot(out / f"unloaded-{tag}.png")
        settings_shot(s, out / f"settings-{tag}.png")
        (more,) = c.add_paths([str(folder / "Team meeting.wav")])
        fill_to_the_brim(c.store._db)  # writes fail from here: the fault banner
        s.wait(lambda: c.model.job_by_id(more.id).status is Status.DONE, 300)
        s.window.files.queue.select_job(more.id)
        s.shot(out / f"storage-fault-{tag}.png")
        s.close()
        s = Session(app, model, lang, "light", work, damage_queue=True)
        s.shot(out / f"set-aside-{tag}.png")
        s.close()


def build_family_models(work: Path) -> dict[str, Path]:
    """Tiny SenseVoice-Small and Qwen3-ASR checkpoints (official layout) and their model folders."""
    from tiny_qwen3_asr import make_checkpoint as qwen3_checkpoint
    from tiny_sense_voice import make_checkpoint as sense_voice_checkpoint

    from tingji.export import export_model

    print("screenshots: building tiny SenseVoice-Small and Qwen3-ASR models…", file=sys.stderr)
    sv = sense_voice_checkpoint(work / "ckpt" / "SenseVoiceSmall", seed=0)
    q3 = qwen3_checkpoint(work / "ckpt" / "Qwen3-ASR-0.6B", seed=0)
    return {
        "sv-checkpoint": sv,
        "sv": export_model(sv, work / "models" / "sv"),
        "q3": export_model(q3, work / "models" / "q3", decoder_quant="f32"),
    }


def model_shots(app, model: Path, out: Path, work: Path) -> None:
    """The first-run picker (idle, and converting an import) and the window behind it, the model per use
    (model manager, Settings, the Dictation page and status bar) and the Qwen3-ASR language menu open, in
    both languages. Replaces the run's no-model and settings shots: those views changed with them."""
    from tingji.gui.models.manager import ModelManagerDialog
    from tingji.gui.settings_dialog import SettingsDialog

    built = build_family_models(work)
    os.environ["TINGJI_CATALOG"] = str(ROOT / "assets" / "models.json")  # this checkout's catalog
    installed = {"fun-asr-nano-2512": model, "sense-voice-small": built["sv"], "qwen3-asr-0.6b": built["q3"]}
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        s = Session(app, model, lang, "light", work, with_model=False)
        if not s.wait(lambda: s.window.models.picker is not None and s.window.models.picker.isVisible(), 10):
            raise SystemExit("screenshots: the model picker did not open")
        s.shot(out / f"no-model-{tag}.png")  # the window behind it: what the banner says now
        picker = s.window.models.picker
        picker.resize(760, 720)
        s.wait(lambda: False, 0.5)
        picker.grab().save(str(out / f"picker-{tag}.png"))
        print(out / f"picker-{tag}.png")
        stages: list[str] = []
        picker._worker.progress.connect(lambda stage, *_: stages.append(stage))
        picker.start_import(str(built["sv-checkpoint"]), "sense-voice-small")
        if s.wait(lambda: any(st.startswith("converting: ") for st in stages), 120):
            s.wait(lambda: False, 0.3)
            picker.grab().save(str(out / f"picker-progress-{tag}.png"))
            print(out / f"picker-progress-{tag}.png")
        s.wait(lambda: not picker.busy, 300)
        s.close()

        s = Session(
            app,
            model,
            lang,
            "light",
            work,
            with_model=False,
            installed=installed,
            model="fun-asr-nano-2512",
            dictation_model="sense-voice-small",
            page="dictation",
        )
        s.wait(lambda: s.window.dictation_host.controller is not None, 120)
        s.window.statusBar().clearMessage()
        s.shot(out / f"model-uses-{tag}.png")
        dialog = ModelManagerDialog(s.window, current="fun-asr-nano-2512", dictation="sense-voice-small")
        dialog.select("sense-voice-small")
        dialog.resize(860, 560)
        dialog.show()
        s.wait(lambda: False, 0.5)
        dialog.grab().save(str(out / f"model-manager-{tag}.png"))
        print(out / f"model-manager-{tag}.png")
        dialog.reject()
        settings = SettingsDialog(s.window.settings, s.window, languages=s.window.engine.engine_of("files").languages)
        settings.show()
        s.wait(lambda: False, 0.5)
        settings.grab().save(str(out / f"settings-{tag}.png"))
        print(out / f"settings-{tag}.png")
        settings.close()
        s.close()

        s = Session(app, model, lang, "light", work, with_model=False, installed=installed, model="qwen3-asr-0.6b")
        s.ready()
        menu = s.window.files.files_bar.language
        menu.showPopup()
        s.wait(lambda: False, 0.6)
        top_left = s.window.frameGeometry().topLeft()
        app.primaryScreen().grabWindow(
            0, top_left.x(), top_left.y(), s.window.frameGeometry().width(), s.window.frameGeometry().height()
        ).save(str(out / f"language-menu-{tag}.png"))
        print(out / f"language-menu-{tag}.png")
        menu.hidePopup()
        s.close()


PARAFORMER_SPEECH = ["今天天气很好。我们一起去学校吧。", "会议记录明天下午三点开始，请大家准时参加。谢谢。"]


def paraformer_shots(app, model: Path, out: Path, work: Path) -> None:
    """The picker at its Paraformer-zh card, and a Chinese file transcribed by Paraformer-zh with punctuation."""
    import numpy as np
    from tiny_ct_punc import make_checkpoint as punc_checkpoint
    from tiny_paraformer import make_checkpoint as paraformer_checkpoint

    from tests.support.audio import espeak, write_wav
    from tingji.export import export_model

    print("screenshots: building a tiny Paraformer-zh and its punctuation model…", file=sys.stderr)
    installed = {
        "paraformer-zh": export_model(paraformer_checkpoint(work / "ckpt" / "pf", seed=0), work / "models" / "pf"),
        "ct-punc-zh": export_model(punc_checkpoint(work / "ckpt" / "punc", seed=0), work / "models" / "punc"),
    }
    os.environ["TINGJI_CATALOG"] = str(ROOT / "assets" / "models.json")  # this checkout's catalog
    pause = np.zeros(12000, np.float32)
    (work / "media").mkdir(parents=True, exist_ok=True)
    clips = [espeak(work / "media" / f"zh{i}.wav", text, voice="cmn") for i, text in enumerate(PARAFORMER_SPEECH)]
    media = write_wav(work / "media" / "会议通知 2024-05-12.wav", np.concatenate([pause, clips[0], pause, clips[1]]))
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        s = Session(app, model, lang, "light", work, with_model=False)
        if not s.wait(lambda: s.window.models.picker is not None and s.window.models.picker.isVisible(), 10):
            raise SystemExit("screenshots: the model picker did not open")
        picker = s.window.models.picker
        picker.resize(760, 720)
        card = next(c for c in picker.cards if c.entry.name == "paraformer-zh")
        scroll = card.parentWidget()
        while scroll is not None and not hasattr(scroll, "ensureWidgetVisible"):
            scroll = scroll.parentWidget()
        if scroll is not None:
            scroll.ensureWidgetVisible(card)
        s.wait(lambda: False, 0.5)
        picker.grab().save(str(out / f"picker-paraformer-{tag}.png"))
        print(out / f"picker-paraformer-{tag}.png")
        s.close()

        s = Session(app, model, lang, "light", work, with_model=False, installed=installed, model="paraformer-zh")
        s.ready()
        c = s.window.controller
        s.window.files.add_paths([str(media)])
        s.wait(lambda: bool(c.model.jobs()) and all(j.status.finished for j in c.model.jobs()), 300)
        s.window.files.queue.select_job(c.model.jobs()[0].id)
        s.shot(out / f"paraformer-transcript-{tag}.png")
        s.close()


# A conversation in the demo model's vocabulary: (speaker, words), three voices taking turns.
# (Speaker labels need 15 s of speech at least, cluster.MIN_WINDOWS: eight turns of about two seconds.)
CONVERSATION = [
    (0, "hello thank you please call home"),
    (1, "yes please call home today"),
    (0, "new meeting today time nine"),
    (2, "no thank you please save file"),
    (1, "please save file open new file"),
    (2, "red green blue left right"),
    (0, "one two three four five six"),
    (1, "yes thank you call home today"),
]
SPEAKER_NAMES = {"en": ("Dr. Chen", "Ann"), "zh": ("陈医生", "安娜")}


def speaker_model_for_shots(work: Path, given: Path | None) -> tuple[Path, bool]:
    """The speaker model the shots use, and whether it is a trained one: `given`, else one committed under
    tests/fixtures/models (the demo speaker model), else a random-weight one built here (a draft: it tells
    no voices apart, so the labels are arbitrary)."""
    import json

    if given is not None:
        return given, True
    for manifest in sorted((ROOT / "tests" / "fixtures" / "models").glob("*/manifest.json")):
        if json.loads(manifest.read_text(encoding="utf-8")).get("family") == "campplus":
            return manifest.parent, True
    from tiny_campplus import make_checkpoint

    from tingji.export import export_model

    print("screenshots: no trained speaker model; a random-weight one makes these DRAFT shots", file=sys.stderr)
    return Path(export_model(make_checkpoint(work / "ckpt" / "campplus", seed=0), work / "models" / "campplus")), False


def conversation_session(app, model: Path, lang: str, work: Path, folder: Path, trained: bool, media: Path):
    """The app in `lang` with the speaker model `folder` installed, speakers found (a count of 3 with a random-weight
    model), `media` transcribed and selected; returns the session and the finished job."""
    from tingji.gui.files.storage import Status

    s = Session(app, model, lang, "light", work, installed={"campplus": folder}, speakers="auto" if trained else "3")
    s.ready()
    c = s.window.controller
    s.window.files.add_paths([str(media)])
    s.wait(lambda: bool(c.model.jobs()) and all(j.status.finished for j in c.model.jobs()), 300)
    job = c.model.jobs()[0]
    if job.status is not Status.DONE:
        raise SystemExit(f"screenshots: the conversation was not transcribed ({job.error})")
    s.window.files.queue.select_job(job.id)
    return s, job


def speaker_shots(app, model: Path, out: Path, work: Path, speaker_model: Path | None = None) -> None:
    """A conversation of three voices: its transcript with named, coloured speakers, the rename dialog, and
    the voice library in Settings (English and Chinese)."""
    import numpy as np
    from demo_model.speech import Speaker, espeak_many

    from tests.support.audio import write_wav

    folder, trained = speaker_model_for_shots(work, speaker_model)
    voices = [
        Speaker("en-us", "m4", 140, 30, 1),
        Speaker("en-gb-x-rp", "f3", 150, 80, 1),
        Speaker("en-us", "m2", 140, 50, 0),
    ]
    clips = espeak_many([(text, voices[who]) for who, text in CONVERSATION])
    # One turn a minute, as for the call in make_media: each window then holds one utterance (the demo
    # model reads short ones), so each turn is a segment of its own.
    minute = int(CALL_SPACING_S * 16000)
    (work / "media").mkdir(parents=True, exist_ok=True)
    media = write_wav(
        work / "media" / "Team meeting 12 May.wav",
        np.concatenate([np.pad(c, (8000, max(0, minute - 8000 - len(c)))) for c in clips]),
    )
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        s, job = conversation_session(app, model, lang, work, folder, trained, media)
        c = s.window.controller
        first, second = SPEAKER_NAMES[tag]
        c.rename_speaker(job.id, 0, first)
        c.remember_voice(job.id, 0, first)
        transcript = c.transcript(job.id)
        if transcript is not None and len(transcript.speakers) > 1:
            c.remember_voice(job.id, 1, second)
        panel = s.window.files.panel
        s.shot(out / f"speakers-{tag}.png")
        panel.ask_rename(len(panel.segments.speakers) - 1)
        s.wait(lambda: panel.name_dialog is not None and panel.name_dialog.isVisible(), 5)
        s.wait(lambda: False, 0.5)
        screen = app.primaryScreen()
        frame = s.window.frameGeometry()
        screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height()).save(
            str(out / f"speakers-rename-{tag}.png")
        )
        print(out / f"speakers-rename-{tag}.png")
        panel.name_dialog.reject()
        settings_shot(s, out / f"voices-{tag}.png", "speakers")
        s.close()


def turn_shots(app, model: Path, out: Path, work: Path, speaker_model: Path | None = None) -> None:
    """Quick turns inside one window: issue 45's three-voice conversation (tests/support/turn_taking.py, turns of
    0.5-4 s, 0.2-1 s apart, some of one word) transcribed with speakers found, English and Chinese."""
    from tests.support import turn_taking
    from tests.support.audio import write_wav

    folder, trained = speaker_model_for_shots(work, speaker_model)
    talk = turn_taking.conversation(*turn_taking.CASES[1])
    (work / "media").mkdir(parents=True, exist_ok=True)
    media = write_wav(work / "media" / "Quick turns.wav", talk.samples)
    for lang, tag in (("en", "en"), ("zh_CN", "zh")):
        s, job = conversation_session(app, model, lang, work, folder, trained, media)
        s.shot(out / f"speakers-turns-{tag}.png")
        s.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="model folder (default: demo model, else a tiny one)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--extra", action="store_true", help="the views the README does not show (see above)")
    parser.add_argument(
        "--models",
        action="store_true",
        help="the model picker, a model per use and the Qwen3-ASR language menu (see above)",
    )
    parser.add_argument("--overlay", action="store_true", help="the dictation overlay (see above)")
    parser.add_argument(
        "--speakers", action="store_true", help="speaker labels: a named transcript, the rename, the voice library"
    )
    parser.add_argument(
        "--turns", action="store_true", help="speaker labels on quick turns inside one window (issue 45)"
    )
    parser.add_argument("--speaker-model", type=Path, help="speaker model folder for --speakers (default: see above)")
    parser.add_argument(
        "--paraformer", action="store_true", help="Paraformer-zh in the picker and a punctuated transcript"
    )
    parser.add_argument("--settings", action="store_true", help="only the Settings dialog, English and Chinese")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    xvfb, display = start_xvfb()
    work = Path(tempfile.mkdtemp(prefix="tingji-shots-"))
    os.environ["DISPLAY"] = display
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    os.environ.pop("WAYLAND_DISPLAY", None)
    try:
        model = args.model or default_model(work)
        chosen = (args.extra, args.models, args.overlay, args.paraformer, args.speakers, args.turns, args.settings)
        if any(chosen):
            from tingji.gui.app import create_app

            os.environ["TINGJI_HOME"] = str(work / "home-boot")
            if args.extra:
                shots = extra_shots
            elif args.overlay:
                shots = overlay_shots
            elif args.paraformer:
                shots = paraformer_shots
            elif args.speakers:
                shots = functools.partial(speaker_shots, speaker_model=args.speaker_model)
            elif args.turns:
                shots = functools.partial(turn_shots, speaker_model=args.speaker_model)
            elif args.settings:
                shots = settings_shots
            else:
                shots = model_shots
            shots(create_app([sys.argv[0]]), model, args.out, work)
        else:
            run(model, args.out, work)
    finally:
        import threading

        # A stopped hotkey listener (pynput, XRecord) only notices at the next key event, so
        # it is still waiting when Xvfb goes: its "connection closed" is expected, not news.
        default_hook = threading.excepthook
        threading.excepthook = lambda a: None if "pynput" in type(a.thread).__module__ else default_hook(a)
        xvfb.terminate()
        xvfb.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
