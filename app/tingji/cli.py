"""The `tingji` command.

With no arguments it opens the desktop app; otherwise it runs a subcommand.
Errors the user can act on print one line on stderr and exit non-zero; a
traceback only ever appears for a bug, and then with a request to report it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Callable

from . import __version__
from .engine.errors import TingjiError


def _export_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export-model",
        help="convert an official Fun-ASR-Nano checkpoint into a Tingji model folder",
        description="Convert an official Fun-ASR-Nano checkpoint folder (config.yaml, model.pt, "
        "Qwen3-0.6B/) into a Tingji model folder. Needs the export extra: pip install 'tingji[export]'.",
    )
    p.add_argument("--source", required=True, help="official checkpoint folder")
    p.add_argument("--out", required=True, help="model folder to create")
    p.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "int8"], help="encoder precision")
    p.add_argument("--decoder-quant", default="f16", choices=["f32", "f16", "q8_0", "q5_k"],
                   help="decoder GGUF type")
    p.add_argument("--no-fixed", action="store_true", help="skip the fixed-shape encoder used by DirectML")
    p.set_defaults(func=_run_export)


EXPORT_EXTRA = {"torch", "onnx", "onnxscript", "gguf", "yaml", "tokenizers"}


def _run_export(args: argparse.Namespace) -> int:
    from .export import export_model

    try:
        export_model(args.source, args.out, precision=args.precision, decoder_quant=args.decoder_quant,
                     fixed=not args.no_fixed, progress=lambda msg: print(f"export: {msg}", file=sys.stderr))
    except ModuleNotFoundError as exc:
        # torch & co. are imported lazily inside export_model: the frozen app and a plain install lack them.
        if (exc.name or "").split(".")[0] not in EXPORT_EXTRA:
            raise
        raise TingjiError(f"export-model needs the export extra ({exc.name} is missing): "
                          "pip install 'tingji[export]'") from None
    print(args.out)
    return 0


def _transcribe_command(sub: argparse._SubParsersAction) -> None:
    from .transcribe_cli import add_parser

    add_parser(sub)


def _models_command(sub: argparse._SubParsersAction) -> None:
    from .models.cli import add_subparser, run

    add_subparser(sub)
    sub.choices["models"].set_defaults(func=run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tingji",
        description="Tingji (听记): offline speech-to-text. Run without arguments to open the app.",
    )
    parser.add_argument("--version", action="version", version=f"tingji {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (_transcribe_command, _export_command, _models_command):
        add(sub)
    gui = sub.add_parser("gui", help="open the desktop app (the default), optionally queueing files")
    gui.add_argument("files", nargs="*", metavar="FILE", help="audio or video files to queue")
    gui.set_defaults(func=lambda args: gui_main(args.files))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        return gui_main()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except TingjiError as exc:
        print(f"tingji: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("tingji: interrupted", file=sys.stderr)
        return 130


def gui_main(files: list[str] | None = None) -> int:
    """Open the desktop app; a clear message instead of a traceback when Qt cannot start."""
    try:
        from .gui.app import run_app
    except ImportError as exc:
        print(f"tingji: the desktop app cannot start ({exc})", file=sys.stderr)
        return 1
    return run_app(files or ())
