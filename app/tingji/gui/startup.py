"""Before the QApplication: can Qt's platform plugin load? One line instead of Qt's abort.

Qt aborts the process (SIGABRT, a paragraph about reinstalling) when no platform plugin it
tries can be loaded, for instance the xcb plugin on a Debian without libxcb-cursor0. Nothing
after `QApplication(...)` runs then, so the check comes before it: the plugins Qt would try
(`-platform`, else QT_QPA_PLATFORM, else its default for the session) are loaded the way the
loader would load them (`system_libraries.probe`, a dlopen of each: milliseconds, and the
same work Qt does a moment later). Only when every one of them fails does the app stop, with
the first one's missing library and its package (or, for xcb, the DISPLAY that is not set:
Qt aborts on that too, from an ssh session say). Linux only: the Windows and macOS plugins
ship inside the wheel with what they link.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QLibraryInfo

from ..errors import TingjiError
from ..system_libraries import probe
from . import messages

__all__ = ["platform_names", "platform_problem"]


def platform_names(argv: Sequence[str]) -> list[str]:
    """The platform plugins Qt will try, in its order: `-platform NAME` (or `-platform=NAME`) in `argv`,
    else QT_QPA_PLATFORM, else Qt's default (Wayland first in a Wayland session, then xcb).
    Only the plugins' files matter here; Qt may skip the Wayland one on some desktops, which
    at worst leaves a failing xcb to Qt's own message.

    Args:
        argv: the command line Qt gets (program first).
    """
    spec = ""
    for i, arg in enumerate(argv[1:], 1):
        if arg in ("-platform", "--platform") and i + 1 < len(argv):
            spec = argv[i + 1]
        elif arg.startswith(("-platform=", "--platform=")):
            spec = arg.split("=", 1)[1]
    spec = spec or os.environ.get("QT_QPA_PLATFORM", "")
    if not spec:
        wayland = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE") == "wayland"
        spec = "wayland;xcb" if wayland else "xcb"
    # "xcb:option=value" carries options after the name; ";" separates fallbacks.
    return [name.split(":", 1)[0].strip() for name in spec.split(";") if name.split(":", 1)[0].strip()]


def platform_problem(argv: Sequence[str]) -> TingjiError | None:
    """Why Qt would abort on its platform plugin for `argv`, or None (it loads, or we cannot tell).

    Args:
        argv: the command line Qt gets (program first).
    """
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM_PLUGIN_PATH"):
        return None  # another plugin folder: Qt's own message is the better guide
    folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    first: TingjiError | None = None
    for name in platform_names(argv):
        plugin = folder / f"libq{name}.so"
        if not plugin.is_file():
            return None  # not one of the wheel's: Qt says what it lists
        failed = probe(plugin)
        if failed is None:
            if name == "xcb" and not os.environ.get("DISPLAY"):  # it loads, then aborts: no X server named
                first = first or TingjiError(messages.PLATFORM_NO_DISPLAY, platform=name, variable="DISPLAY")
                continue
            return None  # this one loads: Qt starts (or says why the display refused)
        lib, text = failed
        if first is None:
            if lib is not None and lib.package:
                first = TingjiError(
                    messages.PLATFORM_LIBRARY_MISSING, platform=name, library=lib.soname, package=lib.package
                )
            else:
                first = TingjiError(messages.PLATFORM_PLUGIN_FAILED, platform=name, reason=text)
    return first
