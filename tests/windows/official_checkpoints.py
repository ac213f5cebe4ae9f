"""Issue 44 proof 2's Linux half: what the installed Windows app converts, and what it must give.

- `OFFICIAL`: one tiny random checkpoint in the official release layout for each family and companion
  (tests/conftest.py builds them), under the name the installed app imports it as;
- `record_references`: the torch exporter's folder for each, made with `models import`'s own defaults
  (`export_model`'s), while recording the graph templates the installed app then fills without torch.
  The app ships templates for the full-size releases only (app/tingji/export/graph_templates/); these
  tiny configurations reach it through `TINGJI_TEMPLATES`, as in tests/test_installer.py;
- `linux_cpu`: the Linux engine's transcript on the CPU, through the same CLI;
- `picker_views`: the first-run model picker as a new user sees it, at first and scrolled to its end.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import APP

from .user_prefix import clean_environ, screenshot

# installed name -> (the conftest fixture of its tiny official-layout checkpoint, the conftest fixture of that
# checkpoint's torch export with `export_model`'s defaults - what `models import` converts with - or None where
# the suite exports it otherwise (Nano's and Qwen3-ASR's with an f32 decoder; CAM++'s fp32 only, where the
# default adds the int8 graph), the manifest family)
OFFICIAL = {
    "nano": ("tiny_checkpoint", None, "fun-asr-nano"),
    "sense-voice": ("sv_checkpoint", "sv_model", "sense-voice-small"),
    "qwen3-asr": ("q3_checkpoint", None, "qwen3-asr"),
    "paraformer": ("pf_checkpoint", "pf_model", "paraformer"),  # paraformer-zh's BiCIF variant, with timestamps
    "ct-punc": ("punc_checkpoint", "punc_model", "ct-punc"),
    "campplus": ("speaker_checkpoint", None, "campplus"),
}
PUNCTUATION = "，。？！、"  # what CT-punc writes (its tiny vocabulary's marks)
INDEX = "references.json"  # record_references's list of the torch exports, by installed name


@dataclass(frozen=True)
class References:
    """The torch exporter's side: the templates it recorded and its model folder for each name."""

    templates: Path
    folders: dict[str, Path]

    @classmethod
    def load(cls, folder: Path) -> References:
        """What `record_references` wrote into `folder` (built once per test run: tests/support/once.py)."""
        saved = json.loads((folder / INDEX).read_text(encoding="utf-8"))
        return cls(folder / "templates", {name: Path(path) for name, path in saved.items()})


def record_references(checkpoints: dict[str, Path], exported: dict[str, Path | None], out: Path) -> Path:
    """The graph templates of each checkpoint's export with `models import`'s options, and the torch export.

    The templates are recorded from one probe export each (`recording(check=False)`): whether they make the
    torch exporter's graphs is what the installed app's files, compared with `exported`'s, then show.

    Args:
        checkpoints: installed name -> official-layout checkpoint folder.
        exported: installed name -> the suite's torch export of it with `export_model`'s defaults, or None to
            export it here.
        out: an empty folder for the templates, the folders exported here and their list (`References.load`).
    """
    from tingji.export import export_model, templates

    folders = {}
    for name, checkpoint in checkpoints.items():
        started = time.monotonic()
        with templates.recording(out / "templates", check=False):
            export_model(checkpoint, out / "recorded" / name)  # the defaults `models import` uses
        recorded = time.monotonic()
        folders[name] = exported[name] or export_model(checkpoint, out / "torch" / name)
        print(
            f"tiny {name}: templates recorded {recorded - started:.1f} s, torch export "
            + ("the suite's" if exported[name] else f"{time.monotonic() - recorded:.1f} s"),
            flush=True,
        )
    (out / INDEX).write_text(json.dumps({name: str(path) for name, path in folders.items()}), encoding="utf-8")
    return out


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def linux_cpu(args: list[str | Path], out: Path, name: str) -> dict:
    """`python -m tingji transcribe ARGS --provider cpu --format json` on Linux; its JSON for `name`.

    Args:
        args: everything after `transcribe` but the provider, format and output folder.
        out: a new folder for the JSON.
        name: the audio file's stem.
    """
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "tingji", "transcribe", *map(str, args), "--provider", "cpu"]
        + ["--format", "json", "--out", str(out)],
        env=dict(os.environ, PYTHONPATH=str(APP)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / f"{name}.json").read_text(encoding="utf-8"))


