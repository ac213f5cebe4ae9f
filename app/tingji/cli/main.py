"""The `tingji` command: the parser, the dispatch, and the one place errors become exit codes.

With no arguments it opens the desktop app; otherwise it runs a subcommand.
Each subcommand is a module with `add_parser(subparsers)` and `run(args) -> int`
that raises instead of printing its failure, so every command fails the same
way: one line on stderr and a non-zero exit status. A message meant for the
user (TingjiError) exits 1, Ctrl-C exits 130, and anything else is a bug,
reported as one line asking for a report; the traceback goes to the log only
with --verbose, never to a user who did not ask for it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable

from .. import __version__
from ..engine.heap import limit_heaps
from ..errors import TingjiError
from ..system_libraries import missing_from
from . import devices, export, models, transcribe
from . import messages as cli_messages

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tingji",
        description="Tingji (听记): offline speech-to-text. Run without arguments to open the app.",
    )
    parser.add_argument("--version", action="version", version=f"tingji {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (transcribe, export, models, devices):
        command.add_parser(sub)
    gui = sub.add_parser("gui", help="open the desktop app (the default), optionally queueing files")
    gui.add_argument("files", nargs="*", metavar="FILE", help="audio or video files to queue")
    gui.set_defaults(run=lambda args: gui_main(args.files))
    return parser


def tolerant_streams() -> None:
    """Characters stdout/stderr cannot encode are printed as `?` rather than failing.

    A Windows console shows every character (Python writes it through the console's
    Unicode API), but a pipe or a file gets the ANSI code page, as from every Windows
    program: cp936 shows Chinese file names, cp1252 cannot, and Python would raise
    UnicodeEncodeError on stdout (`tingji --help | more` died on 听记) and write
    `\\u8bed` escapes on stderr. `?` is what Windows programs print for such a
    character; the encoding stays the one the reading program expects. On Linux it
    keeps a file name that is not valid UTF-8 from stopping a progress line.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "replace") != "replace":
            reconfigure(errors="replace")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    limit_heaps()  # first: before any thread has made a heap of its own (engine.heap)
    tolerant_streams()
    if not argv:
        return gui_main([])
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:  # `tingji -v` and nothing else
        parser.print_help()
        return 2
    try:
        return int(run(args) or 0)
    except TingjiError as exc:
        _say(str(exc))
        return 1
    except KeyboardInterrupt as exc:
        _say(str(exc) or "interrupted")
        return 130
    except OSError as exc:  # the disk or the system refused (full, read-only, permissions): not a bug
        where = f": {exc.filename}" if exc.filename else ""
        _say(f"{exc.strerror or exc}{where}")
        return 1
    except Exception as exc:
        if args.verbose:
            log.error("internal error", exc_info=True)
        text = " ".join(str(exc).split())
        _say(
            f"internal error ({type(exc).__name__}: {text}); please report it"
            + ("" if args.verbose else " (run it again with -v for the details)")
        )
        return 1


def _say(message: str) -> None:
    print(f"tingji: {message}", file=sys.stderr)


def gui_main(files: list[str] | None = None) -> int:
    """Open the desktop app, queueing `files`; a clear message instead of a traceback when Qt cannot start.

    Args:
        files: audio or video files (or folders) to queue. None - the `tingji-gui` program, which
            Windows starts as `tingji-gui.exe FILE` from "Open with" - takes them from this process's
            command line, after Qt's own options such as `-platform offscreen`.
    """
    limit_heaps()  # first: before Qt's threads make heaps of their own (engine.heap)
    try:
        from ..gui.app import run_app
    except ImportError as exc:  # a library Qt itself links (libEGL.so.1, ...): named with its package
        lib = missing_from(exc)
        if lib is not None and lib.package:
            _say(str(TingjiError(cli_messages.GUI_LIBRARY_MISSING, library=lib.soname, package=lib.package)))
        else:
            print(f"tingji: the desktop app cannot start ({exc})", file=sys.stderr)
        return 1
    if files is None:
        return run_app(argv=sys.argv)
    return run_app(files)
