"""A Windows user of the tests' own: a private copy of the environment's prefix for `winenv.for_user`,
made to look like a Windows PC to a program installed into it.

The copy is the test's to change (an installer writes into it; the cached prefix stays clean), and:

- its profile folders (Desktop, Documents, ...) are folders of their own, not Wine's links into the
  Linux home folder, where a setup's desktop shortcut or a user's transcripts would otherwise land;
- Wine's own fonts (Tahoma, Marlett; Debian's fonts-wine) are registered as a Windows PC's fonts
  are, so Qt's default "MS Shell Dlg" is Tahoma rather than whichever host font comes first, and
  window captions get real minimise/maximise/close buttons instead of the letters "0 1 r";
- the user's window captions, menus and taskbar use Noto Sans CJK SC, installed as a Windows font
  (the face the environment extracted for Qt), as a Chinese Windows' use Microsoft YaHei UI: with
  Wine's Tahoma a caption in Chinese is drawn as boxes (Wine 8 ignored FontLink SystemLink entries
  that link Tahoma or "MS Shell Dlg" to it).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

WINE_FONTS = Path("/usr/share/wine/fonts")
FONTS = {
    "Tahoma (TrueType)": "tahoma.ttf",
    "Tahoma Bold (TrueType)": "tahomabd.ttf",
    "Marlett (TrueType)": "marlett.ttf",
}
CJK_FILE = "NotoSansCJKSC-Regular.otf"  # tools/windows: extracted from fonts-noto-cjk's collection
CJK_FACE = "Noto Sans CJK SC"
FONTS_KEY = r"HKEY_LOCAL_MACHINE\Software\Microsoft\Windows NT\CurrentVersion\Fonts"
METRICS_KEY = r"HKEY_CURRENT_USER\Control Panel\Desktop\WindowMetrics"
UI_FONTS = {"CaptionFont": 700, "SmCaptionFont": 400, "MenuFont": 400, "MessageFont": 400, "StatusFont": 400}


def clean_environ() -> dict[str, str]:
    """This process's variables without Tingji's, Qt's and Python's (the tests' own data folder must not
    reach the installed app) and without a display (each command gets a private Xvfb)."""
    drop = ("TINGJI_", "QT_", "PYTHON", "DISPLAY", "WAYLAND_DISPLAY")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


def _logfont(face: str, weight: int) -> str:
    """A LOGFONTW as a .reg value: 9 pt at 96 dpi (height -12), the face, everything else default."""
    data = struct.pack("<5l8B", -12, 0, 0, 0, weight, 0, 0, 0, 1, 0, 0, 0, 0) + face.encode("utf-16-le").ljust(
        64, b"\0"
    )
    return "hex:" + ",".join(f"{b:02x}" for b in data)


def _registry_file(path: Path) -> Path:
    lines = ["Windows Registry Editor Version 5.00", "", f"[{FONTS_KEY}]"]
    lines += [f'"{name}"="{file}"' for name, file in FONTS.items()]
    lines += [f'"{CJK_FACE} (OpenType)"="{CJK_FILE}"']
    lines += ["", f"[{METRICS_KEY}]"]
    lines += [f'"{name}"={_logfont(CJK_FACE, weight)}' for name, weight in UI_FONTS.items()]
    # A version 5 .reg file is UTF-16 with a BOM, as regedit writes it.
    path.write_text("\r\n".join(lines) + "\r\n", encoding="utf-16")
    return path


def private_user(winenv: ModuleType, env, user: str, folder: Path):
    """The environment in a prefix of its own under `folder` whose Windows user is `user`."""
    cached = winenv.for_user(env, user)
    prefix = folder / "prefix"
    # cp keeps the prefix's links (dosdevices) and shares blocks where the file system can (~1-3 s)
    subprocess.run(["cp", "-a", "--reflink=auto", str(cached.prefix), str(prefix)], check=True)
    profile = prefix / "drive_c" / "users" / user
    for link in [p for p in profile.rglob("*") if p.is_symlink()]:
        link.unlink()
        link.mkdir()
    fonts = prefix / "drive_c" / "windows" / "Fonts"
    for file in FONTS.values():
        shutil.copy(WINE_FONTS / file, fonts / file)
    shutil.copy(cached.fonts / CJK_FILE, fonts / CJK_FILE)
    mine = dataclasses.replace(cached, prefix=prefix)
    reg = _registry_file(folder / "fonts.reg")
    done = winenv.run(mine, ["wine", "regedit", "/S", str(reg)], base_environ=clean_environ(), timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    wait_for_wine(mine)
    return mine


def to_linux(env, path: str) -> Path:
    """Where a `C:\\...` path of the prefix is on this machine."""
    assert path[:3].upper() == "C:\\", path
    return env.prefix / "drive_c" / path[3:].replace("\\", "/")


def wait_for_wine(env) -> None:
    """Until every Windows process of the prefix has ended (an NSIS uninstaller runs on as a copy of
    itself after its first process exits)."""
    subprocess.run(["wineserver", "-w"], env=env.environ(clean_environ()), check=False, timeout=600)


def stop_wine(env) -> None:
    subprocess.run(["wineserver", "-k"], env=env.environ(clean_environ()), check=False, timeout=120)


SCREENSHOT = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication([sys.argv[0], "-platform", "xcb"])
x, y, w, h = map(int, sys.argv[2:6])
image = app.primaryScreen().grabWindow(0, x, y, w, h).toImage()
colours = len({image.pixel(i, j) for i in range(0, w, 4) for j in range(0, h, 4)})
print(colours if image.save(sys.argv[1]) else -1)
"""


def screenshot(display: str, out: Path, width: int, height: int) -> int:
    """The X display's top-left `width` x `height` (what a user sees: Wine draws the whole desktop)
    saved as PNG by this machine's own Qt; returns how many colours a 4-pixel grid of it holds."""
    env = dict(clean_environ(), DISPLAY=display)
    args = [sys.executable, "-c", SCREENSHOT, str(out), "0", "0", str(width), str(height)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.strip().splitlines()[-1])