def linux_models_list(home: Path) -> str:
    """`tingji models list` from this checkout's source for a user data folder with nothing installed."""
    done = subprocess.run(
        [sys.executable, "-m", "tingji", "models", "list"],
        env=dict(clean_environ(), PYTHONPATH=str(APP), TINGJI_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def wait_for_window(display: str, title: str, process: subprocess.Popen, timeout: float) -> tuple[int, int, int, int]:
    """Until a window whose caption starts with `title` is on the display; its x, y, width and height.

    Wine gives each Windows window on its desktop an X window named by its caption, so the wait needs
    no pixels and no fixed sleep.

    Args:
        display: the X display.
        title: the caption's start.
        process: the program that opens it (a failure if it exits first).
        timeout: seconds to wait at most.
    """
    env = dict(clean_environ(), DISPLAY=display)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the program exited ({process.returncode}) before showing {title!r}"
        found = subprocess.run(
            ["xdotool", "search", "--name", "^" + re.escape(title)], env=env, capture_output=True, text=True, timeout=30
        )
        for window in found.stdout.split():
            shape = subprocess.run(
                ["xdotool", "getwindowgeometry", "--shell", window], env=env, capture_output=True, text=True, timeout=30
            )
            values = dict(line.split("=", 1) for line in shape.stdout.split() if "=" in line)
            if shape.returncode == 0 and int(values.get("WIDTH", 0)) > 1:
                return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])
        time.sleep(1)
    raise AssertionError(f"no window {title!r} within {timeout:.0f} s")


def picker_views(display: str, out: Path, screen: tuple[int, int], cards_at: tuple[int, int]) -> list[int]:
    """The screen as the picker opened, then after a user's mouse wheel over its cards took it to the end.

    Saves `out` (the two views side by side) and returns each view's colour count (see `screenshot`).

    Args:
        display: the X display Wine's desktop is on.
        out: the PNG to write.
        screen: the desktop's width and height.
        cards_at: a point inside the picker's list of cards (the wheel scrolls what is under the pointer).
    """
    first, scrolled = out.with_name(out.stem + "-top.png"), out.with_name(out.stem + "-end.png")
    colours = [screenshot(display, first, *screen)]
    env = dict(clean_environ(), DISPLAY=display)
    x, y = cards_at
    # Button 5 is the wheel turned towards the user: 20 notches reach the end of any catalog we ship.
    subprocess.run(["xdotool", "mousemove", str(x), str(y)], env=env, check=True, timeout=30)
    subprocess.run(["xdotool", "click", "--repeat", "20", "--delay", "50", "5"], env=env, check=True, timeout=60)
    time.sleep(2)  # Wine repaints the list
    colours.append(screenshot(display, scrolled, *screen))
    _side_by_side([first, scrolled], out)
    return colours


SIDE_BY_SIDE = """
import sys
from PySide6.QtGui import QGuiApplication, QImage, QPainter, QColor
app = QGuiApplication([sys.argv[0], "-platform", "offscreen"])
images = [QImage(p) for p in sys.argv[2:]]
gap = 16
width = sum(i.width() for i in images) + gap * (len(images) - 1)
out = QImage(width, max(i.height() for i in images), QImage.Format_RGB32)
out.fill(QColor("white"))
painter = QPainter(out)
x = 0
for image in images:
    painter.drawImage(x, 0, image)
    x += image.width() + gap
painter.end()
sys.exit(0 if out.save(sys.argv[1]) else 1)
"""


def _side_by_side(images: list[Path], out: Path) -> None:
    args = [sys.executable, "-c", SIDE_BY_SIDE, str(out), *map(str, images)]
    done = subprocess.run(args, env=clean_environ(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
