"""The system libraries the app can start without, and the Debian packages that provide them. No Qt.

A fresh Debian machine may lack what a feature loads from the system rather than from the
Python wheels: PulseAudio's client (Qt Multimedia links it: playing a segment), PortAudio
(sounddevice: dictation, its cues, the history's Play), the libraries of Qt's platform
plugins (the window itself) and of its multimedia backend. Each feature imports its
library when first used and names what is missing through `missing_from`, so the app starts
anyway; only the window's own libraries stop it, with one line (`gui.startup`).

The list is declared here once: the soname the loader looks for and the package that
installs it (Debian 12 names, the same on Ubuntu).
"""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass

__all__ = ["LIBRARIES", "PORTAUDIO", "PULSE", "SystemLibrary", "library", "missing_from", "probe"]


@dataclass(frozen=True)
class SystemLibrary:
    """A shared library from the system, as the loader names it, and the package that installs it.

    Args:
        soname: The file name the loader looks for (`libpulse.so.0`).
        package: The Debian package providing it; "" for a library this list does not know.
    """

    soname: str
    package: str


PULSE = SystemLibrary("libpulse.so.0", "libpulse0")  # libQt6Multimedia links it: segment playback
PORTAUDIO = SystemLibrary("libportaudio.so.2", "libportaudio2")  # sounddevice: dictation

LIBRARIES: tuple[SystemLibrary, ...] = (
    PULSE,
    PORTAUDIO,
    # Qt's xcb platform plugin (libqxcb.so and libQt6XcbQpa.so.6) and libQt6Gui beyond the wheel's
    # own Qt libraries; libxcb-cursor0 is the one Debian leaves out most often (Qt 6.5 and later need it).
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1"),
    SystemLibrary("libxcb.so.1", "libxcb1"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1"),
    SystemLibrary("libX11.so.6", "libx11-6"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0"),
    SystemLibrary("libgthread-2.0.so.0", "libglib2.0-0"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1"),
    SystemLibrary("libfreetype.so.6", "libfreetype6"),
    SystemLibrary("libz.so.1", "zlib1g"),
    SystemLibrary("libdbus-1.so.3", "libdbus-1-3"),
    SystemLibrary("libGL.so.1", "libgl1"),
    SystemLibrary("libEGL.so.1", "libegl1"),
    # Qt Multimedia's FFmpeg backend (libffmpegmediaplugin.so), beyond the FFmpeg the wheel ships.
    SystemLibrary("libXrandr.so.2", "libxrandr2"),
    SystemLibrary("libXext.so.6", "libxext6"),
)
_BY_SONAME = {lib.soname: lib for lib in LIBRARIES}

# A shared object's file name inside the loader's text: "libpulse.so.0: cannot open shared object
# file", "/some/dir/libpulse.so.0: file too short", "cannot load library 'libportaudio.so.2': ...".
_SONAME = re.compile(r"(?:^|[\s'\"/(])(lib[\w.+-]*?\.so(?:\.\d+)*)\b")


def library(soname: str) -> SystemLibrary:
    """The declared library of this file name, or one with no package for a name not declared."""
    return _BY_SONAME.get(soname, SystemLibrary(soname, ""))


def missing_from(error: BaseException | str) -> SystemLibrary | None:
    """The library a loader's error names (the first a declared one, else any), or None when it names none.

    Args:
        error: an ImportError or OSError from importing or loading a library, or its text.
    """
    names = _SONAME.findall(str(error))
    for name in names:
        if name in _BY_SONAME:
            return _BY_SONAME[name]
    return library(names[0]) if names else None


def probe(path: str | os.PathLike[str]) -> tuple[SystemLibrary | None, str] | None:
    """Load the shared object at `path` as the loader would; None when it loads.

    Else (the library it lacks, or None when the loader's text names none; that text in one line).
    Loading a Qt plugin this way runs no Qt code (a plugin's entry point is only called by Qt),
    and costs what Qt would spend loading it a moment later.
    """
    try:
        ctypes.CDLL(os.fspath(path))
    except OSError as exc:
        text = " ".join(str(exc).split())
        found = missing_from(text)
        return (None if found is not None and found.soname == os.path.basename(path) else found), text
    return None
